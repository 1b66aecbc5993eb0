// Anthropic Messages as the fake server writes it: `event: <type>\ndata: <json>\n\n` from
// message_start through content blocks to message_delta and message_stop; error bodies in
// Anthropic's `{ type: "error", error: { type, message } }` shape.
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

const STOP_REASON: Record<FakeFinish, string | null> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_use: "tool_use",
  content_filter: "refusal",
  none: null,
};

const ERRORS: Record<number, { type: string; message: string }> = {
  400: { type: "invalid_request_error", message: "messages: field required" },
  401: { type: "authentication_error", message: "invalid x-api-key" },
  403: {
    type: "permission_error",
    message: "Your API key does not have permission to use the specified resource.",
  },
  404: { type: "not_found_error", message: "model: {model}" },
  429: {
    type: "rate_limit_error",
    message: "Number of request tokens has exceeded your per-minute rate limit",
  },
  500: { type: "api_error", message: "Internal server error" },
  503: { type: "api_error", message: "Service unavailable" },
  529: { type: "overloaded_error", message: "Overloaded" },
};

function sse(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

function toolUseId(index: number, id: string | undefined): string {
  return id ?? `toolu_fake_${index}`;
}

export const anthropicWire: ProtocolWire = {
  stream(reply: FakeResponse, ctx: WireContext): StreamPlan {
    const usage = usageOf(reply);
    const events = [
      sse("message_start", {
        type: "message_start",
        message: {
          id: freshId("msg_fake_"),
          type: "message",
          role: "assistant",
          model: ctx.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: usage.input,
            output_tokens: 1,
            cache_read_input_tokens: usage.cacheRead,
            cache_creation_input_tokens: 0,
          },
        },
      }),
      sse("ping", { type: "ping" }),
    ];
    let head = 0;
    let index = 0;
    const block = (start: unknown, deltas: unknown[]) => {
      const at = index++;
      events.push(
        sse("content_block_start", { type: "content_block_start", index: at, content_block: start }),
      );
      for (const delta of deltas) {
        events.push(sse("content_block_delta", { type: "content_block_delta", index: at, delta }));
        if (head === 0) head = events.length;
      }
      events.push(sse("content_block_stop", { type: "content_block_stop", index: at }));
    };
    if (reply.thinking) {
      block({ type: "thinking", thinking: "", signature: "" }, [
        ...textDeltas(reply.thinking).map((thinking) => ({ type: "thinking_delta", thinking })),
        { type: "signature_delta", signature: "fake-signature" },
      ]);
    }
    if (reply.text) {
      block(
        { type: "text", text: "" },
        textDeltas(reply.text).map((text) => ({ type: "text_delta", text })),
      );
    }
    (reply.toolCalls ?? []).forEach((call, i) => {
      block(
        { type: "tool_use", id: toolUseId(i, call.id), name: call.name, input: {} },
        argumentFragments(call.arguments).map((partial_json) => ({ type: "input_json_delta", partial_json })),
      );
    });
    if (head === 0) head = events.length;
    const body = events.length;
    events.push(
      sse("message_delta", {
        type: "message_delta",
        delta: { stop_reason: STOP_REASON[finishOf(reply)], stop_sequence: null },
        usage: { output_tokens: usage.output },
      }),
      sse("message_stop", { type: "message_stop" }),
    );
    return { events, head, body };
  },

  json(reply: FakeResponse, ctx: WireContext): unknown {
    const usage = usageOf(reply);
    const content: unknown[] = [];
    if (reply.thinking)
      content.push({ type: "thinking", thinking: reply.thinking, signature: "fake-signature" });
    if (reply.text) content.push({ type: "text", text: reply.text });
    (reply.toolCalls ?? []).forEach((call, i) => {
      const input = typeof call.arguments === "string" ? { _raw: call.arguments } : call.arguments;
      content.push({ type: "tool_use", id: toolUseId(i, call.id), name: call.name, input });
    });
    return {
      id: freshId("msg_fake_"),
      type: "message",
      role: "assistant",
      model: ctx.model,
      content,
      stop_reason: STOP_REASON[finishOf(reply)],
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        output_tokens: usage.output,
        cache_read_input_tokens: usage.cacheRead,
      },
    };
  },

  errorBody(status: number, ctx: WireContext, message?: string): unknown {
    const known = ERRORS[status] ?? { type: "api_error", message: `HTTP ${status}` };
    return {
      type: "error",
      error: { type: known.type, message: (message ?? known.message).replace("{model}", ctx.model) },
    };
  },

  quota(fault: FakeQuotaFault, _ctx: WireContext): QuotaReply {
    const refusal = (type: string, message: string) => ({ type: "error", error: { type, message } });
    switch (fault.quota) {
      case "minute":
        return {
          status: 429,
          body: refusal(
            "rate_limit_error",
            "This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.",
          ),
          headers: { "retry-after": String(fault.retryAfterS ?? 20) },
        };
      case "day":
        // Anthropic has no daily quota; the spend limit a workspace sets is the nearest thing.
        return {
          status: 400,
          body: refusal(
            "invalid_request_error",
            "You have reached your specified API usage limits. You will regain access on 2026-07-01 at 00:00 UTC.",
          ),
        };
      default:
        return {
          status: 400,
          body: refusal(
            "invalid_request_error",
            "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.",
          ),
        };
    }
  },

  overflowBody(): unknown {
    return {
      type: "error",
      error: { type: "invalid_request_error", message: "prompt is too long: 213462 tokens > 200000 maximum" },
    };
  },

  malformedEvent(): string {
    return 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"unterminated}}\n\n';
  },

  errorEvent(message?: string): string {
    return sse("error", {
      type: "error",
      error: { type: "overloaded_error", message: message ?? "Overloaded" },
    });
  },
};
