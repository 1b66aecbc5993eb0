// Gemini (the Generative Language API) as the fake server writes it: POST
// /v1beta/models/{model}:streamGenerateContent?alt=sse answers `data: <GenerateContentResponse>`
// events separated by CRLF pairs, the last one carrying finishReason and usageMetadata (so a
// "truncate" fault loses that chunk's piece of text too); :generateContent answers one
// GenerateContentResponse. Function calls arrive whole, not in fragments. Errors are Google's `{ error: { code, message, status, details? } }`; an error in
// the middle of a stream is that object written raw, as the SDK expects it.
import type { FakeFinish, FakeQuotaFault, FakeResponse } from "../fake-model-server.js";
import {
  finishOf,
  freshId,
  type ProtocolWire,
  type QuotaReply,
  type StreamPlan,
  textDeltas,
  usageOf,
  type WireContext,
} from "./wire.js";

const PATH = /^\/v1beta\/models\/([^/:]+):(streamGenerateContent|generateContent)$/;

export interface GoogleRoute {
  model: string;
  streaming: boolean;
}

export function googleRoute(path: string): GoogleRoute | undefined {
  const match = PATH.exec(path);
  if (!match) return undefined;
  return { model: decodeURIComponent(match[1] ?? ""), streaming: match[2] === "streamGenerateContent" };
}

const FINISH_REASON: Record<Exclude<FakeFinish, "none">, string> = {
  stop: "STOP",
  length: "MAX_TOKENS",
  tool_use: "STOP", // Gemini has no tool-use finish reason: a function call part ends with STOP
  content_filter: "SAFETY",
};

const ERRORS: Record<number, { status: string; message: string }> = {
  400: { status: "INVALID_ARGUMENT", message: "Request contains an invalid argument." },
  401: { status: "UNAUTHENTICATED", message: "Request had invalid authentication credentials." },
  403: {
    status: "PERMISSION_DENIED",
    message: "Method doesn't allow unregistered callers (callers without established identity).",
  },
  404: {
    status: "NOT_FOUND",
    message: "models/{model} is not found for API version v1beta, or is not supported for {method}.",
  },
  429: { status: "RESOURCE_EXHAUSTED", message: "Resource has been exhausted (e.g. check quota)." },
  500: { status: "INTERNAL", message: "An internal error has occurred." },
  503: { status: "UNAVAILABLE", message: "The model is overloaded. Please try again later." },
};

/** Google's error body for `status`, as the API answers for `method` (generateContent, batchEmbedContents). */
export function googleErrorBody(method: string): ProtocolWire["errorBody"] {
  return (status, ctx, message) => {
    const known = ERRORS[status] ?? { status: "UNKNOWN", message: `HTTP ${status}` };
    const text = (message ?? known.message).replace("{model}", ctx.model).replace("{method}", method);
    return { error: { code: status, message: text, status: known.status } };
  };
}

const QUOTA_PREAMBLE =
  "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. To monitor your current usage, head to: https://ai.dev/usage?tab=rate-limit.";

function sse(data: unknown): string {
  return `data: ${JSON.stringify(data)}\r\n\r\n`;
}

function usageMetadata(reply: FakeResponse) {
  const usage = usageOf(reply);
  const prompt = usage.input + usage.cacheRead;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: usage.output,
    totalTokenCount: prompt + usage.output,
    ...(usage.cacheRead > 0 ? { cachedContentTokenCount: usage.cacheRead } : {}),
  };
}

function functionCallParts(reply: FakeResponse): unknown[] {
  return (reply.toolCalls ?? []).map((call) => ({
    functionCall: {
      ...(call.id ? { id: call.id } : {}),
      name: call.name,
      // Gemini sends arguments as an object; a raw string (invalid JSON elsewhere) stays a string value.
      args: typeof call.arguments === "string" ? { _raw: call.arguments } : call.arguments,
    },
  }));
}

export const googleWire: ProtocolWire = {
  stream(reply: FakeResponse, ctx: WireContext): StreamPlan {
    const responseId = freshId("fake-gemini-");
    const response = (parts: unknown[] | undefined, extra: Record<string, unknown> = {}) => ({
      ...(parts ? { candidates: [{ content: { parts, role: "model" }, index: 0 }] } : {}),
      modelVersion: ctx.model,
      responseId,
      ...extra,
    });
    const chunks: Array<{ parts: unknown[] }> = [];
    for (const piece of textDeltas(reply.thinking ?? ""))
      chunks.push({ parts: [{ text: piece, thought: true }] });
    for (const piece of textDeltas(reply.text ?? "")) chunks.push({ parts: [{ text: piece }] });
    const calls = functionCallParts(reply);
    if (calls.length > 0) chunks.push({ parts: calls });
    if (chunks.length === 0) chunks.push({ parts: [{ text: "" }] });
    const finish = finishOf(reply);
    const events = chunks.map((chunk, i) => {
      if (i < chunks.length - 1) return sse(response(chunk.parts));
      // The last chunk carries the finish reason and the usage, as Gemini's does; with
      // finish "none" it has neither (Gemini always sends one, so that is a cut stream).
      if (finish === "none") return sse(response(chunk.parts));
      const body = response(chunk.parts, { usageMetadata: usageMetadata(reply) }) as {
        candidates: Array<Record<string, unknown>>;
      };
      body.candidates[0]!.finishReason = FINISH_REASON[finish];
      return sse(body);
    });
    // What "truncate" sends: every chunk but the last, the one that finishes.
    return { events, head: Math.min(1, events.length), body: events.length - 1 };
  },

  json(reply: FakeResponse, ctx: WireContext): unknown {
    const parts: unknown[] = [];
    if (reply.thinking) parts.push({ text: reply.thinking, thought: true });
    if (reply.text) parts.push({ text: reply.text });
    parts.push(...functionCallParts(reply));
    const finish = finishOf(reply);
    return {
      candidates: [
        {
          content: { parts, role: "model" },
          ...(finish === "none" ? {} : { finishReason: FINISH_REASON[finish] }),
          index: 0,
        },
      ],
      usageMetadata: usageMetadata(reply),
      modelVersion: ctx.model,
      responseId: freshId("fake-gemini-"),
    };
  },

  errorBody: googleErrorBody("generateContent"),

  overflowBody(): unknown {
    return {
      error: {
        code: 400,
        message: "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).",
        status: "INVALID_ARGUMENT",
      },
    };
  },

  quota(fault: FakeQuotaFault, ctx: WireContext): QuotaReply {
    if (fault.quota === "billing") {
      return {
        status: 429,
        body: { error: { code: 429, message: QUOTA_PREAMBLE, status: "RESOURCE_EXHAUSTED" } },
      };
    }
    const perDay = fault.quota === "day";
    const limit = fault.quota === "zero" ? "0" : perDay ? "250" : "10";
    const metric =
      fault.quota === "zero"
        ? "generativelanguage.googleapis.com/generate_content_free_tier_input_token_count"
        : "generativelanguage.googleapis.com/generate_content_free_tier_requests";
    const quotaId =
      fault.quota === "zero"
        ? "GenerateContentInputTokensPerModelPerMinute-FreeTier"
        : perDay
          ? "GenerateRequestsPerDayPerProjectPerModel-FreeTier"
          : "GenerateRequestsPerMinutePerProjectPerModel-FreeTier";
    // Google says when to retry even for a daily quota (the wait is meaningless then).
    const seconds = fault.retryAfterS ?? (perDay ? 46 : 17);
    return {
      status: 429,
      body: {
        error: {
          code: 429,
          message: `${QUOTA_PREAMBLE} \n* Quota exceeded for metric: ${metric}, limit: ${limit}, model: ${ctx.model}\nPlease retry in ${seconds}.5s.`,
          status: "RESOURCE_EXHAUSTED",
          details: [
            {
              "@type": "type.googleapis.com/google.rpc.QuotaFailure",
              violations: [
                {
                  quotaMetric: metric,
                  quotaId,
                  quotaDimensions: { location: "global", model: ctx.model },
                  quotaValue: limit,
                },
              ],
            },
            {
              "@type": "type.googleapis.com/google.rpc.Help",
              links: [
                {
                  description: "Learn more about Gemini API quotas",
                  url: "https://ai.google.dev/gemini-api/docs/rate-limits",
                },
              ],
            },
            { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${seconds}s` },
          ],
        },
      },
    };
  },

  malformedEvent(): string {
    return 'data: {"candidates":[{"content":{"parts":[{"text":"unterminated}]}\r\n\r\n';
  },

  errorEvent(message?: string): string {
    return JSON.stringify({
      error: {
        code: 503,
        message: message ?? "The model is overloaded. Please try again later.",
        status: "UNAVAILABLE",
      },
    });
  },
};
