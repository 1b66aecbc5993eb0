// `reson worker` on one machine's SQLite file: it stays up until told to stop (nothing but the
// worker itself holds the process there, no LISTEN connection as on PostgreSQL), takes a run
// queued after it started, and stops cleanly on SIGTERM.
import { afterEach, describe, expect, it } from "vitest";
import { ulid } from "../../src/core/ids.js";
import { openStore, type Store } from "../../src/store/index.js";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";
import { killAllReson, startReson } from "../support/service-process.js";

describe("reson worker on SQLite", () => {
  let server: FakeModelServer;
  let ws: TempDir;
  let store: Store;

  afterEach(async () => {
    await killAllReson();
    await store?.close();
    await server?.close();
    ws?.remove();
  });

  it("stays up until SIGTERM and executes a run queued after it started", async () => {
    server = await startFakeModelServer({ respond: () => ({ text: "queued and done" }) });
    ws = tempDir();
    store = await openStore({ home: ws.home });
    const worker = startReson(["worker", "--log-format", "json"], {
      env: cleanEnv({ RESON_HOME: ws.home }),
      cwd: ws.path,
    });
    await worker.waitFor(/worker started/);
    // Longer than the worker's poll: an idle worker must still be there to take the run.
    await new Promise((r) => setTimeout(r, 1500));
    expect(worker.child.exitCode).toBeNull();

    const sessionId = ulid();
    const runId = ulid();
    const now = Date.now();
    await store.apply([
      {
        op: "insertSession",
        session: {
          id: sessionId,
          projectKey: "worker-sqlite",
          workspace: ws.path,
          title: "one run",
          status: "active",
          settings: { provider: "openai-compatible", model: "fake-model" },
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, costUsd: 0 },
          lastTraceId: null,
          createdAt: now,
          updatedAt: now,
        },
      },
    ]);
    await store.queue.enqueue({
      id: runId,
      sessionId,
      task: "answer at once",
      spec: {
        workspace: ws.path,
        provider: "openai-compatible",
        baseUrl: server.openaiBaseUrl,
        model: "fake-model",
        sandbox: "off",
      },
      maxAttempts: 3,
    });
    for (let i = 0; i < 400; i++) {
      if ((await store.queue.get(runId))?.status === "completed") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await store.queue.get(runId))?.status).toBe("completed");
    expect((await store.events.list(runId)).at(-1)?.type).toBe("run_end");

    worker.kill("SIGTERM");
    expect((await worker.exited()).code).toBe(0);
    expect(worker.stderr()).toContain("worker stopped");
  }, 60_000);
});
