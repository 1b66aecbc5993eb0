// Queued runs for the worker tests, put in the store as `reson serve` puts them: a session and
// a request in it; and a wait until a run reaches one of some statuses.
import { ulid } from "../../src/core/ids.js";
import type { RunRequestStatus, Store } from "../../src/store/index.js";

/** A session and one queued run in it, as `reson serve` would queue them. */
export async function queueRun(store: Store, workspace: string, task: string, spec: Record<string, unknown>) {
  const sessionId = ulid();
  const runId = ulid();
  const now = Date.now();
  await store.apply([
    {
      op: "insertSession",
      session: {
        id: sessionId,
        projectKey: "fleet",
        workspace,
        title: task,
        status: "active",
        settings: { provider: "openai-compatible", model: "fake-model" },
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, costUsd: 0 },
        lastTraceId: null,
        createdAt: now,
        updatedAt: now,
      },
    },
  ]);
  await store.queue.enqueue({ id: runId, sessionId, task, spec: { workspace, ...spec }, maxAttempts: 20 });
  return runId;
}

/** Resolves with the request once it has one of `statuses`; throws after `timeoutMs`. */
export async function waitForStatus(
  store: Store,
  runId: string,
  statuses: RunRequestStatus[],
  timeoutMs = 30_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const request = await store.queue.get(runId);
    if (request && statuses.includes(request.status)) return request;
    if (Date.now() > deadline) throw new Error(`run ${runId} is still ${request?.status ?? "missing"}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
