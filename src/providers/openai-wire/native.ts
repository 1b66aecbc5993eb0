// reson's own OpenAI Chat Completions client, the wire of openai-compatible and ollama: request
// bodies from cached per-message bytes (body.ts), written with node:http over a keep-alive
// connection (one agent per provider), the SSE stream parsed from raw bytes (sse.ts) into the
// assistant message (reply.ts). One attempt has the same guarantees as the pi-ai wire's, through
// the same classification: a child AbortController linked to the caller's signal and unlinked
// afterwards, the headers and idle watchdog, status and Retry-After, a stream that ends without
// a finish reason or [DONE] is a bad response, and so is an event that is not JSON.
import type http from "node:http";
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
import { type PreconnectAgent, preconnectAgent } from "./preconnect-agent.js";
import { ReplyBuilder, type StreamFailure, StreamFormatError } from "./reply.js";
import { SseParser } from "./sse.js";

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

/**
 * Loads node:http or node:https only now (a few milliseconds `reson --version` need not pay),
 * as CommonJS modules: `import("node:http")` builds an ES module facade that reads every
 * export, and node:http's WebSocket export loads undici with tls, http2 and zlib (~20 ms).
 */
export async function createNativeWire(options: NativeWireOptions): Promise<Wire<PreparedBody>> {
  const { model, maxTokens, call, timeouts } = options;
  const target = parseTarget(`${model.baseUrl}/chat/completions`, call);
  const transport: Transport =
    target.protocol === "https:"
      ? process.getBuiltinModule("node:https")
      : process.getBuiltinModule("node:http");
  const endpoint = new Endpoint(target, transport, call);
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

/** What node:http and node:https share, as far as the endpoint uses them. */
interface Transport {
  request: typeof http.request;
  Agent: typeof http.Agent;
}

/** Where requests go, and the connections kept open to it. */
class Endpoint {
  private readonly send: typeof http.request;
  private readonly agent: PreconnectAgent;
  private readonly options: http.RequestOptions;
  private readonly headers: Record<string, string>;

  constructor(target: URL, transport: Transport, call: CallFacts) {
    const secure = target.protocol === "https:";
    this.send = transport.request;
    this.agent = preconnectAgent(transport.Agent, { keepAlive: true, timeout: IDLE_SOCKET_MS }, secure);
    this.headers = {
      "content-type": "application/json",
      accept: "text/event-stream",
      authorization: `Bearer ${call.apiKey}`,
      "user-agent": "reson",
    };
    this.options = {
      protocol: target.protocol,
      hostname: target.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: target.port || (secure ? 443 : 80),
      path: `${target.pathname}${target.search}`,
      method: "POST",
      agent: this.agent,
      // The watchdog owns the deadlines; 0 stops the idle-socket timeout applying mid-request.
      timeout: 0,
      ...(target.username
        ? { auth: `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}` }
        : {}),
    };
  }

  /** Opens the connection of the next request now (see preconnect-agent.ts). */
  preconnect(): void {
    this.agent.preconnect(this.options);
  }

  /** Whether the request was sent on a connection opened before it, not for it. */
  earlierConnection(request: http.ClientRequest): boolean {
    return request.reusedSocket || this.agent.preconnected(request.socket);
  }

  request(length: number): http.ClientRequest {
    return this.send({ ...this.options, headers: { ...this.headers, "content-length": String(length) } });
  }
}

class NativeAttempt {
  private readonly link: ReturnType<typeof linkedController>;
  private readonly watchdog: Watchdog;
  private readonly reply: ReplyBuilder;
  private request: http.ClientRequest | undefined;
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
    const request = this.endpoint.request(this.body.length);
    this.request = request;
    request.on("response", (response) => this.onResponse(request, response));
    request.on("error", (error) => this.onRequestError(request, error));
    const parts = this.body.parts;
    const last = parts.length - 1;
    for (let i = 0; i < last; i++) request.write(parts[i]);
    request.end(parts[last]);
  }

  private onRequestError(request: http.ClientRequest, error: Error): void {
    if (this.settled || request !== this.request) return;
    // A kept-alive (or preconnected) connection the server closed while it was idle: nothing
    // was processed.
    if (
      !this.responded &&
      this.endpoint.earlierConnection(request) &&
      isStaleSocket(error) &&
      this.staleRetries < STALE_SOCKET_RETRIES
    ) {
      this.staleRetries++;
      this.send();
      return;
    }
    this.fail(classifyFailure(this.call, { message: connectionMessage(error), overflow: false }));
  }

  private onResponse(request: http.ClientRequest, response: http.IncomingMessage): void {
    if (this.settled || request !== this.request) {
      response.resume();
      return;
    }
    this.responded = true;
    this.watchdog.onHeaders();
    const status = response.statusCode ?? 0;
    this.status = status;
    this.retryAfterMs = parseRetryAfter({ get: (name) => headerValue(response.headers[name]) });
    response.on("error", (error) => {
      if (!this.settled)
        this.fail(classifyFailure(this.call, { message: connectionMessage(error), overflow: false }));
    });
    response.on("close", () => {
      if (!this.settled && !response.complete) {
        this.fail(classifyFailure(this.call, { message: "connection error: terminated", overflow: false }));
      }
    });

    if (status < 200 || status >= 300) {
      readText(response, ERROR_BODY_LIMIT, this.onBodyChunk, (text) => {
        if (!this.settled) this.failWith({ message: `${status} ${text}`.trim(), status });
      });
      return;
    }
    const contentType = headerValue(response.headers["content-type"]) ?? "";
    this.contentType = contentType;
    if (/^application\/json/i.test(contentType)) {
      readText(response, Number.POSITIVE_INFINITY, this.onBodyChunk, (text) => {
        if (!this.settled) this.guard(() => this.onJsonBody(text));
      });
      return;
    }
    const parser = new SseParser((event) => this.reply.event(event));
    response.on("data", (chunk: Buffer) => {
      if (this.settled) return;
      this.watchdog.onData();
      this.guard(() => {
        parser.push(chunk);
        if (this.reply.failure) this.failWith(this.reply.failure);
      });
    });
    response.on("end", () => {
      if (this.settled) return;
      this.guard(() => {
        parser.end();
        this.complete();
      });
    });
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
      this.request?.destroy();
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
    this.request?.destroy();
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
    this.request?.destroy();
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

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(", ") : value;
}

/** The body as text, at most `limit` bytes of it; `done` runs once the body has ended. */
function readText(
  response: http.IncomingMessage,
  limit: number,
  onChunk: () => void,
  done: (text: string) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  response.on("data", (chunk: Buffer) => {
    onChunk();
    if (size >= limit) return;
    chunks.push(chunk);
    size += chunk.length;
  });
  response.on("end", () => done(Buffer.concat(chunks).toString("utf8", 0, Math.min(size, limit))));
}
