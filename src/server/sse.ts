// Server-sent events: one writer per client. Events that are committed carry their per-run
// sequence number as `id:` (a client rejoins with Last-Event-ID or ?after=N and misses
// nothing); live-only frames (text deltas) carry none. A comment heartbeat keeps proxies from
// closing a quiet stream; a client that leaves stops the writer, and one too slow to keep up
// is dropped rather than buffered without bound: it reconnects and replays from the store.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ResonError } from "../core/errors.js";

export interface SseOptions {
  /** Comment heartbeat period (default 15 s). */
  heartbeatMs?: number;
  /** Reconnect delay suggested to the client with `retry:` (default 3 s). */
  retryMs?: number;
  /** A client with more than this waiting in its buffer is dropped (default 4 MiB). */
  maxBufferedBytes?: number;
}

export const DEFAULT_SSE_HEARTBEAT_MS = 15_000;
export const DEFAULT_SSE_RETRY_MS = 3_000;
export const DEFAULT_SSE_MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

export interface SseFrame {
  /** The event type, e.g. tool_call; letters, digits and _ . : - only. */
  event: string;
  /** Serialised as one line of JSON. */
  data: unknown;
  /** The committed sequence number; absent for live-only frames. */
  id?: number;
}

const EVENT_NAME = /^[A-Za-z0-9_.:-]+$/;

/** `id: 7\nevent: tool_call\ndata: {...}\n\n`; JSON never holds a raw CR or LF, so data is one line. */
export function formatSseFrame(frame: SseFrame): string {
  if (!EVENT_NAME.test(frame.event))
    throw new Error(`SSE event name ${JSON.stringify(frame.event)} is not allowed`);
  if (frame.id !== undefined && !(Number.isSafeInteger(frame.id) && frame.id >= 0)) {
    throw new Error(`SSE id ${frame.id} is not a non-negative integer`);
  }
  const data = JSON.stringify(frame.data) ?? "null";
  const id = frame.id === undefined ? "" : `id: ${frame.id}\n`;
  return `${id}event: ${frame.event}\ndata: ${data}\n\n`;
}

function resumeValue(raw: string, where: string): number {
  if (/^\d{1,16}$/.test(raw)) {
    const value = Number(raw);
    if (Number.isSafeInteger(value)) return value;
  }
  throw new ResonError("invalid_request", `${where} must be a non-negative integer (an event id).`, {
    hint: "Send the id of the last event you received, or leave it out to start from the beginning.",
    details: {
      problems: [{ path: where === "after" ? "/after" : "", message: "must be a non-negative integer" }],
    },
  });
}

/**
 * Where a client resumes: the events after this sequence number. Last-Event-ID (what an
 * EventSource sends on reconnect) wins over ?after=N; neither means from the start.
 */
export function parseResumePoint(
  lastEventId: string | string[] | undefined,
  after: string | undefined,
): number | undefined {
  const header = Array.isArray(lastEventId) ? lastEventId[0] : lastEventId;
  if (header !== undefined && header.trim() !== "") return resumeValue(header.trim(), "Last-Event-ID");
  if (after !== undefined && after !== "") return resumeValue(after, "after");
  return undefined;
}

/** One client's event stream. `signal` aborts when the client goes away or the stream is closed. */
export class SseStream {
  readonly #res: ServerResponse;
  readonly #maxBufferedBytes: number;
  readonly #controller = new AbortController();
  readonly #heartbeat: NodeJS.Timeout;

  constructor(req: IncomingMessage, res: ServerResponse, options: SseOptions = {}) {
    this.#res = res;
    this.#maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_SSE_MAX_BUFFERED_BYTES;
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    });
    req.socket.setNoDelay(true);
    res.write(`retry: ${options.retryMs ?? DEFAULT_SSE_RETRY_MS}\n\n`);
    this.#heartbeat = setInterval(
      () => this.comment("ping"),
      options.heartbeatMs ?? DEFAULT_SSE_HEARTBEAT_MS,
    );
    this.#heartbeat.unref();
    res.once("close", () => this.#finish());
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get closed(): boolean {
    return this.#controller.signal.aborted;
  }

  /**
   * Writes one event. Returns false when the stream is closed, or the client was just dropped
   * for being too slow. A producer that can wait should `await drained()` between events.
   */
  send(frame: SseFrame): boolean {
    return this.#write(formatSseFrame(frame));
  }

  /** A comment line (`: text`), which clients ignore; the heartbeat is one. */
  comment(text: string): boolean {
    return this.#write(`: ${text.replace(/[\r\n]+/g, " ")}\n\n`);
  }

  /** Resolves when the client has taken what was written (or the stream closed). */
  drained(): Promise<void> {
    if (this.closed || !this.#res.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.#res.off("drain", done);
        this.#controller.signal.removeEventListener("abort", done);
        resolve();
      };
      this.#res.once("drain", done);
      this.#controller.signal.addEventListener("abort", done, { once: true });
    });
  }

  /** Ends the stream (the server is closing, or the run's last event was sent). */
  close(): void {
    if (this.closed) return;
    this.#finish();
    this.#res.end();
  }

  #write(text: string): boolean {
    if (this.closed) return false;
    this.#res.write(text);
    if (this.#res.writableLength > this.#maxBufferedBytes) {
      // Dropped: the client reconnects with Last-Event-ID and reads what it missed from the store.
      this.#finish();
      this.#res.destroy();
      return false;
    }
    return true;
  }

  #finish(): void {
    clearInterval(this.#heartbeat);
    if (!this.closed) this.#controller.abort();
  }
}
