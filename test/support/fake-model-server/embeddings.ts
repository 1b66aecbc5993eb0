// Embeddings as the fake server answers them: OpenAI's POST /v1/embeddings (which Ollama and
// vLLM also speak) and Google's POST /v1beta/models/{model}:batchEmbedContents, with
// deterministic vectors (fakeEmbedding), the vendors' limits and error bodies, and the same
// faults as the chat protocols.
//
// fakeEmbedding(text, n): the features of a text are its lower-cased words (runs of letters
// and digits) with weight 1 and the character trigrams of each space-padded word (" ca",
// "cat", "at ") with weight 0.5. Each feature is hashed (FNV-1a, 32 bit) to one of n
// dimensions (hash mod n) and a sign (bit 16 of the hash), the weights are summed, and the sum
// is L2-normalised. Equal texts get equal vectors; texts sharing words or word pieces point in
// similar directions ("the cat sat" is closer to "a cat sat down" than to "stock prices
// fell"); a text without words gets the unit vector e0.
import type { ServerResponse } from "node:http";
import type { FakeFault } from "../fake-model-server.js";
import { googleErrorBody, googleWire } from "./google.js";
import { openaiWire } from "./openai.js";
import { type ProtocolWire, sendFault, sendJson, type WireContext } from "./wire.js";

export const DEFAULT_EMBEDDING_DIMENSIONS = 64;

/** A scripted embeddings answer: the normal one, with another vector size or count to test checks. */
export interface FakeEmbeddingResponse {
  /** Vector length to answer with, whatever the request asked for. */
  dimensions?: number;
  /** Vectors to answer with (default one per input). */
  vectorCount?: number;
}

export type FakeEmbeddingReply = FakeEmbeddingResponse | FakeFault;

export type EmbeddingProtocol = "openai-embeddings" | "google-embeddings";

export interface EmbeddingRoute {
  protocol: EmbeddingProtocol;
  /** Google: the model named in the path. */
  model?: string;
}

const GOOGLE_PATH = /^\/v1beta\/models\/([^/:]+):batchEmbedContents$/;
const OPENAI_MAX_INPUTS = 2048;
const GOOGLE_MAX_REQUESTS = 100;

export function embeddingRoute(path: string): EmbeddingRoute | undefined {
  if (path === "/v1/embeddings") return { protocol: "openai-embeddings" };
  const google = GOOGLE_PATH.exec(path);
  return google ? { protocol: "google-embeddings", model: decodeURIComponent(google[1] ?? "") } : undefined;
}

export function fakeEmbedding(text: string, dimensions: number = DEFAULT_EMBEDDING_DIMENSIONS): number[] {
  const sums = new Array<number>(dimensions).fill(0);
  const add = (feature: string, weight: number) => {
    const hash = fnv1a(feature);
    sums[hash % dimensions] = (sums[hash % dimensions] ?? 0) + ((hash >>> 16) & 1 ? weight : -weight);
  };
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    add(`w:${word}`, 1);
    const padded = ` ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`, 0.5);
  }
  const norm = Math.sqrt(sums.reduce((total, value) => total + value * value, 0));
  if (norm === 0) return sums.map((_, i) => (i === 0 ? 1 : 0));
  return sums.map((value) => value / norm);
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, "utf8")) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** Answers one embeddings request: a scripted fault, or vectors for its inputs. */
export function sendEmbeddings(
  res: ServerResponse,
  route: EmbeddingRoute,
  body: unknown,
  reply: FakeEmbeddingReply | undefined,
  apiKey: string,
  defaultDimensions: number,
): void {
  const request = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const google = route.protocol === "google-embeddings";
  const wire = google ? googleEmbeddingsWire : openaiEmbeddingsWire;
  const model = google ? (route.model ?? "") : typeof request.model === "string" ? request.model : "";
  const ctx: WireContext = { model, streaming: false, includeUsage: false, apiKey };
  if (reply && "fault" in reply) {
    sendFault(res, wire, reply, ctx);
    return;
  }
  const parsed = google ? googleInputs(request, model) : openaiInputs(request);
  if (typeof parsed === "string") {
    sendJson(res, 400, wire.errorBody(400, ctx, parsed));
    return;
  }
  const dimensions = reply?.dimensions ?? parsed.dimensions ?? defaultDimensions;
  const count = reply?.vectorCount ?? parsed.texts.length;
  const vectors = Array.from({ length: count }, (_, i) => fakeEmbedding(parsed.texts[i] ?? "", dimensions));
  if (google) {
    sendJson(res, 200, { embeddings: vectors.map((values) => ({ values })) });
    return;
  }
  const tokens = parsed.texts.reduce((total, text) => total + (text.match(/\S+/g)?.length ?? 0), 0);
  sendJson(res, 200, {
    object: "list",
    data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

interface Inputs {
  texts: string[];
  dimensions: number | undefined;
}

/** The inputs of an OpenAI request, or the error message OpenAI would answer with. */
function openaiInputs(request: Record<string, unknown>): Inputs | string {
  if (typeof request.model !== "string" || request.model === "") return "you must provide a model parameter";
  const input = typeof request.input === "string" ? [request.input] : request.input;
  if (!Array.isArray(input) || !input.every((text) => typeof text === "string")) {
    return "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.";
  }
  if (input.length > OPENAI_MAX_INPUTS) {
    return `'$.input' is invalid: at most ${OPENAI_MAX_INPUTS} inputs per request, got ${input.length}.`;
  }
  const dimensions = typeof request.dimensions === "number" ? request.dimensions : undefined;
  return { texts: input as string[], dimensions };
}

/** The inputs of a Google batch, or the error message Google would answer with. */
function googleInputs(request: Record<string, unknown>, model: string): Inputs | string {
  const requests = request.requests;
  if (!Array.isArray(requests) || requests.length === 0)
    return "* BatchEmbedContentsRequest.requests: required";
  if (requests.length > GOOGLE_MAX_REQUESTS) {
    return `* BatchEmbedContentsRequest.requests: at most ${GOOGLE_MAX_REQUESTS} requests can be in one batch`;
  }
  const texts: string[] = [];
  let dimensions: number | undefined;
  for (const [i, item] of requests.entries()) {
    const entry = (typeof item === "object" && item !== null ? item : {}) as {
      model?: unknown;
      content?: { parts?: Array<{ text?: unknown }> };
      outputDimensionality?: unknown;
    };
    if (entry.model !== `models/${model}`) {
      return `* BatchEmbedContentsRequest.requests[${i}].model: the model of each request must match the batch model (models/${model})`;
    }
    const parts = entry.content?.parts;
    if (!Array.isArray(parts) || parts.length === 0) {
      return `* BatchEmbedContentsRequest.requests[${i}].content.parts: required`;
    }
    texts.push(parts.map((part) => (typeof part.text === "string" ? part.text : "")).join(""));
    if (typeof entry.outputDimensionality === "number") dimensions = entry.outputDimensionality;
  }
  return { texts, dimensions };
}

/** Used for faults only: a half-sent body needs some JSON to cut. */
function partialBody(): unknown {
  return { object: "list", data: [{ object: "embedding", index: 0, embedding: fakeEmbedding("partial") }] };
}

const openaiEmbeddingsWire: ProtocolWire = {
  ...openaiWire,
  json: partialBody,
  overflowBody: () => ({
    error: {
      message:
        "This model's maximum context length is 8192 tokens, however you requested 10240 tokens (10240 in your prompt; 0 for the completion). Please reduce your prompt; or completion length.",
      type: "invalid_request_error",
      param: null,
      code: null,
    },
  }),
};

const googleEmbeddingsWire: ProtocolWire = {
  stream: () => ({ events: [], head: 0, body: 0 }),
  json: partialBody,
  errorBody: googleErrorBody("batchEmbedContents"),
  overflowBody: () => ({
    error: {
      code: 400,
      message: "The input token count (3120) exceeds the maximum number of tokens allowed (2048).",
      status: "INVALID_ARGUMENT",
    },
  }),
  quota: googleWire.quota,
  malformedEvent: () => "",
  errorEvent: () => "",
};
