// Data of a run: its result and the options that shape the loop.
import type { SerializedError } from "../core/errors.js";
import type { RunStatus } from "../core/events.js";
import type { Usage } from "../core/usage.js";

export interface RunResult {
  runId: string;
  status: RunStatus;
  /** The model's final answer; on failure, the last text it produced. */
  finalText: string;
  steps: number;
  usage: Usage;
  durationMs: number;
  error?: SerializedError;
}

export interface LoopLimits {
  /** Model calls allowed in one run. */
  maxIterations: number;
  /** Consecutive failed steps that stop the run. */
  circuitBreakerThreshold: number;
}
