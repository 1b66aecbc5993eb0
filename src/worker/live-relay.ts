// Relays the live text of the runs this process executes (text and thinking deltas, where each
// step starts, the run's end) to the processes that stream it: `reson serve` in front of
// `reson worker` processes gives its SSE clients the text as it comes. One relay in flight
// for the whole process, so it never takes more than one connection from the step commits;
// what comes meanwhile is gathered per run and step into the next. Nothing waits for it, and a
// relay that fails is dropped: live text is transient, the committed events carry what lasts.
import type { ResonEvent } from "../core/events.js";
import type { LiveTextDelta, Store } from "../store/index.js";

export class LiveTextRelay {
  readonly #store: Store;
  readonly #queue: LiveTextDelta[] = [];
  #sending = false;

  constructor(store: Store) {
    this.#store = store;
  }

  /** Fed with every event of the runs this process executes. */
  observe(event: ResonEvent): void {
    const { runId: traceId, step } = event;
    switch (event.type) {
      case "step_start":
        this.#queue.push({ traceId, step, stepStart: true, text: "", thinking: "" });
        break;
      case "text_delta":
        this.#gather(traceId, step).text += event.delta;
        break;
      case "thinking_delta":
        this.#gather(traceId, step).thinking += event.delta;
        break;
      case "run_end":
        this.#gather(traceId, step).runEnd = true;
        break;
      default:
        return;
    }
    if (!this.#sending) void this.#drain();
  }

  /** The run's waiting delta of this step to add to, or a new one after it. */
  #gather(traceId: string, step: number): LiveTextDelta {
    const last = this.#queue.findLast((delta) => delta.traceId === traceId);
    if (last && last.step === step && !last.runEnd) return last;
    const next: LiveTextDelta = { traceId, step, text: "", thinking: "" };
    this.#queue.push(next);
    return next;
  }

  async #drain(): Promise<void> {
    this.#sending = true;
    try {
      for (let delta = this.#queue.shift(); delta; delta = this.#queue.shift())
        await this.#store.events.relayLive(delta).catch(() => {});
    } finally {
      this.#sending = false;
    }
  }
}
