// Data of a run: its result and the options that shape the loop.
import type { ResonEvent, RunSummary } from "../core/events.js";

export interface RunResult extends RunSummary {
  runId: string;
  sessionId: string;
  /**
   * Set by resume when the run had already completed and been learned from: nothing ran and
   * no event was emitted; the rest is the run's stored outcome.
   */
  alreadyEnded?: true;
  /**
   * Set when the run's host shut down under it (its signal's reason is "host_stopping"): the
   * run did not end. Nothing more was written (no end, no learning, no run_end, not the result
   * of the call in flight), so it stands as a crash leaves it, for the next holder to resume;
   * status is "aborted" and error says why.
   */
  suspended?: true;
}

export interface LoopLimits {
  /** Model calls allowed in one run. */
  maxIterations: number;
  /** Consecutive failed steps that stop the run. */
  circuitBreakerThreshold: number;
}

/** An event as a host gives it to a run in flight: the run, its step and the time are added. */
export type HostEvent = ResonEvent extends infer E
  ? E extends ResonEvent
    ? Omit<E, "runId" | "step" | "ts">
    : never
  : never;
