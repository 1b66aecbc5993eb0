// Wake-ups across processes on PostgreSQL: a NOTIFY on a channel, sent by the transaction
// that commits the change, and one dedicated LISTEN connection per store and channel that hands
// every payload to the store's listeners. The connection is made when the first listener
// arrives, made again (with a growing pause) whenever it drops, and ended with the last listener.
import type pg from "pg";
import type { NoticeTransport, Statement } from "../driver.js";

/** The channel every reson store of a database shares. */
export const NOTICE_CHANNEL = "reson_store";
/** Live text of runs in flight: a channel apart, so that only who streams it hears it. */
export const LIVE_TEXT_CHANNEL = "reson_live";

/** Pauses between attempts to get the listening connection back: doubling, at most 5 s. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

interface Subscriber {
  onPayload: (payload: string) => void;
  onGap: () => void;
}

export class PostgresNotices implements NoticeTransport {
  readonly #connect: () => pg.Client;
  readonly #channel: string;
  readonly #subscribers = new Set<Subscriber>();
  #client: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #retry: NodeJS.Timeout | undefined;
  #retryMs = FIRST_RETRY_MS;
  #closed = false;

  /** `connect` makes a new, unconnected client for the listening connection. */
  constructor(connect: () => pg.Client, channel: typeof NOTICE_CHANNEL | typeof LIVE_TEXT_CHANNEL) {
    this.#connect = connect;
    this.#channel = channel;
  }

  statement(payload: string): Statement {
    return { sql: `SELECT pg_notify('${this.#channel}', ?)`, params: [payload] };
  }

  async listen(onPayload: (payload: string) => void, onGap: () => void): Promise<() => Promise<void>> {
    const subscriber = { onPayload, onGap };
    this.#subscribers.add(subscriber);
    try {
      // The first listener waits until LISTEN runs, so nothing committed after this returns is missed.
      await this.#ensure();
    } catch (error) {
      this.#subscribers.delete(subscriber);
      throw error;
    }
    return async () => {
      this.#subscribers.delete(subscriber);
      if (this.#subscribers.size === 0) await this.#stop();
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#subscribers.clear();
    await this.#stop();
  }

  #ensure(): Promise<void> {
    if (this.#client) return Promise.resolve();
    this.#connecting ??= this.#open().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #open(): Promise<void> {
    const client = this.#connect();
    client.on("notification", (message) => {
      if (message.channel !== this.#channel || message.payload === undefined) return;
      for (const subscriber of [...this.#subscribers]) subscriber.onPayload(message.payload);
    });
    // An error or end of the connection (server restart, network cut): try again until it is back.
    const lost = () => {
      if (this.#client !== client) return;
      this.#client = undefined;
      client.end().catch(() => {});
      this.#scheduleReconnect();
    };
    client.on("error", lost);
    client.on("end", lost);
    try {
      await client.connect();
      await client.query(`LISTEN ${this.#channel}`);
    } catch (error) {
      client.end().catch(() => {});
      throw error;
    }
    if (this.#closed || this.#subscribers.size === 0) {
      await client.end().catch(() => {});
      return;
    }
    this.#client = client;
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#subscribers.size === 0 || this.#retry) return;
    const wait = this.#retryMs;
    this.#retryMs = Math.min(MAX_RETRY_MS, this.#retryMs * 2);
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#ensure().then(
        () => {
          this.#retryMs = FIRST_RETRY_MS;
          // Whatever was sent while the connection was down never reaches us: say so.
          for (const subscriber of [...this.#subscribers]) subscriber.onGap();
        },
        () => this.#scheduleReconnect(),
      );
    }, wait);
    this.#retry.unref();
  }

  async #stop(): Promise<void> {
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = undefined;
    await this.#connecting?.catch(() => {});
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }
}
