// The text and thinking of each run's step in flight, which is never stored: from the runs this
// process executes (their events), and from those other processes execute (relayed by the
// store, PostgreSQL). A client that joins mid-step gets the step's text so far, then every
// delta; committed events come from the store (event-follower.ts).
import type { ResonEvent } from "../core/events.js";
import type { LiveTextDelta } from "../store/index.js";

export interface LiveDelta {
  type: "text_delta" | "thinking_delta";
  runId: string;
  step: number;
  delta: string;
}

type DeltaListener = (delta: LiveDelta) => void;

interface LiveRun {
  step: number;
  text: string;
  thinking: string;
  listeners: Set<DeltaListener>;
}

export class LiveRuns {
  readonly #runs = new Map<string, LiveRun>();

  /** Fed with every event of the runs this process executes. */
  observe(event: ResonEvent): void {
    const { runId: traceId, step } = event;
    if (event.type === "step_start") this.apply({ traceId, step, stepStart: true, text: "", thinking: "" });
    else if (event.type === "text_delta") this.apply({ traceId, step, text: event.delta, thinking: "" });
    else if (event.type === "thinking_delta") this.apply({ traceId, step, text: "", thinking: event.delta });
    else if (event.type === "run_end") this.apply({ traceId, step, text: "", thinking: "", runEnd: true });
  }

  /** What a run's step in flight added, from this process or relayed from another. */
  apply(delta: LiveTextDelta): void {
    const { traceId: runId, step } = delta;
    const run = this.#run(runId);
    if (delta.stepStart || step !== run.step) {
      run.step = step;
      run.text = "";
      run.thinking = "";
    }
    if (delta.thinking) {
      run.thinking += delta.thinking;
      this.#tell(run, { type: "thinking_delta", runId, step, delta: delta.thinking });
    }
    if (delta.text) {
      run.text += delta.text;
      this.#tell(run, { type: "text_delta", runId, step, delta: delta.text });
    }
    if (delta.runEnd) {
      run.text = "";
      run.thinking = "";
      if (run.listeners.size === 0) this.#runs.delete(runId);
    }
  }

  /**
   * Follows a run's deltas: first the step in flight so far (as one delta of each kind), then
   * each new one. Returns the unsubscribe.
   */
  follow(runId: string, listener: DeltaListener): () => void {
    const run = this.#run(runId);
    if (run.thinking) listener({ type: "thinking_delta", runId, step: run.step, delta: run.thinking });
    if (run.text) listener({ type: "text_delta", runId, step: run.step, delta: run.text });
    run.listeners.add(listener);
    return () => {
      run.listeners.delete(listener);
      if (run.listeners.size === 0 && !run.text && !run.thinking) this.#runs.delete(runId);
    };
  }

  #tell(run: LiveRun, delta: LiveDelta): void {
    for (const listener of run.listeners) listener(delta);
  }

  #run(runId: string): LiveRun {
    let run = this.#runs.get(runId);
    if (!run) {
      run = { step: 0, text: "", thinking: "", listeners: new Set() };
      this.#runs.set(runId, run);
    }
    return run;
  }
}
