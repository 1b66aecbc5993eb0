// Sees the HTTP exchange underneath pi-ai, which flattens failures into a message string and
// reads only part of the stream's framing. A pass-through hook on globalThis.fetch (both SDKs
// call it; pi-ai builds a client per request) finds the attempt in progress through
// AsyncLocalStorage and records the status and Retry-After, reports when headers and body
// bytes arrive (the idle watchdog), and watches the raw stream for the protocol's end marker,
// so a stream cut before the model finished is caught even when pi-ai reports success.
// Fetches made outside an attempt go straight through.
import { AsyncLocalStorage } from "node:async_hooks";
import { parseRetryAfter } from "./retry.js";

export interface ExchangeListener {
  onHeaders(): void;
  onData(): void;
}

/** One model call's HTTP exchange, as far as the hook could see it. */
export class Exchange {
  /** The hook has taken this exchange's request (only the first fetch of an attempt is watched). */
  seen = false;
  status: number | undefined;
  retryAfterMs: number | undefined;
  /** The body was streamed through the hook to its end. */
  bodyEnded = false;
  /** The end-of-stream marker was in the body. */
  finished = false;
  private tail = "";
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly finishMarker: RegExp | undefined,
    private readonly listener: ExchangeListener,
  ) {}

  /** True when the stream ended without the protocol's end marker. */
  get truncated(): boolean {
    return this.finishMarker !== undefined && this.bodyEnded && !this.finished;
  }

  capture(response: Response): Response {
    this.status = response.status;
    this.retryAfterMs = parseRetryAfter(response.headers);
    this.listener.onHeaders();
    if (!response.ok || response.body === null) return response;
    return new Response(this.observe(response.body), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }

  private observe(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          const { done, value } = await reader.read();
          if (done) {
            this.bodyEnded = true;
            controller.close();
            return;
          }
          this.listener.onData();
          if (this.finishMarker && !this.finished) this.scan(value);
          controller.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
  }

  private scan(chunk: Uint8Array): void {
    const text = this.tail + this.decoder.decode(chunk, { stream: true });
    if (this.finishMarker?.test(text)) {
      this.finished = true;
      return;
    }
    this.tail = text.slice(-64);
  }
}

const current = new AsyncLocalStorage<Exchange>();
const hooks = new WeakSet<typeof fetch>();

/** Runs `start` (which begins the model call) with `exchange` watching its HTTP request. */
export function withExchange<T>(exchange: Exchange, start: () => T): T {
  installFetchHook();
  return current.run(exchange, start);
}

/** Idempotent; re-installs on top when someone else has replaced globalThis.fetch since. */
function installFetchHook(): void {
  const inner = globalThis.fetch;
  if (hooks.has(inner)) return;
  const hooked: typeof fetch = async (input, init) => {
    const exchange = current.getStore();
    if (!exchange || exchange.seen) return inner(input, init);
    exchange.seen = true;
    return exchange.capture(await inner(input, init));
  };
  hooks.add(hooked);
  globalThis.fetch = hooked;
}
