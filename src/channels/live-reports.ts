// How each channel stands in each running `reson serve` (connecting, waiting, taking, standby,
// stopped), written to the store by the serve and read back by `reson channel status`, which is
// another process: without it the one command an operator reaches for could not say that a
// channel stopped on a refused token or waits for its platform. A serve renews its report while
// it runs and deletes it when it stops; a report that is not renewed, or whose process on this
// host is gone, is not shown as live.
import { holderAlive, type LeaseHolder, leaseHolder, type Store } from "../store/index.js";
import type { ChannelLive } from "./types.js";

const LIVE_PREFIX = "live:";
/** A serve writes its report at least this often while it runs... */
export const LIVE_RENEW_MS = 10_000;
/** ...and one older than this is a serve that no longer runs (killed, or its host gone). */
const LIVE_FRESH_MS = 3 * LIVE_RENEW_MS;
/** A stale report is deleted by the next serve that starts, after this long. */
const LIVE_FORGET_MS = 60 * 60_000;

/** One serve's report of one channel, as stored and shown. */
export interface LiveReport extends ChannelLive {
  /** Which serve: its process and host. */
  serve: { pid: number; host: string };
  /** When it was written (epoch ms). */
  reportedAt: number;
}

interface StoredReport {
  holder: LeaseHolder;
  live: ChannelLive;
  at: number;
}

/** Writes one serve's channel states: on a change at once, else every LIVE_RENEW_MS. */
export class LiveReporter {
  readonly #store: Store;
  readonly #holder = leaseHolder("reson serve (channels)");
  readonly #written = new Map<string, { json: string; at: number }>();

  constructor(store: Store) {
    this.#store = store;
  }

  async report(live: Map<string, ChannelLive>): Promise<void> {
    const now = Date.now();
    for (const [channel, state] of live) {
      const json = JSON.stringify(state);
      const last = this.#written.get(channel);
      if (last && last.json === json && now - last.at < LIVE_RENEW_MS) continue;
      const stored: StoredReport = { holder: this.#holder, live: state, at: now };
      await this.#store.channels.setState(channel, this.#key, JSON.stringify(stored));
      this.#written.set(channel, { json, at: now });
    }
  }

  /** Reports older than an hour (serves that died without deleting theirs). */
  async forgetStale(channels: readonly string[]): Promise<void> {
    const now = Date.now();
    for (const channel of channels)
      for (const { key, value } of await this.#store.channels.listState(channel, LIVE_PREFIX)) {
        const stored = parseReport(value);
        if (!stored || now - stored.at > LIVE_FORGET_MS) await this.#store.channels.deleteState(channel, key);
      }
  }

  /** This serve stops: its reports go. */
  async withdraw(): Promise<void> {
    for (const channel of this.#written.keys()) await this.#store.channels.deleteState(channel, this.#key);
    this.#written.clear();
  }

  get #key(): string {
    return `${LIVE_PREFIX}${this.#holder.id}`;
  }
}

/** The live reports of a channel from serves that still run, newest first. */
export async function liveReports(store: Store, channel: string): Promise<LiveReport[]> {
  const now = Date.now();
  const reports: LiveReport[] = [];
  for (const { value } of await store.channels.listState(channel, LIVE_PREFIX)) {
    const stored = parseReport(value);
    if (!stored || now - stored.at > LIVE_FRESH_MS || holderAlive(stored.holder) === false) continue;
    reports.push({
      ...stored.live,
      serve: { pid: stored.holder.pid, host: stored.holder.host },
      reportedAt: stored.at,
    });
  }
  return reports.sort((a, b) => b.reportedAt - a.reportedAt);
}

function parseReport(value: string): StoredReport | undefined {
  try {
    const parsed = JSON.parse(value) as Partial<StoredReport>;
    if (
      typeof parsed.at !== "number" ||
      typeof parsed.live?.state !== "string" ||
      typeof parsed.holder?.pid !== "number" ||
      typeof parsed.holder.host !== "string"
    )
      return undefined;
    return parsed as StoredReport;
  } catch {
    return undefined;
  }
}
