// One subscription to the store's event announcements for the whole process, fanned out to the
// followers of each run (an SSE client per follower), so a thousand clients cost one listener.
import type { Store, Unsubscribe } from "../store/index.js";

export class Announcements {
  readonly #listeners = new Map<string, Set<() => void>>();
  /** Told of every run's events (what waits on a person may have changed). */
  readonly #anyRun = new Set<() => void>();
  #unsubscribe: Unsubscribe | undefined;

  async start(store: Store): Promise<void> {
    this.#unsubscribe = await store.events.subscribe((runId) => this.#announce(runId), {
      // Announcements may have been missed: every follower reads again.
      onGap: () => {
        for (const runId of this.#listeners.keys()) this.#announce(runId);
        for (const listener of this.#anyRun) listener();
      },
    });
  }

  /** Calls `listener` when the run's events may have grown; returns the unsubscribe. */
  listen(runId: string, listener: () => void): () => void {
    let set = this.#listeners.get(runId);
    if (!set) {
      set = new Set();
      this.#listeners.set(runId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(runId);
    };
  }

  /** Calls `listener` when any run's events may have grown; returns the unsubscribe. */
  listenAll(listener: () => void): () => void {
    this.#anyRun.add(listener);
    return () => this.#anyRun.delete(listener);
  }

  async stop(): Promise<void> {
    await this.#unsubscribe?.().catch(() => {});
  }

  #announce(runId: string): void {
    for (const listener of this.#listeners.get(runId) ?? []) listener();
    for (const listener of this.#anyRun) listener();
  }
}
