// reson's own OpenAI Chat Completions client, the wire of openai-compatible and ollama: request
// bodies from cached per-message bytes (body.ts), sent over a keep-alive connection (reson's own
// HTTP/1.1 client for http:// servers, node:https for https://; transport.ts), the SSE stream
// parsed from raw bytes (sse.ts) into the assistant message (reply.ts). One attempt has the same
// guarantees as the pi-ai wire's, through the same classification: a child AbortController
// linked to the caller's signal and unlinked afterwards, the headers and idle watchdog, status
// and Retry-After, a stream that ends without a finish reason or [DONE] is a bad response, and
// so is an event that is not JSON.
import { abortError, linkedController } from "../../core/abort.js";
import { ResonError } from "../../core/errors.js";
import {
  type CallFacts,
  classifyFailure,
  malformedFailure,
  timeoutFailure,
  truncatedFailure,
} from "../classify.js";
import { loadPiMain } from "../pi.js";
import { parseRetryAfter } from "../retry.js";
import type { AssistantMessage, ChatStreamEvent, ModelInfo, ProviderTimeouts } from "../types.js";
import { Watchdog } from "../watchdog.js";
import type { AttemptOutcome, Wire } from "../wire.js";
import { BodyBuilder, type PreparedBody } from "./body.js";
import { http1Transport } from "./http1-transport.js";
import { nodeTransport } from "./node-transport.js";
import { ReplyBuilder, type StreamFailure, StreamFormatError } from "./reply.js";
import { SseParser } from "./sse.js";
import type { Exchange, Transport, TransportHandlers } from "./transport.js";

export interface NativeWireOptions {
  model: ModelInfo;
  /** Sent as max_tokens. */
  maxTokens: number;
  call: CallFacts;
  timeouts: ProviderTimeouts;
}

/** An idle kept-alive connection is closed after this long (or the server's Keep-Alive hint, if shorter). */
const IDLE_SOCKET_MS = 4_000;
/** The most of an error body that is read (the message is cut to 300 characters anyway). */
const ERROR_BODY_LIMIT = 64 * 1024;
/** Requests resent at once when a kept-alive connection turns out to be closed already. */
const STALE_SOCKET_RETRIES = 3;

export async function createNativeWire(options: NativeWireOptions): Promise<Wire<PreparedBody>> {
  const { model, maxTokens, call, timeouts } = options;
  const target = parseTarget(`${model.baseUrl}/chat/completions`, call);
  const endpoint = new Endpoint(target, call);
  const body = new BodyBuilder({ id: model.id, provider: model.provider, maxTokens });
  return {
    prepare: (request) => body.build(request),
    attempt: (prepared, signal, onEvent) =>
      new NativeAttempt(endpoint, model, call, timeouts, prepared, signal, onEvent).run(),
    release: (prepared) => prepared.release(),
    preconnect: () => endpoint.preconnect(),
  };
}

function parseTarget(url: string, call: CallFacts): URL {
  let target: URL | undefined;
  try {
    target = new URL(url);
  } catch {
    target = undefined;
  }
  if (target?.protocol !== "http:" && target?.protocol !== "https:") {
    throw new ResonError(
      "config_invalid",
      `The base URL of ${call.provider} is not an http(s) URL: ${call.baseUrl}`,
      { hint: "Give the server's OpenAI-compatible endpoint, like http://host:port/v1." },
    );
  }
  return target;
}

/**
 * Where requests go, and the connections kept open to it. A proxy set for Node (its
 * NODE_USE_ENV_PROXY) is honoured by node:http only: with one set, http:// goes through it.
 */
class Endpoint {
  private readonly transport: Transport;
  private readonly headers: Record<string, string>;

  constructor(target: URL, call: CallFacts) {
    const plain = target.protocol === "http:" && !process.env.NODE_USE_ENV_PROXY;
    this.transport = plain ? http1Transport(target, IDLE_SOCKET_MS) : nodeTransport(target, IDLE_SOCKET_MS);
    this.headers = {
      "content-type": "application/json",
      accept: "text/event-stream",
      authorization: `Bearer ${call.apiKey}`,
      "user-agent": "reson",
    };
  }

  /** Opens the connection of the next request now. */
  preconnect(): void {
    this.transport.preconnect();
  }

  send(body: readonly Buffer[], length: number, handlers: TransportHandlers): Exchange {
    return this.transport.send({ ...this.headers, "content-length": String(length) }, body, handlers);
  }
}

class NativeAttempt {
  private readonly link: ReturnType<typeof linkedController>;
  private readonly watchdog: Watchdog;
  private readonly reply: ReplyBuilder;
  private exchange: Exchange | undefined;
  private responded = false;
  private status: number | undefined;
  private retryAfterMs: number | undefined;
  private contentType = "";
  private staleRetries = 0;
  private settled = false;
  private resolve: (outcome: AttemptOutcome) => void = () => {};
  private reject: (error: unknown) => void = () => {};

  constructor(
    private readonly endpoint: Endpoint,
    private readonly model: ModelInfo,
    private readonly call: CallFacts,
    timeouts: ProviderTimeouts,
    private readonly body: PreparedBody,
    private readonly signal: AbortSignal | undefined,
    onEvent: ((event: ChatStreamEvent) => void) | undefined,
  ) {
    this.link = linkedController(signal);
    this.watchdog = new Watchdog(timeouts, () => this.link.controller.abort());
    this.reply = new ReplyBuilder(model, onEvent);
  }

  async run(): Promise<AttemptOutcome> {
    const signal = this.link.signal;
    try {
      const outcome = await new Promise<AttemptOutcome>((resolve, reject) => {
        this.resolve = resolve;
        this.reject = reject;
        if (signal.aborted) return this.onAbort();
        signal.addEventListener("abort", this.onAbort, { once: true });
        this.send();
      });
      // A cancel while a failure was being classified still ends the call as cancelled.
      if (!outcome.ok && this.signal?.aborted && outcome.error.code !== "aborted") {
        return { ok: false, error: abortError(this.signal), usage: outcome.usage };
      }
      return outcome;
    } finally {
      signal.removeEventListener("abort", this.onAbort);
      this.watchdog.stop();
      this.link.dispose();
    }
  }

  private send(): void {
    // Each exchange's handlers are its own: a resent request's are the ones that count.
    let exchange: Exchange | undefined;
    let body: ((chunk: Buffer) => void) | undefined;
    let bodyEnd: (() => void) | undefined;
    const current = () => exchange !== undefined && exchange === this.exchange && !this.settled;
    exchange = this.endpoint.send(this.body.parts, this.body.length, {
      response: (status, header) => {
        if (!current()) return;
        [body, bodyEnd] = this.onResponse(status, header);
      },
      data: (chunk) => {
        if (current()) body?.(chunk);
      },
      end: () => {
        if (current()) bodyEnd?.();
      },
      error: (error, responded) => {
        if (!current()) return;
        if (responded) {
          this.fail(classifyFailure(this.call, { message: connectionMessage(error), overflow: false }));
        } else {
          this.onRequestError(exchange!, error);
        }
      },
    });
    this.exchange = exchange;
  }

  private onRequestError(exchange: Exchange, error: Error): void {
    // A kept-alive (or preconnected) connection the server closed while it was idle: nothing
    // was processed.
    if (
      !this.responded &&
      exchange.earlier &&
      isStaleSocket(error) &&
      this.staleRetries < STALE_SOCKET_RETRIES
    ) {
      this.staleRetries++;
      this.send();
      return;
    }
    this.fail(classifyFailure(this.call, { message: connectionMessage(error), overflow: false }));
  }

  /** Takes the status and headers; returns what to do with the body's chunks and its end. */
  private onResponse(
    status: number,
    header: (name: string) => string | null,
  ): [(chunk: Buffer) => void, () => void] {
    this.responded = true;
    this.watchdog.onHeaders();
    this.status = status;
    this.retryAfterMs = parseRetryAfter({ get: header });

    if (status < 200 || status >= 300) {
      return readText(ERROR_BODY_LIMIT, this.onBodyChunk, (text) => {
        if (!this.settled) this.failWith({ message: `${status} ${text}`.trim(), status });
      });
    }
    const contentType = header("content-type") ?? "";
    this.contentType = contentType;
    if (/^application\/json/i.test(contentType)) {
      return readText(Number.POSITIVE_INFINITY, this.onBodyChunk, (text) => {
        if (!this.settled) this.guard(() => this.onJsonBody(text));
      });
    }
    const parser = new SseParser((event) => this.reply.event(event));
    return [
      (chunk) => {
        if (this.settled) return;
        this.watchdog.onData();
        this.guard(() => {
          parser.push(chunk);
          if (this.reply.failure) this.failWith(this.reply.failure);
        });
      },
      () => {
        if (this.settled) return;
        this.guard(() => {
          parser.end();
          this.complete();
        });
      },
    ];
  }

  private readonly onBodyChunk = (): void => {
    if (!this.settled) this.watchdog.onData();
  };

  private onJsonBody(text: string): void {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new StreamFormatError(`the response body is not valid JSON: ${text.slice(0, 80)}`);
    }
    this.reply.completion(body);
    this.complete();
  }

  /** The body ended: a message, or the error it carries. */
  private complete(): void {
    const reply = this.reply;
    if (reply.failure) {
      this.failWith(reply.failure);
    } else if (!reply.finished && !reply.done) {
      // No event at all from a body that is not an event stream: say what it was instead.
      const notSse = !/^text\/event-stream/i.test(this.contentType) && reply.message.content.length === 0;
      this.fail(
        notSse
          ? malformedFailure(
              this.call,
              `it answered with ${this.contentType || "no content type"}, not an event stream`,
            )
          : truncatedFailure(this.call),
      );
    } else {
      const message = reply.finish();
      if (message.stopReason === "error") {
        this.failWith({ message: message.errorMessage ?? "the model stopped with an error" });
      } else {
        this.settle({ ok: true, message });
      }
    }
  }

  /**
   * Runs stream handling: a StreamFormatError fails the attempt as a bad response; anything
   * else was thrown by the caller's onEvent and goes to the caller as it is.
   */
  private guard(action: () => void): void {
    try {
      action();
    } catch (error) {
      if (this.settled) return;
      if (error instanceof StreamFormatError) {
        this.fail(malformedFailure(this.call, error.message));
        return;
      }
      this.settled = true;
      this.exchange?.abort();
      this.reject(error);
    }
  }

  private readonly onAbort = (): void => {
    if (this.settled) return;
    const phase = this.watchdog.fired;
    if (this.signal?.aborted) this.fail(abortError(this.signal));
    else if (phase) this.fail(timeoutFailure(this.call, phase, this.watchdog.limitMs()));
    else this.fail(abortError());
  };

  /** An error reported by the server: classified once pi-ai has said whether it is an overflow. */
  private failWith(failure: StreamFailure): void {
    if (this.settled) return;
    this.settled = true;
    this.exchange?.abort();
    const usage = this.reply.message.usage;
    const facts = {
      message: failure.message,
      status: failure.status ?? this.status,
      retryAfterMs: this.retryAfterMs,
    };
    isOverflow(failure.message, this.model, usage).then(
      (overflow) =>
        this.resolve({ ok: false, error: classifyFailure(this.call, { ...facts, overflow }), usage }),
      () =>
        this.resolve({ ok: false, error: classifyFailure(this.call, { ...facts, overflow: false }), usage }),
    );
  }

  private fail(error: ResonError): void {
    if (this.settled) return;
    this.settled = true;
    this.exchange?.abort();
    this.resolve({ ok: false, error, usage: this.reply.message.usage });
  }

  private settle(outcome: AttemptOutcome): void {
    this.settled = true;
    this.resolve(outcome);
  }
}

/**
 * pi-ai knows the overflow wordings of some twenty servers; it is loaded for that only when a
 * call has failed, so a run that never fails never loads it.
 */
async function isOverflow(
  errorMessage: string,
  model: ModelInfo,
  usage: AssistantMessage["usage"],
): Promise<boolean> {
  const pi = await loadPiMain();
  const message: AssistantMessage = {
    role: "assistant",
    content: [],
    api: "openai-completions",
    provider: model.provider,
    model: model.id,
    usage,
    stopReason: "error",
    errorMessage,
    timestamp: Date.now(),
  };
  return pi.isContextOverflow(message, model.contextWindow);
}

function isStaleSocket(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ECONNRESET" || code === "EPIPE" || error.message === "socket hang up";
}

/** Worded so classification sees a connection failure (retried as provider_unavailable). */
function connectionMessage(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return `connection error: ${code && !error.message.includes(code) ? `${code} ` : ""}${error.message}`;
}

/** The body as text, at most `limit` bytes of it; `done` runs once the body has ended. */
function readText(
  limit: number,
  onChunk: () => void,
  done: (text: string) => void,
): [(chunk: Buffer) => void, () => void] {
  const chunks: Buffer[] = [];
  let size = 0;
  return [
    (chunk) => {
      onChunk();
      if (size >= limit) return;
      chunks.push(chunk);
      size += chunk.length;
    },
    () => done(Buffer.concat(chunks).toString("utf8", 0, Math.min(size, limit))),
  ];
}
