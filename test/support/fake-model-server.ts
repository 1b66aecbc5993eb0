// A fake LLM server for tests: plain node:http on 127.0.0.1, speaking the real wire protocols
// (OpenAI Chat Completions, Anthropic Messages and Gemini's generateContent, streaming SSE and
// plain JSON), answering from a script and injecting the faults real providers produce.
//
// Usage:
//
//   const server = await startFakeModelServer({ replies: [{ text: "Hello" }] });
//   server.openaiBaseUrl     // "http://127.0.0.1:PORT/v1"  (give to openai / openai-compatible / ollama)
//   server.anthropicBaseUrl  // "http://127.0.0.1:PORT"     (give to anthropic; the SDK adds /v1/messages)
//   server.googleBaseUrl     // "http://127.0.0.1:PORT/v1beta" (give to google; the SDK adds /models/...)
//   server.enqueue({ fault: "http", status: 429, retryAfter: "1" }, { text: "ok" });
//   server.requests          // every request: protocol, method, path, headers, parsed body
//   server.remaining         // replies not consumed yet
//   await server.close();    // also destroys hung connections
//
// Script: each POST to /v1/chat/completions, /v1/messages or /v1beta/models/{model}:
// streamGenerateContent (?alt=sse) or :generateContent consumes the next reply, whatever the
// protocol; "fail N times then succeed" is N faults enqueued before a reply. When the
// script is exhausted the server answers HTTP 500 with "fake model server: script exhausted",
// so a test fails visibly instead of hanging. GET /v1/models and GET /api/tags (Ollama's
// probe) answer without consuming anything.
//
// A reply is a response or a fault:
//   { text?, thinking?, toolCalls?: [{ name, arguments, id? }], usage?, finish?, delayMs?, chunkDelayMs?, byteChunks? }
//     text is streamed as one delta per word, tool arguments (an object, or a raw string for
//     invalid JSON) in three fragments (Gemini: whole); several tool calls in one reply are one
//     step. finish "none" ends the stream properly but with no finish reason (OpenAI: usage
//     and [DONE] still come, as from OpenRouter).
//   { fault: "http", status, retryAfter?, message? }  an error status with the vendor's body
//   { fault: "quota", quota, retryAfterS? }  the vendor's refusal for a used-up quota:
//     "minute" (a per-minute rate limit saying when to retry: Gemini's RetryInfo, OpenAI's
//     "try again in", Anthropic's Retry-After), "day" (Gemini's per-day quota, OpenAI's RPD,
//     Anthropic's spend limit), "zero" (Gemini: no free-tier quota for the model) or
//     "billing" (no credit: OpenAI's insufficient_quota, Anthropic's credit balance)
//   { fault: "overflow" }      400 in the vendor's context-overflow wording
//   { fault: "hang" }          never send headers
//   { fault: "stall" }         headers and the first chunk, then silence
//   { fault: "reset", beforeHeaders? }  destroy the socket after the first chunk (or at once)
//   { fault: "malformed" }     the first chunk, then an SSE event whose JSON does not parse
//   { fault: "truncate" }      all content, then a clean end with no finish reason / no message_stop
//   { fault: "stream_error", message? }  the first chunk, then the vendor's in-stream error event
//
// Embeddings: POST /v1/embeddings (OpenAI, Ollama, vLLM) and POST
// /v1beta/models/{model}:batchEmbedContents (Google; give server.googleBaseUrl) answer with
// deterministic vectors (fakeEmbedding in fake-model-server/embeddings.ts: hashed words and
// character trigrams, L2-normalised; `embeddingDimensions` long, default 64, or what the
// request's dimensions / outputDimensionality asks for). They never consume the chat script:
// they have their own queue, `enqueueEmbeddings(...)`, of faults (the same as above; a
// non-streaming body is cut in half) or { dimensions?, vectorCount? } answers; an empty queue
// means a normal answer. The vendors' limits are enforced (2048 inputs, 100 requests).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { anthropicWire } from "./fake-model-server/anthropic.js";
import {
  DEFAULT_EMBEDDING_DIMENSIONS,
  embeddingRoute,
  type FakeEmbeddingReply,
  sendEmbeddings,
} from "./fake-model-server/embeddings.js";
import { googleRoute, googleWire } from "./fake-model-server/google.js";
import { openaiWire } from "./fake-model-server/openai.js";
import { type ProtocolWire, sendFault, sendJson, sendReply } from "./fake-model-server/wire.js";

export interface FakeToolCall {
  name: string;
  /** An object is sent as JSON; a string is sent as it is (use it for invalid JSON). */
  arguments: Record<string, unknown> | string;
  id?: string;
}

export interface FakeUsage {
  /** Uncached input tokens. */
  input: number;
  output: number;
  cacheRead?: number;
}

/** "none": the stream ends cleanly with no finish reason. */
export type FakeFinish = "stop" | "length" | "tool_use" | "content_filter" | "none";

export interface FakeResponse {
  text?: string;
  thinking?: string;
  toolCalls?: FakeToolCall[];
  /** Default { input: 12, output: 7 }. */
  usage?: FakeUsage;
  /** Default "tool_use" when there are tool calls, else "stop". */
  finish?: FakeFinish;
  /** Wait this long before answering at all (a slow model; requests in parallel overlap). */
  delayMs?: number;
  /** Pause between SSE events (use it to abort mid-stream). */
  chunkDelayMs?: number;
  /** Cut the SSE body into writes of these byte sizes (cycled), to test chunk-boundary parsing. */
  byteChunks?: number[];
}

export interface FakeQuotaFault {
  fault: "quota";
  quota: "minute" | "day" | "zero" | "billing";
  /** The wait the refusal asks for, in seconds (a default per vendor and quota). */
  retryAfterS?: number;
}

export type FakeFault =
  | { fault: "http"; status: number; retryAfter?: string; message?: string }
  | FakeQuotaFault
  | { fault: "overflow" }
  | { fault: "hang" }
  | { fault: "stall" }
  | { fault: "reset"; beforeHeaders?: boolean }
  | { fault: "malformed" }
  | { fault: "truncate" }
  | { fault: "stream_error"; message?: string };

export type FakeReply = FakeResponse | FakeFault;

export type { FakeEmbeddingReply, FakeEmbeddingResponse } from "./fake-model-server/embeddings.js";
export { fakeEmbedding } from "./fake-model-server/embeddings.js";

export type FakeProtocol =
  | "openai"
  | "anthropic"
  | "google"
  | "openai-embeddings"
  | "google-embeddings"
  | "other";

export interface RecordedRequest {
  protocol: FakeProtocol;
  method: string;
  path: string;
  /** Lower-case names, as node parses them (authorization, x-api-key, …). */
  headers: Record<string, string>;
  /** The parsed JSON body, the raw text when it is not JSON, undefined when empty. */
  body: unknown;
  /** When the request arrived (Date.now()). */
  receivedAt: number;
  /** When its response was written to the end; undefined while it is still going (or never ends). */
  completedAt?: number;
}

export interface FakeModelServer {
  readonly url: string;
  readonly openaiBaseUrl: string;
  readonly anthropicBaseUrl: string;
  /** "http://127.0.0.1:PORT/v1beta" (give to the google provider, for chat or embeddings). */
  readonly googleBaseUrl: string;
  readonly requests: RecordedRequest[];
  /** Replies not consumed yet. */
  readonly remaining: number;
  /** TCP connections accepted so far. */
  readonly connections: number;
  enqueue(...replies: FakeReply[]): void;
  /** Answers for the next embeddings requests (either protocol), before the normal ones. */
  enqueueEmbeddings(...replies: FakeEmbeddingReply[]): void;
  /** Sets (or clears) the `respond` option of a running server. */
  setResponder(respond: FakeModelServerOptions["respond"]): void;
  close(): Promise<void>;
}

export interface FakeModelServerOptions {
  replies?: FakeReply[];
  /**
   * Decides the reply from the request itself (a stateless server): consulted before the
   * script; returning undefined falls back to the script. Useful when a client may repeat a
   * request (a run resumed after a crash).
   */
  respond?: (request: RecordedRequest) => FakeReply | undefined;
  /** Vector length of embeddings when the request asks for none; default 64. */
  embeddingDimensions?: number;
}

const WIRES: Record<string, { protocol: FakeProtocol; wire: ProtocolWire }> = {
  "/v1/chat/completions": { protocol: "openai", wire: openaiWire },
  "/v1/messages": { protocol: "anthropic", wire: anthropicWire },
};

/**
 * The text of the last user message of an OpenAI Chat Completions request as the model saw it
 * (text parts joined by newlines when the content is a list of parts; "" when there is none).
 */
export function lastUserText(request: RecordedRequest): string {
  const messages = (request.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const content = messages.filter((m) => m.role === "user").at(-1)?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .flatMap((part: { type?: string; text?: string }) =>
      part.type === "text" && part.text ? [part.text] : [],
    )
    .join("\n");
}

export async function startFakeModelServer(options: FakeModelServerOptions = {}): Promise<FakeModelServer> {
  const script: FakeReply[] = [...(options.replies ?? [])];
  let responder = options.respond;
  const embeddingScript: FakeEmbeddingReply[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;

  const server = createServer((req, res) => {
    readBody(req).then(
      (raw) => handle(req, res, raw),
      () => res.destroy(),
    );
  });
  server.on("connection", (socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  function handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const google = googleRoute(path);
    const route = WIRES[path] ?? (google ? { protocol: "google" as const, wire: googleWire } : undefined);
    const embeddings = embeddingRoute(path);
    const body = parseBody(raw);
    const recorded: RecordedRequest = {
      protocol: route?.protocol ?? embeddings?.protocol ?? "other",
      method: req.method ?? "GET",
      path,
      headers: flattenHeaders(req),
      body,
      receivedAt: Date.now(),
    };
    requests.push(recorded);
    res.on("finish", () => {
      recorded.completedAt = Date.now();
    });
    if (req.method === "GET" && (path === "/api/tags" || path === "/v1/models")) {
      sendJson(res, 200, path === "/api/tags" ? { models: [] } : { object: "list", data: [] });
      return;
    }
    if (embeddings && req.method === "POST") {
      const dimensions = options.embeddingDimensions ?? DEFAULT_EMBEDDING_DIMENSIONS;
      sendEmbeddings(res, embeddings, body, embeddingScript.shift(), sentApiKey(req), dimensions);
      return;
    }
    if (!route || req.method !== "POST") {
      sendJson(res, 404, { error: { message: `no route ${req.method} ${path}` } });
      return;
    }
    const request = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
    const reply = responder?.(requests.at(-1)!) ?? script.shift();
    if (reply === undefined) {
      sendJson(res, 500, { error: { message: "fake model server: script exhausted", type: "server_error" } });
      return;
    }
    const model = google?.model ?? (typeof request.model === "string" ? request.model : "fake-model");
    // Gemini streams by method (and ?alt=sse), the others by a body field.
    const streaming = google ? google.streaming : request.stream === true;
    const includeUsage = (request.stream_options as { include_usage?: unknown } | undefined)?.include_usage;
    const context = {
      model,
      streaming,
      includeUsage: includeUsage === true || route.protocol !== "openai",
      apiKey: sentApiKey(req),
    };
    if ("fault" in reply) sendFault(res, route.wire, reply, context);
    else if (reply.delayMs)
      setTimeout(() => {
        if (!res.destroyed) sendReply(res, route.wire, reply, context);
      }, reply.delayMs);
    else sendReply(res, route.wire, reply, context);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    googleBaseUrl: `${url}/v1beta`,
    requests,
    get remaining() {
      return script.length;
    },
    get connections() {
      return connections;
    },
    enqueue: (...replies) => {
      script.push(...replies);
    },
    enqueueEmbeddings: (...replies) => {
      embeddingScript.push(...replies);
    },
    setResponder: (respond) => {
      responder = respond;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseBody(raw: string): unknown {
  if (raw === "") return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function sentApiKey(req: IncomingMessage): string {
  const header = req.headers["x-api-key"] ?? req.headers["x-goog-api-key"];
  if (typeof header === "string") return header;
  return (req.headers.authorization ?? "").replace(/^Bearer\s+/i, "");
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}
