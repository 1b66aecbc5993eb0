// The native wire's reading side: the SSE parser over raw bytes, however they are cut, and
// the assistant message built from Chat Completions chunks.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseArguments, ReplyBuilder, StreamFormatError } from "../../src/providers/openai-wire/reply.js";
import { type SseEvent, SseParser } from "../../src/providers/openai-wire/sse.js";
import type { ChatStreamEvent } from "../../src/providers/types.js";

function parseAll(chunks: (string | Buffer)[]): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = new SseParser((event) => events.push(event));
  for (const chunk of chunks) parser.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  parser.end();
  return events;
}

/** `bytes` cut at the given offsets. */
function cut(bytes: Buffer, offsets: number[]): Buffer[] {
  const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(bytes.subarray(start, point));
    start = point;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

describe("SSE parser", () => {
  it("reads events ended by \\n\\n, \\r\\n\\r\\n and \\r\\r", () => {
    expect(parseAll(["data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d\n\n"]).map((e) => e.data)).toEqual([
      "a",
      "b",
      "c",
      "d",
    ]);
  });

  it("joins data lines, keeps the event name, skips comments and other fields", () => {
    const events = parseAll([
      ": keep-alive\n\nevent: error\nid: 7\nretry: 10\ndata: one\ndata:two\ndata\n\n",
    ]);
    expect(events).toEqual([{ event: "error", data: "one\ntwo\n" }]);
  });

  it("delivers a last event that has no blank line after it", () => {
    expect(parseAll(["data: a\n\ndata: [DONE]"]).map((e) => e.data)).toEqual(["a", "[DONE]"]);
  });

  it("gives the same events however the bytes are cut, multi-byte characters and CRLF pairs included", () => {
    const text = 'data: {"x":"ünï ✓ 😀"}\r\n\r\n: c\r\ndata: two\ndata: lines\n\nevent: e\r\ndata: 3\r\r';
    const bytes = Buffer.from(text);
    const whole = parseAll([bytes]);
    expect(whole.map((e) => e.data)).toEqual(['{"x":"ünï ✓ 😀"}', "two\nlines", "3"]);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (offsets) => {
        expect(parseAll(cut(bytes, offsets))).toEqual(whole);
      }),
      { numRuns: 300 },
    );
    expect(parseAll([...bytes].map((byte) => Buffer.from([byte])))).toEqual(whole);
  });
});

const MODEL = {
  id: "m",
  provider: "openai-compatible" as const,
  cost: { input: 2, output: 8, cacheRead: 1, cacheWrite: 0 },
};

function replyOf(chunks: unknown[], emit?: (event: ChatStreamEvent) => void): ReplyBuilder {
  const reply = new ReplyBuilder(MODEL, emit);
  for (const chunk of chunks) {
    reply.event({ event: "", data: typeof chunk === "string" ? chunk : JSON.stringify(chunk) });
  }
  return reply;
}

const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  id: "r1",
  model: "m",
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});

describe("reply builder", () => {
  it("builds text, reasoning and tool calls from fragments, and passes text and reasoning on", () => {
    const events: ChatStreamEvent[] = [];
    const reply = replyOf(
      [
        delta({ role: "assistant", content: "" }),
        delta({ reasoning: "think " }),
        delta({ reasoning: "more", reasoning_content: "" }),
        delta({ content: "Hi " }),
        delta({
          tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "read", arguments: "" } }],
        }),
        delta({ tool_calls: [{ index: 1, id: "b", function: { name: "grep", arguments: '{"q":' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '{"path":"x"}' } }] }),
        delta({ tool_calls: [{ index: 1, function: { arguments: '"y"}' } }] }),
        delta({ content: "there" }, "tool_calls"),
        {
          id: "r1",
          choices: [],
          usage: { prompt_tokens: 100, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 40 } },
        },
        "[DONE]",
      ],
      (event) => events.push(event),
    );
    expect(reply.finished && reply.done).toBe(true);
    const message = reply.finish();
    expect(message.content).toEqual([
      { type: "thinking", thinking: "think more", thinkingSignature: "reasoning" },
      { type: "text", text: "Hi there" },
      { type: "toolCall", id: "a", name: "read", arguments: { path: "x" } },
      { type: "toolCall", id: "b", name: "grep", arguments: { q: "y" } },
    ]);
    expect(events).toEqual([
      { type: "thinking_delta", delta: "think " },
      { type: "thinking_delta", delta: "more" },
      { type: "text_delta", delta: "Hi " },
      { type: "text_delta", delta: "there" },
    ]);
    expect(message).toMatchObject({ stopReason: "toolUse", responseId: "r1", api: "openai-completions" });
    expect(message.usage).toMatchObject({ input: 60, cacheRead: 40, output: 10, totalTokens: 110 });
    expect(message.usage.cost.total).toBeCloseTo((60 * 2 + 10 * 8 + 40 * 1) / 1e6, 12);
  });

  it("maps finish reasons; an unusable one becomes an error stop", () => {
    const finish = (reason: string) => replyOf([delta({ content: "x" }, reason)]).finish();
    expect(finish("stop").stopReason).toBe("stop");
    expect(finish("length").stopReason).toBe("length");
    expect(finish("content_filter")).toMatchObject({
      stopReason: "error",
      errorMessage: "Provider finish_reason: content_filter",
    });
  });

  it("records an in-stream error with its numeric code, and stops reading", () => {
    const reply = replyOf([
      delta({ content: "x" }),
      { error: { code: 429, message: "slow down" } },
      delta({ content: "y" }),
    ]);
    expect(reply.failure).toEqual({ message: '{"code":429,"message":"slow down"}', status: 429 });
    expect(replyOf(["{}"]).failure).toBeUndefined();
    expect(replyOf([]).message.content).toEqual([]);
  });

  it("takes an `event: error` as an error, JSON or not", () => {
    const reply = new ReplyBuilder(MODEL, undefined);
    reply.event({ event: "error", data: "upstream overloaded" });
    expect(reply.failure).toEqual({ message: "upstream overloaded" });
    const json = new ReplyBuilder(MODEL, undefined);
    json.event({ event: "error", data: '{"error":{"message":"bad gateway","code":502}}' });
    expect(json.failure).toEqual({ message: '{"message":"bad gateway","code":502}', status: 502 });
  });

  it("refuses an event that is not JSON, and ignores an empty one", () => {
    expect(() => replyOf(['{"choices":[{"delta":{"content":"x}]}'])).toThrow(StreamFormatError);
    expect(() => replyOf(["  "])).not.toThrow();
  });

  it("takes a whole chat.completion answered instead of a stream", () => {
    const reply = new ReplyBuilder(MODEL, undefined);
    reply.completion({
      id: "c",
      choices: [
        {
          message: {
            role: "assistant",
            content: "ok",
            reasoning_content: "why",
            tool_calls: [{ id: "t", type: "function", function: { name: "read", arguments: '{"a":1}' } }],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 2 },
    });
    expect(reply.done).toBe(true);
    expect(reply.finish()).toMatchObject({
      stopReason: "toolUse",
      content: [
        { type: "text", text: "ok" },
        { type: "thinking", thinking: "why" },
        { type: "toolCall", id: "t", arguments: { a: 1 } },
      ],
      usage: { input: 5, output: 2 },
    });
  });
});

describe("tool call arguments", () => {
  it("parses JSON, repairs raw control characters and stray backslashes", () => {
    expect(parseArguments('{"path":"a"}')).toEqual({ value: { path: "a" } });
    expect(parseArguments("")).toEqual({ value: {} });
    expect(parseArguments('{"text":"line one\nline\ttwo","p":"C:\\dir"}')).toEqual({
      value: { text: "line one\nline\ttwo", p: "C:\\dir" },
    });
  });

  it("keeps what is not a JSON object as raw text, with {} as the arguments", () => {
    expect(parseArguments('{"path": "a.t')).toEqual({ value: {}, raw: '{"path": "a.t' });
    expect(parseArguments("[1,2]")).toEqual({ value: {}, raw: "[1,2]" });
    expect(parseArguments('"just a string"')).toEqual({ value: {}, raw: '"just a string"' });
  });
});
