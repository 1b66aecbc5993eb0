// Finding runs in the store: a run by id, prefix or session, whether a session is free for a
// new run, and the outcome of a run that already ended. An agent that persists nothing has no
// runs to find.
import { basename } from "node:path";
import { ResonError } from "../core/errors.js";
import type { RunLimits } from "../core/usage.js";
import {
  describeHolder,
  holderAlive,
  leaseSince,
  projectKey,
  type SessionRecord,
  type Store,
  type TraceRecord,
} from "../store/index.js";
import type { LoopSnapshot } from "./recorder.js";
import type { RunResult } from "./types.js";

/** The agent's store, or the usage error of an agent created with `persist: false`. */
export function requireStore(store: Store | undefined): Store {
  if (!store) {
    throw new ResonError("usage_error", "This agent does not persist runs, so there is nothing to resume.", {
      hint: "Create it without `persist: false`.",
    });
  }
  return store;
}

/** Resume of a run that already ended and was learned from: its stored outcome, nothing run. */
export function endedResult(trace: TraceRecord, snapshot: LoopSnapshot): RunResult {
  return {
    runId: trace.id,
    sessionId: trace.sessionId,
    status: "completed",
    finalText: snapshot.lastText,
    steps: trace.steps,
    usage: trace.usage,
    durationMs: (trace.endedAt ?? trace.updatedAt) - trace.startedAt,
    alreadyEnded: true,
  };
}

/**
 * Refuses a new run in a session whose newest run another live process holds: the two would
 * write the same conversation at once.
 */
export async function assertSessionFree(store: Store, session: SessionRecord): Promise<void> {
  if (!session.lastTraceId) return;
  const lease = await store.leases.get(session.lastTraceId);
  if (lease?.state !== "held" || holderAlive(lease.holder) === false) return;
  throw new ResonError(
    "run_leased",
    `Session ${session.id} is busy: its run ${lease.traceId} is held by ${describeHolder(lease.holder)} ${leaseSince(lease)}.`,
    {
      hint: "Wait for that run to end, or start a new session (without --continue).",
      details: { sessionId: session.id, traceId: lease.traceId, holder: lease.holder, epoch: lease.epoch },
    },
  );
}

export function definedLimits(limits: RunLimits): RunLimits {
  const out: RunLimits = {};
  if (limits.maxTokens !== undefined) out.maxTokens = limits.maxTokens;
  if (limits.maxCostUsd !== undefined) out.maxCostUsd = limits.maxCostUsd;
  if (limits.maxWallMs !== undefined) out.maxWallMs = limits.maxWallMs;
  return out;
}

export function titleOf(task: string, workspace: string): string {
  const line = task.trim().split("\n", 1)[0] ?? "";
  const title = line.length > 80 ? `${line.slice(0, 79)}…` : line;
  return title || basename(workspace);
}

/**
 * A run by id or unique prefix; a session id means the session's newest run. A session and its
 * first run are made in the same millisecond, so their ids share the 10-character time part: a
 * short prefix that names only a session and its own runs is read as the session.
 */
export async function findTrace(store: Store, id: string): Promise<TraceRecord> {
  const found = await store.resolveId(id).catch(async (error: unknown) => {
    const session = await sessionOwningAll(store, error);
    if (!session) throw error;
    return { kind: "session" as const, session };
  });
  if (found.kind === "trace") return found.trace;
  const traceId = found.session.lastTraceId;
  const trace = traceId ? await store.traces.get(traceId) : undefined;
  if (!trace) throw new ResonError("not_found", `Session ${found.session.id} has no run to resume.`);
  return trace;
}

export async function sessionOwningAll(store: Store, error: unknown): Promise<SessionRecord | undefined> {
  if (!(error instanceof ResonError) || error.code !== "ambiguous_id") return undefined;
  const candidates = (error.details?.candidates ?? []) as Array<{ kind: string; id: string }>;
  const sessions = candidates.filter((c) => c.kind === "session");
  if (sessions.length !== 1 || candidates.length > 10) return undefined;
  const session = await store.sessions.get(sessions[0]!.id);
  if (!session) return undefined;
  for (const candidate of candidates.filter((c) => c.kind === "trace")) {
    const trace = await store.traces.get(candidate.id);
    if (trace?.sessionId !== session.id) return undefined;
  }
  return session;
}

/**
 * The run a request names by id (a session id means its newest run), with its session and
 * workspace; without an id, the latest run of `workspace` (for an undo, just the workspace).
 */
export async function locateRun(
  db: Store,
  request: { id?: string; workspace?: string; undo?: boolean },
): Promise<{ run?: TraceRecord; session?: SessionRecord; workspace: string }> {
  if (request.id === undefined) {
    if (!request.workspace) throw new ResonError("usage_error", "Name a run or session.");
    if (request.undo) return { workspace: request.workspace };
    const session = await db.sessions.latest(projectKey(request.workspace));
    const run = session?.lastTraceId ? await db.traces.get(session.lastTraceId) : undefined;
    if (!session || !run) {
      throw new ResonError("not_found", `No run in ${request.workspace} yet.`, {
        hint: "`reson sessions` lists the runs; give one's id.",
      });
    }
    return { run, session, workspace: session.workspace };
  }
  const run = await findTrace(db, request.id);
  const session = await db.sessions.get(run.sessionId);
  if (!session) throw new ResonError("not_found", `The session of run ${run.id} is missing.`);
  return { run, session, workspace: session.workspace };
}

/** Refuses a step the run does not have (steps count from 1). */
export function checkStep(run: TraceRecord, step: number | undefined): void {
  if (step === undefined || (Number.isInteger(step) && step >= 1 && step <= Math.max(run.steps, 1))) return;
  throw new ResonError("usage_error", `Run ${run.id} has steps 1 to ${run.steps}, not ${step}.`, {
    hint: "`reson trace show <id>` lists its steps.",
  });
}
