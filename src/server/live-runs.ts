// What only this process sees of the runs it executes: the text and thinking of the step in
// flight, which is never stored. A client that joins mid-step gets the step's text so far,
// then every delta; committed events come from the store (event-follower.ts).
import type { ResonEvent } from "../core/events.js";

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
    if (event.type === "run_end") {
      this.#runs.delete(event.runId);
      return;
    }
    const run = this.#run(event.runId);
    if (event.type === "step_start") {
      run.step = event.step;
      run.text = "";
      run.thinking = "";
      return;
    }
    if (event.type !== "text_delta" && event.type !== "thinking_delta") return;
    if (event.step !== run.step) {
      run.step = event.step;
      run.text = "";
      run.thinking = "";
    }
    if (event.type === "text_delta") run.text += event.delta;
    else run.thinking += event.delta;
    const delta: LiveDelta = { type: event.type, runId: event.runId, step: event.step, delta: event.delta };
    for (const listener of run.listeners) listener(delta);
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

  #run(runId: string): LiveRun {
    let run = this.#runs.get(runId);
    if (!run) {
      run = { step: 0, text: "", thinking: "", listeners: new Set() };
      this.#runs.set(runId, run);
    }
    return run;
  }
}
