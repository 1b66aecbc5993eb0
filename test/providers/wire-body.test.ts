// The native wire's request bodies: built incrementally from cached per-message bytes, they
// must be byte for byte what a fresh serialization of the same request gives, carry the same
// messages pi-ai would send, and never hold a lone surrogate.
import type { Model, OpenAICompletionsCompat } from "@mariozechner/pi-ai";
import { convertMessages } from "@mariozechner/pi-ai/openai-completions";
import fc from "fast-check";
import { Type } from "typebox";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BodyBuilder, type PreparedBody, type WireModel } from "../../src/providers/openai-wire/body.js";
import type {
  AssistantMessage,
  ChatRequest,
  Message,
  ToolResultMessage,
  ToolSpec,
} from "../../src/providers/types.js";

const MODEL: WireModel = { id: "fake-model", provider: "openai-compatible", maxTokens: 4096 };
const READ: ToolSpec = {
  name: "read_file",
  description: "Read a file",
  parameters: Type.Object({ path: Type.String() }),
};
const OUTPUT = "0123456789abcdef".repeat(128); // 2 KB, like the benchmark's tool output

function bytesOf(prepared: PreparedBody): Buffer {
  const body = Buffer.concat([...prepared.parts]);
  expect(body.length).toBe(prepared.length);
  return body;
}

/** Builds once with `builder` and once from scratch; both must be the same bytes. */
function buildBoth(builder: BodyBuilder, request: ChatRequest): Buffer {
  const prepared = builder.build(request);
  const body = bytesOf(prepared);
  prepared.release();
  const fresh = new BodyBuilder(MODEL).build(request);
  expect(body.equals(bytesOf(fresh))).toBe(true);
  return body;
}

function parse(
  body: Buffer,
): { messages: Record<string, unknown>[]; tools?: unknown[] } & Record<string, unknown> {
  return JSON.parse(body.toString("utf8"));
}

function assistant(
  content: AssistantMessage["content"],
  extra: Partial<AssistantMessage> = {},
): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: "openai-completions",
    provider: MODEL.provider,
    model: MODEL.id,
    usage: {
      input: 1,
      output: 1,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 2,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: content.some((block) => block.type === "toolCall") ? "toolUse" : "stop",
    timestamp: 1,
    ...extra,
  };
}

function toolCall(id: string, path: string): AssistantMessage["content"][number] {
  return { type: "toolCall", id, name: "read_file", arguments: { path } };
}

function toolResult(id: string, text: string): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: id,
    toolName: "read_file",
    content: [{ type: "text", text }],
    isError: false,
    timestamp: 1,
  };
}

const user = (content: string): Message => ({ role: "user", content, timestamp: 1 });

afterEach(() => {
  vi.restoreAllMocks();
});

describe("incremental request bodies", () => {
  it("equal a fresh serialization at every step of a run, old outputs replaced by short forms", () => {
    const builder = new BodyBuilder(MODEL);
    const history: Message[] = [user("Read the notes.")];
    const shortForms = new Map<number, Message>();
    for (let step = 1; step <= 40; step++) {
      // The loop's rendering: from two steps back, a tool output becomes its short line (a new object).
      const messages = history.map((message, index) => {
        if (message.role !== "toolResult" || index >= history.length - 1) return message;
        let short = shortForms.get(index);
        if (!short) {
          short = { ...message, content: [{ type: "text", text: `read notes/${index}.txt` }] };
          shortForms.set(index, short);
        }
        return short;
      });
      const systemPrompt = step < 20 ? "You are a test." : "You are a test, now with a new prompt.";
      const tools = step < 30 ? [READ] : [READ, { ...READ, name: "read_again" }];
      const body = buildBoth(builder, { systemPrompt, messages, tools });
      const parsed = parse(body);
      expect(parsed.messages).toHaveLength(messages.length + 1);
      expect(parsed.messages.at(-1)).toMatchObject(
        step === 1 ? { role: "user" } : { role: "tool", content: OUTPUT },
      );
      const id = `call_${step}`;
      history.push(assistant([toolCall(id, `notes/${step}.txt`)]), toolResult(id, OUTPUT));
    }
  });

  it("serializes only the new messages of a step", () => {
    const builder = new BodyBuilder(MODEL);
    const messages: Message[] = [user("go")];
    for (let i = 0; i < 300; i++)
      messages.push(assistant([toolCall(`c${i}`, "a")]), toolResult(`c${i}`, OUTPUT));
    builder.build({ systemPrompt: "s", messages, tools: [READ] }).release();

    const stringify = vi.spyOn(JSON, "stringify");
    const next = [...messages, assistant([toolCall("new", "b")]), toolResult("new", OUTPUT)];
    const body = bytesOf(builder.build({ systemPrompt: "s", messages: next, tools: [{ ...READ }] }));
    // The assistant message, its tool call's arguments, the tool result: nothing older.
    expect(stringify).toHaveBeenCalledTimes(3);
    stringify.mockRestore();
    expect(parse(body).messages).toHaveLength(next.length + 1);
  });

  it("re-serializes a message replaced by a different object, and only that one", () => {
    const builder = new BodyBuilder(MODEL);
    const first = toolResult("c1", "the full output");
    const messages: Message[] = [user("go"), assistant([toolCall("c1", "a")]), first];
    buildBoth(builder, { systemPrompt: "s", messages, tools: [READ] });
    const replaced = { ...first, content: [{ type: "text" as const, text: "short" }] };
    const body = buildBoth(builder, {
      systemPrompt: "s",
      messages: [...messages.slice(0, 2), replaced, user("more")],
      tools: [READ],
    });
    expect(parse(body).messages.slice(-2)).toEqual([
      { role: "tool", content: "short", tool_call_id: "c1" },
      { role: "user", content: "more" },
    ]);
  });

  it("keeps a body in flight intact while another call of the same provider builds its own", () => {
    const builder = new BodyBuilder(MODEL);
    const base: Message[] = [user("go"), assistant([toolCall("c1", "a")]), toolResult("c1", OUTPUT)];
    const first = builder.build({ systemPrompt: "s", messages: base, tools: [READ] });
    const before = bytesOf(first);
    const second = builder.build({ systemPrompt: "other", messages: [user("different")], tools: [] });
    expect(parse(bytesOf(second)).messages).toEqual([
      { role: "system", content: "other" },
      { role: "user", content: "different" },
    ]);
    expect(bytesOf(first).equals(before)).toBe(true);
    first.release();
    second.release();
    buildBoth(builder, { systemPrompt: "s", messages: [...base, user("next")], tools: [READ] });
  });

  it("sends the request fields of a plain OpenAI-compatible server", () => {
    const body = parse(
      buildBoth(new BodyBuilder(MODEL), { systemPrompt: "sys", messages: [user("hi")], tools: [READ] }),
    );
    expect(body).toEqual({
      model: "fake-model",
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 4096,
      tools: [
        {
          type: "function",
          function: {
            name: "read_file",
            description: "Read a file",
            parameters: JSON.parse(JSON.stringify(READ.parameters)),
          },
        },
      ],
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: "hi" },
      ],
    });
    const noTools = parse(
      buildBoth(new BodyBuilder(MODEL), { systemPrompt: "", messages: [user("hi")], tools: [] }),
    );
    expect(noTools).not.toHaveProperty("tools");
    expect(noTools.messages).toEqual([{ role: "user", content: "hi" }]);
    // Tool calls in the history need a tools field, even an empty one, for some servers.
    const history = [user("hi"), assistant([toolCall("c", "a")]), toolResult("c", "x")];
    expect(
      parse(buildBoth(new BodyBuilder(MODEL), { systemPrompt: "", messages: history, tools: [] })).tools,
    ).toEqual([]);
  });
});

describe("what the messages become", () => {
  const build = (messages: Message[]) =>
    parse(buildBoth(new BodyBuilder(MODEL), { systemPrompt: "", messages, tools: [READ] })).messages;

  it("answers a tool call that has no result, and leaves failed and empty turns out", () => {
    const messages = build([
      user("go"),
      assistant([{ type: "text", text: "half" }, toolCall("lost", "x")], { stopReason: "error" }),
      assistant([toolCall("c1", "a"), toolCall("c2", "b")]),
      toolResult("c1", "one"),
      user("interrupt"),
      assistant([{ type: "text", text: "   " }]),
      assistant([{ type: "text", text: "done" }]),
    ]);
    expect(messages).toEqual([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a"}' } },
          { id: "c2", type: "function", function: { name: "read_file", arguments: '{"path":"b"}' } },
        ],
      },
      { role: "tool", content: "one", tool_call_id: "c1" },
      { role: "tool", content: "No result provided", tool_call_id: "c2" },
      { role: "user", content: "interrupt" },
      { role: "assistant", content: "done" },
    ]);
  });

  it("replays this model's reasoning in its own field and another model's as text", () => {
    const thinking = { type: "thinking" as const, thinking: "hmm", thinkingSignature: "reasoning_content" };
    const messages = build([
      user("go"),
      assistant([thinking, { type: "text", text: "mine" }]),
      assistant([thinking, { type: "text", text: " theirs" }], { provider: "anthropic", model: "claude" }),
    ]);
    expect(messages.slice(1)).toEqual([
      { role: "assistant", content: "mine", reasoning_content: "hmm" },
      { role: "assistant", content: "hmm theirs" },
    ]);
  });

  it("shortens another API's long tool call ids, in the call and in its result alike", () => {
    const id = "call_abc|fc_0123456789+/=";
    const messages = build([
      user("go"),
      assistant([toolCall(id, "a")], { provider: "openai", api: "openai-responses", model: "gpt" }),
      toolResult(id, "out"),
    ]);
    expect(messages[1]).toMatchObject({ tool_calls: [{ id: "call_abc" }] });
    expect(messages[2]).toEqual({ role: "tool", content: "out", tool_call_id: "call_abc" });
  });

  it("turns images into a placeholder for these text-only models", () => {
    const image = { type: "image" as const, data: "AAAA", mimeType: "image/png" };
    const messages = build([
      { role: "user", content: [{ type: "text", text: "look" }, image, image], timestamp: 1 },
    ]);
    expect(messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "text", text: "(image omitted: the model takes text only)" },
        ],
      },
    ]);
  });

  it("removes lone surrogates everywhere and keeps valid pairs, in valid UTF-8", () => {
    const body = buildBoth(new BodyBuilder(MODEL), {
      systemPrompt: "sys\uD800tem",
      messages: [
        user("a\uDC00b 😀 c\uD83D"),
        assistant([{ type: "text", text: "x\uDBFFy" }, toolCall("c1", "p\uD800")]),
        toolResult("c1", "out\uDFFFput 😀"),
      ],
      tools: [READ],
    });
    const text = body.toString("utf8");
    expect(Buffer.from(text, "utf8").equals(body)).toBe(true);
    expect(text).not.toMatch(/\\ud[89a-f]/i);
    const { messages } = parse(body);
    expect(messages.map((m) => m.content)).toEqual(["system", "ab 😀 c", "xy", "output 😀"]);
    expect(messages[2]).toMatchObject({ tool_calls: [{ function: { arguments: '{"path":"p"}' } }] });
  });
});

describe("parity with pi-ai's conversion", () => {
  const piModel: Model<"openai-completions"> = {
    id: MODEL.id,
    name: MODEL.id,
    api: "openai-completions",
    provider: MODEL.provider,
    baseUrl: "http://127.0.0.1:1/v1",
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 128_000,
    maxTokens: 4096,
  };
  const compat = {
    supportsStore: false,
    supportsDeveloperRole: false,
    supportsReasoningEffort: false,
    supportsUsageInStreaming: true,
    supportsStrictMode: false,
    maxTokensField: "max_tokens",
    requiresToolResultName: false,
    requiresAssistantAfterToolResult: false,
    requiresThinkingAsText: false,
    requiresReasoningContentOnAssistantMessages: false,
    thinkingFormat: "openai",
  } as OpenAICompletionsCompat as Parameters<typeof convertMessages>[2];

  const text = fc.string({ unit: "grapheme", maxLength: 12 });
  const ids = fc.constantFrom("c1", "c2", "c3", "x|long+id", "y|other");
  const block = fc.oneof(
    fc.record({ type: fc.constant("text" as const), text: fc.oneof(text, fc.constant("  ")) }),
    fc.record({
      type: fc.constant("thinking" as const),
      thinking: fc.oneof(text, fc.constant("")),
      thinkingSignature: fc.constantFrom("reasoning_content", "reasoning", undefined),
    }),
    fc.record({
      type: fc.constant("toolCall" as const),
      id: ids,
      name: fc.constantFrom("read_file", "grep"),
      arguments: fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(text, fc.integer())),
    }),
  );
  const message: fc.Arbitrary<Message> = fc.oneof(
    text.map((content) => user(content)),
    fc
      .record({
        content: fc.array(block, { maxLength: 4 }),
        stopReason: fc.constantFrom("stop", "toolUse", "length", "error", "aborted" as const),
        other: fc.boolean(),
      })
      .map(({ content, stopReason, other }) =>
        assistant(content.map((b) => ({ ...b })) as AssistantMessage["content"], {
          stopReason,
          ...(other ? { provider: "openai", api: "openai-responses", model: "gpt-x" } : {}),
        }),
      ),
    fc
      .record({
        id: ids,
        parts: fc.array(
          text.filter((t) => t.length > 0),
          { minLength: 1, maxLength: 2 },
        ),
      })
      .map(({ id, parts }) => ({
        ...toolResult(id, ""),
        content: parts.map((part) => ({ type: "text" as const, text: part })),
      })),
  );

  it("sends the same messages as pi-ai for any history", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), text, (messages, systemPrompt) => {
        const body = parse(buildBoth(new BodyBuilder(MODEL), { systemPrompt, messages, tools: [READ] }));
        const expected = convertMessages(piModel, { systemPrompt, messages, tools: [READ] }, compat);
        expect(body.messages).toEqual(JSON.parse(JSON.stringify(expected)));
      }),
      { numRuns: 300 },
    );
  });
});
