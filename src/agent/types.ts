// Data of a run: its result and the options that shape the loop.
import type { RunSummary } from "../core/events.js";

export interface RunResult extends RunSummary {
  runId: string;
  sessionId: string;
}

export interface LoopLimits {
  /** Model calls allowed in one run. */
  maxIterations: number;
  /** Consecutive failed steps that stop the run. */
  circuitBreakerThreshold: number;
}
