// Executes one claimed run: its agent made from the queued spec, the run started (or resumed
// from its last committed step when a worker before this one died holding it) under the lease
// the claim took, and the queue request ended with the run's outcome under the same lease. A
// worker that lost the lease writes nothing more; one asked to stop puts the run back.
import {
  type Agent,
  CHANNEL_MESSAGE_SOURCE,
  HeldLease,
  type RunOptions,
  type RunResult,
} from "../agent/index.js";
import { ResonError, serializeError, toResonError } from "../core/errors.js";
import type { EventListener } from "../core/events.js";
import { typeboxValue } from "../core/typebox-runtime.js";
import { agentForSpec, type RunSpec, RunSpecSchema } from "../runner/index.js";
import type { RunLease, RunRequestRecord, Store } from "../store/index.js";
import { storePromptChannel } from "./store-prompts.js";

/** How often a running run checks whether a client asked to cancel it. */
const CANCEL_CHECK_MS = 1000;

export interface ExecutorSettings {
  store: Store;
  ttlMs: number;
  /** What holds the lease, as others are told. */
  role: string;
  /** Unanswered approvals are denied (and questions left unanswered) after this long. */
  promptTimeoutMs: number;
  env?: NodeJS.ProcessEnv;
  /** Every event of the run as it happens (live deltas included), for a local event hub. */
  onEvent?: EventListener;
  /** A warning while a run is set up (an MCP server left out), with the run it concerns. */
  warn?: (message: string, runId: string) => void;
  /** Values the host holds (serve's token) that every run masks as the user's secrets. */
  maskedValues?: readonly { name: string; value: string }[];
}

export type ExecutionOutcome =
  | { kind: "finished"; status: "completed" | "failed" | "cancelled"; result?: RunResult }
  /** Put back in the queue (the worker stops): another worker resumes it. */
  | { kind: "released" }
  /** Another process holds the run now; nothing more was written here. */
  | { kind: "lost" };

/**
 * Runs a claimed request to its end. `shutdown` aborts it (with a "host_stopping" reason, never
 * a cancel) at its next safe point when the worker must stop: the run does not end, and is put
 * back for another worker, its attempt given back.
 */
export async function executeClaimed(
  claim: { request: RunRequestRecord; lease: RunLease },
  settings: ExecutorSettings,
  shutdown: AbortSignal,
): Promise<ExecutionOutcome> {
  const { store } = settings;
  const { request } = claim;
  const held = HeldLease.adopt(store, claim.lease, settings.ttlMs);
  const cancel = new AbortController();
  const signal = AbortSignal.any([cancel.signal, shutdown]);
  const watcher = setInterval(() => {
    void store.queue
      .get(request.id)
      .then((current) => {
        if (current?.cancelRequested)
          cancel.abort(new ResonError("aborted", `Run ${request.id} was cancelled by a client.`));
      })
      .catch(() => {});
  }, CANCEL_CHECK_MS);
  watcher.unref();
  let agent: Agent | undefined;
  try {
    const spec = parseSpec(request.spec);
    const prompts = storePromptChannel({
      store,
      runId: request.id,
      agent: () => agent,
      fence: () => held.fence,
      timeoutMs: settings.promptTimeoutMs,
      signal,
    });
    agent = await agentForSpec(spec, {
      store,
      leaseHolder: settings.role,
      promptUser: prompts.promptUser,
      askHuman: prompts.askHuman,
      signal,
      sessionId: request.sessionId,
      ...(settings.warn ? { warn: (message: string) => settings.warn?.(message, request.id) } : {}),
      ...(settings.env ? { env: settings.env } : {}),
      ...(settings.maskedValues ? { maskedValues: settings.maskedValues } : {}),
    });
    const onEvent = settings.onEvent;
    const options = { signal, lease: held, ...(onEvent ? { onEvent } : {}) };
    // A trace in the store means a worker before this one started it: continue from its last step.
    const started = await store.traces.get(request.id);
    const result = started
      ? await agent.resume(request.id, options)
      : await agent.run(request.task, {
          ...options,
          runId: request.id,
          session: request.sessionId,
          ...channelOptions(spec, request.id),
        });
    if (held.lost) return { kind: "lost" };
    // Stopped by the shutdown without ending: back in the queue, its attempt given back, as
    // a crash would leave it but without waiting for the lease to expire.
    if (result.suspended) {
      await store.queue.retryLater(held.fence, null, 0);
      return { kind: "released" };
    }
    const status = cancel.signal.aborted && result.status === "aborted" ? "cancelled" : result.status;
    const finalStatus = status === "aborted" ? "failed" : status;
    await store.queue.finish(held.fence, finalStatus, result.error ?? null);
    return { kind: "finished", status: finalStatus, result };
  } catch (error) {
    if (held.lost) return { kind: "lost" };
    const failure = toResonError(error);
    if (failure.code === "lease_lost") return { kind: "lost" };
    if (shutdown.aborted) {
      await store.queue.retryLater(held.fence, null, 0).catch(() => {});
      return { kind: "released" };
    }
    // The run could not start (a workspace gone, no model configured…): it fails with why.
    await store.queue.finish(held.fence, "failed", serializeError(failure)).catch(() => {});
    return { kind: "finished", status: "failed" };
  } finally {
    clearInterval(watcher);
    await held.release();
    await agent?.close().catch(() => {});
  }
}

/** A chat message's envelope with its task turn, and the run untrusted when it is not the owner's. */
function channelOptions(spec: RunSpec, runId: string): Pick<RunOptions, "envelope" | "untrustedTask"> {
  const message = spec.channelMessage;
  if (!message) return {};
  return {
    envelope: message.envelope,
    ...(message.untrusted
      ? {
          untrustedTask: {
            runId,
            toolCallId: `message:${message.inboundId}`,
            tool: CHANNEL_MESSAGE_SOURCE,
            origin: message.origin,
          },
        }
      : {}),
  };
}

function parseSpec(spec: unknown): RunSpec {
  if (typeboxValue().Check(RunSpecSchema, spec)) return spec;
  const first = [...typeboxValue().Errors(RunSpecSchema, spec)][0];
  throw new ResonError("usage_error", `The queued run's spec is invalid: ${first?.message ?? "unknown"}.`, {
    hint: "Queue it again through the API, which validates the spec.",
  });
}
