// A run's events as an async iterable: what Agent.stream gives, for hosts that would rather
// iterate than subscribe. Events are queued as the run emits them and handed out in order;
// `result` settles when the run ends, and the iteration ends after its last event.
import type { ResonEvent } from "../core/events.js";
import type { RunResult } from "./types.js";

export type RunStream = AsyncIterable<ResonEvent> & { result: Promise<RunResult> };

/** Starts `run` with a listener of its events and gives them back as a stream. */
export function streamRun(run: (onEvent: (event: ResonEvent) => void) => Promise<RunResult>): RunStream {
  const queue: ResonEvent[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const result = run((event) => {
    queue.push(event);
    wake?.();
  }).finally(() => {
    ended = true;
    wake?.();
  });
  async function* iterate(): AsyncGenerator<ResonEvent> {
    for (;;) {
      const next = queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  }
  return { [Symbol.asyncIterator]: iterate, result };
}
