// OpenAI Chat Completions as the fake server writes it: `data: <chunk>\n\n` events ending in
// a finish_reason chunk, a usage chunk (when asked for) and `data: [DONE]`; error bodies in
// OpenAI's `{ error: { message, type, code } }` shape.
import type { FakeFinish, FakeQuotaFault, FakeResponse } from "../fake-model-server.js";
import {
  argumentFragments,
  finishOf,
  freshId,
  type ProtocolWire,
  type QuotaReply,
  type StreamPlan,
  textDeltas,
  usageOf,
  type WireContext,
} from "./wire.js";

const FINISH: Record<FakeFinish, string | null> = {
  stop: "stop",
  length: "length",
  tool_use: "tool_calls",
  content_filter: "content_filter",
  none: null,
};

const ERRORS: Record<number, { message: string; type: string; code: string | null }> = {
  400: { message: "Invalid parameter: messages.", type: "invalid_request_error", code: null },
  401: {
    message: "Incorrect API key provided: {key}.",
    type: "invalid_request_error",
    code: "invalid_api_key",
  },
  403: {
    message: "You are not allowed to sample from this model",
    type: "invalid_request_error",
    code: null,
  },
  404: {
    message: "The model `{model}` does not exist or you do not have access to it.",
    type: "invalid_request_error",
    code: "model_not_found",
  },
  429: { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" },
  500: {
    message: "The server had an error while processing your request. Sorry about that!",
    type: "server_error",
    code: null,
  },
  503: { message: "Service unavailable", type: "server_error", code: null },
  529: { message: "Overloaded", type: "server_error", code: null },
};

function toolCallId(index: number, id: string | undefined): string {
  return id ?? `call_fake_${index}`;
}

export const openaiWire: ProtocolWire = {
  stream(reply: FakeResponse, ctx: WireContext): StreamPlan {
    const id = freshId("chatcmpl-fake-");
    const created = Math.floor(Date.now() / 1000);
    const frame = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: ctx.model, choices, ...extra })}\n\n`;
    const delta = (d: Record<string, unknown>) => frame([{ index: 0, delta: d, finish_reason: null }]);

    const events = [delta({ role: "assistant", content: "" })];
    for (const piece of textDeltas(reply.thinking ?? "")) events.push(delta({ reasoning_content: piece }));
    for (const piece of textDeltas(reply.text ?? "")) events.push(delta({ content: piece }));
    (reply.toolCalls ?? []).forEach((call, index) => {
      events.push(
        delta({
          tool_calls: [
            {
              index,
              id: toolCallId(index, call.id),
              type: "function",
              function: { name: call.name, arguments: "" },
            },
          ],
        }),
      );
      for (const fragment of argumentFragments(call.arguments)) {
        events.push(delta({ tool_calls: [{ index, function: { arguments: fragment } }] }));
      }
    });
    const head = Math.min(2, events.length);
    const body = events.length;

    // "none": no finish_reason at all, only usage and [DONE] (as OpenRouter ends some streams).
    const finish = FINISH[finishOf(reply)];
    if (finish !== null) events.push(frame([{ index: 0, delta: {}, finish_reason: finish }]));
    if (ctx.includeUsage) events.push(frame([], { usage: usageBody(reply) }));
    events.push("data: [DONE]\n\n");
    return { events, head, body };
  },

  json(reply: FakeResponse, ctx: WireContext): unknown {
    const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
      id: toolCallId(index, call.id),
      type: "function",
      function: {
        name: call.name,
        arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
      },
    }));
    return {
      id: freshId("chatcmpl-fake-"),
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: ctx.model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: reply.text ?? null,
            ...(reply.thinking ? { reasoning_content: reply.thinking } : {}),
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: FINISH[finishOf(reply)],
        },
      ],
      usage: usageBody(reply),
    };
  },

  errorBody(status: number, ctx: WireContext, message?: string): unknown {
    const known = ERRORS[status] ?? { message: `HTTP ${status}`, type: "api_error", code: null };
    const text = (message ?? known.message).replace("{key}", ctx.apiKey).replace("{model}", ctx.model);
    return { error: { message: text, type: known.type, param: null, code: known.code } };
  },

  quota(fault: FakeQuotaFault, ctx: WireContext): QuotaReply {
    if (fault.quota === "billing" || fault.quota === "zero") {
      return {
        status: 429,
        body: {
          error: {
            message:
              "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
            type: "insufficient_quota",
            param: null,
            code: "insufficient_quota",
          },
        },
      };
    }
    const perDay = fault.quota === "day";
    const seconds = fault.retryAfterS ?? (perDay ? 432 : 20);
    const wait = seconds >= 60 ? `${Math.floor(seconds / 60)}m${seconds % 60}s` : `${seconds}s`;
    const window = perDay
      ? "requests per day (RPD): Limit 200, Used 200"
      : "requests per min (RPM): Limit 3, Used 3";
    return {
      status: 429,
      body: {
        error: {
          message: `Rate limit reached for ${ctx.model} in organization org-fake on ${window}, Requested 1. Please try again in ${wait}. Visit https://platform.openai.com/account/rate-limits to learn more.`,
          type: "requests",
          param: null,
          code: "rate_limit_exceeded",
        },
      },
      // OpenAI reports its limits in headers, not a Retry-After.
      headers: perDay
        ? { "x-ratelimit-limit-requests": "200", "x-ratelimit-remaining-requests": "0" }
        : { "x-ratelimit-limit-requests": "3", "x-ratelimit-remaining-requests": "0" },
    };
  },

  overflowBody(): unknown {
    return {
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 200512 tokens. Please reduce the length of the messages.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    };
  },

  malformedEvent(): string {
    return 'data: {"id":"chatcmpl-broken","choices":[{"index":0,"delta":{"content":"unterminated}]}\n\n';
  },

  errorEvent(message?: string): string {
    return `data: ${JSON.stringify({ error: { message: message ?? "Upstream overloaded mid-stream", type: "server_error" } })}\n\n`;
  },
};

function usageBody(reply: FakeResponse) {
  const usage = usageOf(reply);
  const prompt = usage.input + usage.cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    total_tokens: prompt + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead },
  };
}
