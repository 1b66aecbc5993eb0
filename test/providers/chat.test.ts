import { Type } from "typebox";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createProvider, type Message } from "../../src/providers/index.js";
import { ask, collector, FAST, PROTOCOLS, providerFor, useFakeServer } from "./harness.js";

const readFile = {
  name: "read_file",
  description: "Read a file",
  parameters: Type.Object({ path: Type.String() }),
};

describe.each(PROTOCOLS)("chat over $name", (protocol) => {
  const fake = useFakeServer();

  it("streams a text reply in several deltas and returns it whole", async () => {
    fake.server.enqueue({ text: "Hello there, dear friend" });
    const provider = await providerFor(protocol, fake.server);
    const { events, onEvent } = collector();
    const result = await provider.chat(ask("hi"), { onEvent });

    const deltas = events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Hello there, dear friend");
    expect(result.text).toBe("Hello there, dear friend");
    expect(result.stopReason).toBe("stop");
    expect(result.toolCalls).toEqual([]);
    expect(result.attempts).toBe(1);
    expect(result.message.role).toBe("assistant");
  });

  it("returns a tool call with its arguments parsed from fragments", async () => {
    fake.server.enqueue({
      text: "Let me look.",
      toolCalls: [{ name: "read_file", arguments: { path: "notes/a.txt" }, id: "call_1" }],
    });
    const provider = await providerFor(protocol, fake.server);
    const result = await provider.chat(ask("read it", [readFile]));

    expect(result.stopReason).toBe("toolUse");
    expect(result.text).toBe("Let me look.");
    expect(result.toolCalls).toEqual([
      expect.objectContaining({
        type: "toolCall",
        id: "call_1",
        name: "read_file",
        arguments: { path: "notes/a.txt" },
      }),
    ]);
  });

  it.runIf(protocol.protocol !== "google")(
    "reports a tool-use stop when the stream ends with complete tool calls but no finish reason",
    async () => {
      // OpenRouter ends some streams so: the tool calls, usage, [DONE], and no finish_reason.
      fake.server.enqueue({
        toolCalls: [{ name: "read_file", arguments: { path: "a.txt" }, id: "call_3" }],
        finish: "none",
      });
      const provider = await providerFor(protocol, fake.server);
      const result = await provider.chat(ask("read it", [readFile]));

      expect(result.stopReason).toBe("toolUse");
      expect(result.message.stopReason).toBe("toolUse");
      expect(result.toolCalls).toEqual([
        expect.objectContaining({ id: "call_3", name: "read_file", arguments: { path: "a.txt" } }),
      ]);
    },
  );

  it.runIf(protocol.protocol !== "google")(
    "reports a plain stop when a stream with no finish reason carries only text",
    async () => {
      fake.server.enqueue({ text: "All done.", finish: "none" });
      const provider = await providerFor(protocol, fake.server);
      const result = await provider.chat(ask("hi"));
      expect(result.stopReason).toBe("stop");
      expect(result.text).toBe("All done.");
    },
  );

  it("returns two tool calls made in one step, in order", async () => {
    fake.server.enqueue({
      toolCalls: [
        { name: "read_file", arguments: { path: "a.txt" } },
        { name: "read_file", arguments: { path: "b.txt" } },
      ],
    });
    const provider = await providerFor(protocol, fake.server);
    const result = await provider.chat(ask("read both", [readFile]));

    expect(result.toolCalls.map((call) => call.arguments)).toEqual([{ path: "a.txt" }, { path: "b.txt" }]);
    expect(new Set(result.toolCalls.map((call) => call.id)).size).toBe(2);
  });

  it("sends the system prompt, the tools, a max token count and the key it was given", async () => {
    fake.server.enqueue({ text: "ok" });
    const provider = await providerFor(protocol, fake.server);
    await provider.chat(ask("hi", [readFile]));

    const [request] = fake.server.requests;
    const body = request?.body as Record<string, unknown>;
    const key = protocol.settings(fake.server).apiKey;
    expect(Object.keys(request?.headers ?? {}).filter((name) => name.startsWith("x-reson"))).toEqual([]);
    if (protocol.protocol === "openai") {
      expect(request?.headers.authorization).toBe(`Bearer ${key}`);
      expect(body.messages).toEqual(
        expect.arrayContaining([expect.objectContaining({ role: "system", content: "You are a test." })]),
      );
      expect(body.tools).toEqual([
        expect.objectContaining({ function: expect.objectContaining({ name: "read_file" }) }),
      ]);
      expect(body.max_tokens).toBe(provider.model.maxOutputTokens);
    } else if (protocol.protocol === "google") {
      expect(request?.headers["x-goog-api-key"]).toBe(key);
      expect(JSON.stringify(body.systemInstruction)).toContain("You are a test.");
      expect(body.tools).toEqual([
        { functionDeclarations: [expect.objectContaining({ name: "read_file" })] },
      ]);
      expect(body.generationConfig).toMatchObject({ maxOutputTokens: provider.model.maxOutputTokens });
    } else {
      expect(request?.headers["x-api-key"]).toBe(key);
      expect(JSON.stringify(body.system)).toContain("You are a test.");
      expect(body.tools).toEqual([expect.objectContaining({ name: "read_file" })]);
      expect(body.max_tokens).toBe(provider.model.maxOutputTokens);
    }
  });

  it("sends tool results back in the protocol's own format", async () => {
    fake.server.enqueue(
      { toolCalls: [{ name: "read_file", arguments: { path: "a.txt" }, id: "call_7" }] },
      {
        text: "The file says hi.",
      },
    );
    const provider = await providerFor(protocol, fake.server);
    const request = ask("read it", [readFile]);
    const first = await provider.chat(request);
    const messages: Message[] = [
      ...request.messages,
      first.message,
      {
        role: "toolResult",
        toolCallId: "call_7",
        toolName: "read_file",
        content: [{ type: "text", text: "hi" }],
        isError: false,
        timestamp: Date.now(),
      },
    ];
    const second = await provider.chat({ ...request, messages });

    expect(second.text).toBe("The file says hi.");
    const body = fake.server.requests[1]?.body as { messages?: unknown; contents?: unknown } | undefined;
    const sent = JSON.stringify(body?.messages ?? body?.contents);
    if (protocol.protocol === "openai") {
      expect(sent).toContain('{"role":"tool","content":"hi","tool_call_id":"call_7"}');
    } else if (protocol.protocol === "google") {
      expect(sent).toContain('{"functionResponse":{"name":"read_file","response":{"output":"hi"}}}');
    } else {
      expect(sent).toContain('"type":"tool_result","tool_use_id":"call_7"');
    }
  });

  it("forwards thinking as thinking deltas, apart from the text", async () => {
    fake.server.enqueue({ thinking: "Let me think about it", text: "Done." });
    const provider = await providerFor(protocol, fake.server);
    const { events, onEvent } = collector();
    const result = await provider.chat(ask("think"), { onEvent });

    const thinking = events.flatMap((e) => (e.type === "thinking_delta" ? [e.delta] : []));
    expect(thinking.join("")).toBe("Let me think about it");
    expect(result.text).toBe("Done.");
  });

  it("returns the cut-off answer with stopReason length when max tokens run out", async () => {
    fake.server.enqueue({ text: "This answer is cut", finish: "length" });
    const provider = await providerFor(protocol, fake.server);
    const result = await provider.chat(ask("long"));
    expect(result.stopReason).toBe("length");
    expect(result.text).toBe("This answer is cut");
  });

  it("returns a snapshot the caller can keep and change without touching the next result", async () => {
    fake.server.enqueue({ toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] });
    const provider = await providerFor(protocol, fake.server);
    const result = await provider.chat(ask("read", [readFile]));
    const stored = JSON.parse(JSON.stringify(result.message));
    expect(stored).toEqual(result.message);
    expect(result.message.content.some((block) => "partialArgs" in block || "partialJson" in block)).toBe(
      false,
    );
  });
});

describe("usage and cost", () => {
  const fake = useFakeServer();
  const cases = [
    { name: "openai (registry model)", provider: "openai", model: "gpt-4o", url: "openai" },
    {
      name: "anthropic (registry model)",
      provider: "anthropic",
      model: "claude-sonnet-4-6",
      url: "anthropic",
    },
    { name: "google (registry model)", provider: "google", model: "gemini-2.5-flash", url: "google" },
  ] as const;

  it.each(cases)("$name reports tokens and prices them from the registry", async (c) => {
    fake.server.enqueue({ text: "priced", usage: { input: 1000, output: 500, cacheRead: 200 } });
    const provider = await createProvider(
      {
        provider: c.provider,
        model: c.model,
        apiKey: "sk-test-0123456789",
        baseUrl: {
          openai: fake.server.openaiBaseUrl,
          anthropic: fake.server.anthropicBaseUrl,
          google: fake.server.googleBaseUrl,
        }[c.url],
      },
      FAST,
    );
    const result = await provider.chat(ask("count"));
    const price = provider.model.cost;
    expect(price.input).toBeGreaterThan(0);
    expect(result.usage).toMatchObject({ input: 1000, output: 500, cacheRead: 200, totalTokens: 1700 });
    const expected = (1000 * price.input + 500 * price.output + 200 * price.cacheRead) / 1e6;
    expect(result.usage.costUsd).toBeCloseTo(expected, 10);
  });

  it("adds the usage of failed attempts to the successful one", async () => {
    // Anthropic reports input tokens in message_start, so a stream cut mid-way has usage.
    fake.server.enqueue({ fault: "reset" }, { text: "ok", usage: { input: 100, output: 10 } });
    const provider = await createProvider(
      {
        provider: "anthropic",
        model: "claude-sonnet-4-6",
        apiKey: "sk-ant-x-123",
        baseUrl: fake.server.anthropicBaseUrl,
      },
      FAST,
    );
    const result = await provider.chat(ask("count"));
    expect(result.attempts).toBe(2);
    expect(result.usage.input).toBe(112); // 12 (the fake's default) from the failed attempt + 100
  });

  it("counts the tokens of a model with no known price as unpriced, not as free", async () => {
    fake.server.enqueue({ text: "free?" });
    const provider = await createProvider(
      { provider: "openai-compatible", baseUrl: fake.server.openaiBaseUrl },
      FAST,
    );
    expect(provider.model.priced).toBe(false);
    const result = await provider.chat(ask("count"));
    expect(result.usage.input).toBe(12);
    expect(result.usage.costUsd).toBe(0);
    expect(result.usage.unpricedTokens).toBe(result.usage.totalTokens);
  });
});

describe("API keys", () => {
  const fake = useFakeServer();
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("openai-compatible without a key sends a dummy key, never OPENAI_API_KEY from the environment", async () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-from-env-must-not-leak");
    fake.server.enqueue({ text: "ok" });
    const provider = await createProvider(
      { provider: "openai-compatible", baseUrl: fake.server.openaiBaseUrl },
      FAST,
    );
    await provider.chat(ask("hi"));
    expect(fake.server.requests[0]?.headers.authorization).toBe("Bearer none");
  });

  it("ollama sends a dummy key too", async () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-from-env-must-not-leak");
    fake.server.enqueue({ text: "ok" });
    const provider = await createProvider({ provider: "ollama", baseUrl: fake.server.openaiBaseUrl }, FAST);
    await provider.chat(ask("hi"));
    expect(fake.server.requests[0]?.headers.authorization).toBe("Bearer none");
  });

  it("an explicit key reaches the server as given", async () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-from-env-must-not-leak");
    fake.server.enqueue({ text: "ok" });
    const provider = await createProvider(
      { provider: "openai", baseUrl: fake.server.openaiBaseUrl, model: "gpt-4o", apiKey: "sk-explicit-1" },
      FAST,
    );
    await provider.chat(ask("hi"));
    expect(fake.server.requests[0]?.headers.authorization).toBe("Bearer sk-explicit-1");
  });
});
