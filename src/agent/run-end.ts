// How a run ends: completed, failed, aborted, or suspended when the host shuts down; and the
// errors the loop ends a run with.

import { abortError, stoppedByHost } from "../core/abort.js";
import { ResonError, serializeError, toResonError } from "../core/errors.js";
import type { RunStatus } from "../core/events.js";
import { isBudgetError } from "./budget.js";
import type { CircuitBreaker } from "./circuit-breaker.js";
import type { RunState } from "./run-state.js";
import type { RunResult } from "./types.js";

export async function finish(state: RunState, status: RunStatus, error?: ResonError): Promise<RunResult> {
  const result: RunResult = {
    runId: state.deps.runId,
    sessionId: state.deps.sessionId,
    status,
    finalText: state.lastText,
    steps: state.step,
    usage: state.usage,
    durationMs: Date.now() - state.startedAt,
  };
  if (error) result.error = serializeError(error);
  await state.deps.snapshots?.end(state.step);
  if (state.trust.untrusted) result.untrusted = [...state.trust.sources];
  // Another process holds the run now: this one writes nothing more, not even its end.
  let lost = leaseLost(state, error);
  if (!lost) {
    try {
      await state.deps.recorder.runEnded(status, state.snapshot(), result.error);
    } catch (recordError) {
      const failure = toResonError(recordError);
      if (failure.code === "lease_lost") lost = failure;
      // The run's outcome stands; what could not be saved is said, and resume will redo the end.
      else state.emit({ type: "warning", message: `Could not save the end of the run: ${failure.message}` });
    }
  }
  if (!lost && state.deps.afterRun) {
    // The host stops: the end is committed, and learning and run_end are left to the next holder.
    if (stoppedByHost(state.deps.signal)) return suspend(state);
    try {
      await state.deps.afterRun(result);
    } catch (error) {
      if (stoppedByHost(state.deps.signal)) return suspend(state);
      throw error;
    }
  }
  lost ??= leaseLost(state);
  if (lost) {
    result.status = "failed";
    result.error = serializeError(lost);
  }
  state.emit({ type: "run_end", ...result });
  return result;
}

/** The lease_lost error the run stopped with (thrown by a fenced write, or its signal's reason). */
function leaseLost(state: RunState, error?: ResonError): ResonError | undefined {
  if (error?.code === "lease_lost") return error;
  const reason: unknown = state.deps.signal.reason;
  if (state.deps.signal.aborted && reason instanceof ResonError && reason.code === "lease_lost")
    return reason;
  return undefined;
}

/**
 * The run's signal fired: a budget's deadline fails the run, and so does a lost lease (another
 * process holds the run); the host's shutdown leaves it unended; anything else aborts it.
 */
export async function finishStopped(state: RunState): Promise<RunResult> {
  const reason: unknown = state.deps.signal.reason;
  if (stoppedByHost(state.deps.signal)) return suspend(state);
  if (isBudgetError(reason)) return finish(state, "failed", reason);
  const lost = leaseLost(state);
  if (lost) return finish(state, "failed", lost);
  return finish(state, "aborted", abortedError(state.deps.signal));
}

/**
 * The host is shutting down (reson worker or serve past its grace): the run stops where it is
 * without ending. Nothing more is written or emitted (no end, no learning, no run_end), so it
 * stands exactly as a crash leaves it, and the next holder resumes it from its last commit.
 */
function suspend(state: RunState): RunResult {
  return {
    runId: state.deps.runId,
    sessionId: state.deps.sessionId,
    status: "aborted",
    finalText: state.lastText,
    steps: state.step,
    usage: state.usage,
    durationMs: Date.now() - state.startedAt,
    error: serializeError(abortError(state.deps.signal)),
    suspended: true,
  };
}

function abortedError(signal: AbortSignal): ResonError {
  const reason = signal.reason;
  if (reason instanceof ResonError) return reason;
  return new ResonError("aborted", "The run was cancelled.");
}

export function maxIterationsError(max: number): ResonError {
  return new ResonError(
    "max_iterations",
    `The run reached its limit of ${max} model calls without a final answer.`,
    {
      hint: "Raise it with --max-iterations (or maxIterations in config), or split the task.",
    },
  );
}

export function circuitOpenError(breaker: CircuitBreaker): ResonError {
  const reasons = breaker.reasons.map((r) => `  - ${r}`).join("\n");
  return new ResonError(
    "circuit_open",
    `Stopped after ${breaker.consecutiveFailures} consecutive steps in which every tool call failed:\n${reasons}`,
    { hint: "Look at the errors above; the task or the workspace may need a change before retrying." },
  );
}
