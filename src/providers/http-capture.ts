// Sees the HTTP exchange underneath pi-ai, which flattens failures into a message string and
// reads only part of the stream's framing. A pass-through hook on globalThis.fetch (both SDKs
// call it; pi-ai builds a client per request) recognises an attempt's request by a header
// reson adds through pi-ai's `headers` option and strips before sending. It records the
// status and Retry-After, reports when headers and body bytes arrive (the idle watchdog), and
// watches the raw stream for the protocol's end marker, so a stream cut before the model
// finished is caught even when pi-ai reports success. Other fetches go straight through.
// (A header rather than AsyncLocalStorage: on Node 20 the latter turns on promise hooks for
// the whole process, which cost more than everything else here together.)
import { parseRetryAfter } from "./retry.js";

export interface ExchangeListener {
  onHeaders(): void;
  onData(): void;
}

/** One model call's HTTP exchange, as far as the hook could see it. */
export class Exchange {
  id: string | undefined;
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

const ATTEMPT_HEADER = "x-reson-attempt";
const pending = new Map<string, Exchange>();
const hooks = new WeakSet<typeof fetch>();
let lastId = 0;

/**
 * Registers `exchange` to be watched; returns the header to send with its request. Call
 * `forgetExchange` when the attempt is over, whether or not a request was made.
 */
export function watchExchange(exchange: Exchange): Record<string, string> {
  installFetchHook();
  const id = String(++lastId);
  exchange.id = id;
  pending.set(id, exchange);
  return { [ATTEMPT_HEADER]: id };
}

export function forgetExchange(exchange: Exchange): void {
  if (exchange.id !== undefined) pending.delete(exchange.id);
}

/** Idempotent; re-installs on top when someone else has replaced globalThis.fetch since. */
function installFetchHook(): void {
  const inner = globalThis.fetch;
  if (hooks.has(inner)) return;
  const hooked: typeof fetch = (input, init) => {
    if (pending.size === 0 || !init?.headers) return inner(input, init);
    const headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    const id = headers.get(ATTEMPT_HEADER);
    if (id === null) return inner(input, init);
    headers.delete(ATTEMPT_HEADER);
    const exchange = pending.get(id);
    pending.delete(id);
    const request = inner(input, headers === init.headers ? init : { ...init, headers });
    return exchange ? request.then((response) => exchange.capture(response)) : request;
  };
  hooks.add(hooked);
  globalThis.fetch = hooked;
}
