// Follows one run's committed events for a client: everything after the client's last seq
// from the store, in order and exactly once, then each new batch as the store announces it
// (PostgreSQL: from any worker; SQLite: from this process) or a short poll finds it (another
// process on SQLite, a lost notification). It stops when the run is over for good: its end is
// sent and nothing will resume it.
import type { RunEventRecord, Store } from "../store/index.js";

/** How often a follower reads the store when nothing announced new events. */
const POLL_MS = 1000;
const PAGE = 500;

export interface FollowOptions {
  store: Store;
  runId: string;
  /** The last seq the client has (0: from the start). */
  after: number;
  /** Sends one event; resolves once written (slow clients apply backpressure here). */
  send: (event: RunEventRecord) => Promise<void>;
  /** Whether the run may still get events (queued, running, or put back for a retry). */
  mayContinue: () => Promise<boolean>;
  /** Wakes the follower: the store announced events of this run. */
  onAnnounce: (listener: () => void) => () => void;
  signal: AbortSignal;
}

/** Resolves when the run is over and every event was sent, or on abort (client gone). */
export async function followRunEvents(options: FollowOptions): Promise<void> {
  const { store, runId, signal } = options;
  let last = options.after;
  let wake: (() => void) | undefined;
  let announced = false;
  const stop = options.onAnnounce(() => {
    announced = true;
    wake?.();
  });
  try {
    for (;;) {
      if (signal.aborted) return;
      announced = false;
      let page: RunEventRecord[];
      do {
        page = await store.events.list(runId, { after: last, limit: PAGE });
        for (const event of page) {
          if (signal.aborted) return;
          await options.send(event);
          last = event.seq;
        }
      } while (page.length === PAGE);
      if (!(await options.mayContinue())) {
        // A last read: events committed between the list and the status check.
        const rest = await store.events.list(runId, { after: last });
        for (const event of rest) await options.send(event);
        return;
      }
      if (announced) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        wake = done;
        signal.addEventListener("abort", done, { once: true });
      });
      wake = undefined;
    }
  } finally {
    stop();
  }
}
