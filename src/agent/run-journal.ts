// The run's journal: every event that changes a run's state, numbered 1, 2, 3… per run and
// committed to the store under the run's lease, in order and without gaps. It is what
// `reson serve` streams and what a client that was away reads again; text and thinking deltas
// (and loop phases) stay live only. Writes go one batch at a time: a reader that sees seq N has
// every seq before it, and a batch that failed stays pending and is written with the next one.
import type { ResonEvent, ResonEventType } from "../core/events.js";
import type { RunEventInput, WriteOp } from "../store/index.js";

/** Events that are only live: the step in flight's text, and the loop's phases. */
const LIVE_ONLY: ReadonlySet<ResonEventType> = new Set(["text_delta", "thinking_delta", "phase"]);

export function isJournaled(type: ResonEventType): boolean {
  return !LIVE_ONLY.has(type);
}

export class RunJournal {
  readonly #write: (ops: WriteOp[]) => Promise<void>;
  readonly #traceId: string;
  #nextSeq: number;
  #pending: RunEventInput[] = [];
  #writing: Promise<void> = Promise.resolve();
  #scheduled = false;
  #failure: unknown;

  /** `write` commits a batch fenced by the run's lease; `lastSeq` is what the store holds. */
  constructor(write: (ops: WriteOp[]) => Promise<void>, traceId: string, lastSeq: number) {
    this.#write = write;
    this.#traceId = traceId;
    this.#nextSeq = lastSeq + 1;
  }

  /** Numbers the event (if it is journaled) and queues it for the next write. */
  record(event: ResonEvent): void {
    if (!isJournaled(event.type)) return;
    this.#pending.push({
      seq: this.#nextSeq++,
      type: event.type,
      step: event.step,
      ts: event.ts,
      data: event,
    });
    if (this.#scheduled) return;
    this.#scheduled = true;
    // Events emitted together (a step's end and the next start) go in one batch.
    setImmediate(() => {
      this.#scheduled = false;
      void this.#flushQueued();
    });
  }

  /** Resolves once every event recorded so far is committed; rejects with the last failure. */
  async flush(): Promise<void> {
    await this.#flushQueued();
    if (this.#pending.length > 0) throw this.#failure ?? new Error("run events were not written");
  }

  #flushQueued(): Promise<void> {
    this.#writing = this.#writing.then(() => this.#writeBatch());
    return this.#writing;
  }

  async #writeBatch(): Promise<void> {
    if (this.#pending.length === 0) return;
    const batch = this.#pending.slice();
    try {
      await this.#write([{ op: "appendEvents", traceId: this.#traceId, events: batch }]);
      this.#pending = this.#pending.slice(batch.length);
      this.#failure = undefined;
    } catch (error) {
      // Kept, in order, for the next write; a lost lease ends the run, which writes no more.
      this.#failure = error;
    }
  }
}
