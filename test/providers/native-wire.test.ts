// What only the native wire does: one kept-alive connection per provider, a transparent resend
// when a kept-alive connection turns out to be closed, plain JSON answers, invalid tool-call
// JSON, and how the wire is chosen.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Type } from "typebox";
import { afterEach, describe, expect, it } from "vitest";
import {
  createProvider,
  type Message,
  resolveProviderSettings,
  type ToolCall,
} from "../../src/providers/index.js";
import { BodyBuilder } from "../../src/providers/openai-wire/body.js";
import type { FakeReply } from "../support/fake-model-server.js";
import { ask, collector, FAST, rejection, useFakeServer } from "./harness.js";

interface RawServer {
  baseUrl: string;
  /** Connections opened so far. */
  connections: number;
  requests: number;
  close(): Promise<void>;
}

const servers: RawServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A bare HTTP server; `handle` sees each request with its number on its connection (1-based). */
async function rawServer(
  handle: (req: IncomingMessage, res: ServerResponse, nthOnSocket: number) => void,
): Promise<RawServer> {
  const sockets = new Set<Socket>();
  const perSocket = new WeakMap<Socket, number>();
  const state = { connections: 0, requests: 0 };
  const server = createServer((req, res) => {
    state.requests++;
    const nth = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, nth);
    req.resume();
    req.on("end", () => handle(req, res, nth));
  });
  server.on("connection", (socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const raw: RawServer = {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get connections() {
      return state.connections;
    },
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  servers.push(raw);
  return raw;
}

function sse(res: ServerResponse, text: string): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.end(
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n` +
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`,
  );
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

const native = (baseUrl: string) => createProvider({ provider: "openai-compatible", baseUrl }, FAST);

describe("native wire connections", () => {
  it("sends every call of a provider over one kept-alive connection", async () => {
    const server = await rawServer((_req, res) => sse(res, "ok"));
    const provider = await native(server.baseUrl);
    for (let i = 0; i < 5; i++) expect((await provider.chat(ask(`call ${i}`))).text).toBe("ok");
    expect(server.connections).toBe(1);
  });

  it("resends at once, without a retry, when a kept-alive connection was closed by the server", async () => {
    // The second request on a connection finds it closed: what a server's idle timeout does.
    const server = await rawServer((req, res, nth) => {
      if (nth === 1) sse(res, "fresh");
      else req.socket.destroy();
    });
    const provider = await native(server.baseUrl);
    const { events, onEvent } = collector();
    expect((await provider.chat(ask("one"))).text).toBe("fresh");
    const second = await provider.chat(ask("two"), { onEvent });
    expect(second.text).toBe("fresh");
    expect(second.attempts).toBe(1);
    expect(events.filter((e) => e.type === "retry")).toEqual([]);
    expect(server.requests).toBe(3);
    expect(server.connections).toBe(2);
  });

  it("opens the first call's connection ahead of it when asked, and sends the call on it", async () => {
    const server = await rawServer((_req, res) => sse(res, "ok"));
    const provider = await native(server.baseUrl);
    provider.preconnect?.();
    provider.preconnect?.(); // one is open already: no second
    await until(() => server.connections === 1);
    expect(server.requests).toBe(0);
    expect((await provider.chat(ask("one"))).text).toBe("ok");
    expect((await provider.chat(ask("two"))).text).toBe("ok");
    expect(server.connections).toBe(1);
    expect(server.requests).toBe(2);
    // With a kept-alive connection free, asking again opens nothing.
    provider.preconnect?.();
    expect((await provider.chat(ask("three"))).text).toBe("ok");
    expect(server.connections).toBe(1);
  });

  it("resends at once when the server closed the preconnected connection before the call", async () => {
    const server = await rawServer((req, res, nth) => {
      if (server.requests === 1 && nth === 1) req.socket.destroy();
      else sse(res, "second try");
    });
    const provider = await native(server.baseUrl);
    provider.preconnect?.();
    await until(() => server.connections === 1);
    const { events, onEvent } = collector();
    const result = await provider.chat(ask("hi"), { onEvent });
    expect(result).toMatchObject({ text: "second try", attempts: 1 });
    expect(events.filter((e) => e.type === "retry")).toEqual([]);
    expect(server.connections).toBe(2);
  });

  it("makes a connection of its own when the preconnect was refused (the server came up since)", async () => {
    const server = await rawServer((_req, res) => sse(res, "up now"));
    const baseUrl = server.baseUrl;
    await server.close();
    const provider = await native(baseUrl);
    provider.preconnect?.(); // refused: nobody listens
    await new Promise((resolve) => setTimeout(resolve, 50));
    const port = Number(new URL(baseUrl).port);
    const again = createServer((req, res) => {
      req.resume();
      req.on("end", () => sse(res, "up now"));
    });
    await new Promise<void>((resolve) => again.listen(port, "127.0.0.1", resolve));
    try {
      expect((await provider.chat(ask("hi"))).text).toBe("up now");
    } finally {
      again.closeAllConnections();
      await new Promise((resolve) => again.close(resolve));
    }
  });

  it("fails over a refused connection as provider_unavailable, after its retries", async () => {
    const server = await rawServer((_req, res) => sse(res, "never"));
    const baseUrl = server.baseUrl;
    await server.close();
    const provider = await createProvider(
      { provider: "openai-compatible", baseUrl },
      { ...FAST, retry: { ...FAST.retry, maxAttempts: 2 } },
    );
    const error = await rejection(provider.chat(ask("hi")));
    expect(error.code).toBe("provider_unavailable");
    expect(error.details).toMatchObject({ attempts: 2 });
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it("retries an HTML error page from a proxy as provider_unavailable", async () => {
    const server = await rawServer((_req, res) => {
      if (server.requests === 1) {
        res.writeHead(502, { "content-type": "text/html" });
        res.end("<html><body><h1>502 Bad Gateway</h1></body></html>");
      } else {
        sse(res, "through");
      }
    });
    const provider = await native(server.baseUrl);
    const result = await provider.chat(ask("hi"));
    expect(result).toMatchObject({ text: "through", attempts: 2 });
  });

  it("says what a 200 answer that is no event stream was, without a retry", async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html><body>Welcome to nginx!</body></html>");
    });
    const provider = await native(server.baseUrl);
    const error = await rejection(provider.chat(ask("hi")));
    expect(error.code).toBe("provider_bad_response");
    expect(error.message).toMatch(/text\/html, not an event stream/);
    expect(server.requests).toBe(1);
  });

  it("takes a plain JSON answer from a server that does not stream", async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "c1",
          choices: [
            { index: 0, message: { role: "assistant", content: "whole answer" }, finish_reason: "stop" },
          ],
          usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 },
        }),
      );
    });
    const provider = await native(server.baseUrl);
    const { events, onEvent } = collector();
    const result = await provider.chat(ask("hi"), { onEvent });
    expect(result).toMatchObject({ text: "whole answer", stopReason: "stop" });
    expect(result.usage).toMatchObject({ input: 9, output: 3 });
    expect(events).toEqual([{ type: "text_delta", delta: "whole answer" }]);
  });
});

describe("native wire tool calls", () => {
  const fake = useFakeServer();
  const tool = { name: "write_file", description: "Write", parameters: Type.Object({ path: Type.String() }) };

  it("repairs raw newlines in arguments, and keeps arguments that are not JSON as raw text", async () => {
    fake.server.enqueue({
      toolCalls: [
        { name: "write_file", arguments: '{"path":"a.txt","content":"line 1\nline 2"}' },
        { name: "write_file", arguments: '{"path": "b.txt", "content": "cut o' },
      ],
      finish: "length",
    });
    const provider = await createProvider(
      { provider: "openai-compatible", baseUrl: fake.server.openaiBaseUrl },
      FAST,
    );
    const result = await provider.chat(ask("write", [tool]));
    expect(result.stopReason).toBe("length");
    const [good, cut] = result.toolCalls as [ToolCall, ToolCall];
    expect(good.arguments).toEqual({ path: "a.txt", content: "line 1\nline 2" });
    expect(good).not.toHaveProperty("rawArguments");
    expect(cut.arguments).toEqual({});
    expect(cut.rawArguments).toBe('{"path": "b.txt", "content": "cut o');

    // Sent back, the cut call carries valid JSON ({}), which every server accepts.
    fake.server.enqueue({ text: "ok" });
    await provider.chat({ ...ask("write", [tool]), messages: [...ask("write").messages, result.message] });
    const sent = fake.server.requests[1]?.body as {
      messages: { tool_calls?: { function: { arguments: string } }[] }[];
    };
    const replayed = sent.messages.find((message) => message.tool_calls);
    expect(replayed?.tool_calls?.map((call) => call.function.arguments)).toEqual([
      '{"path":"a.txt","content":"line 1\\nline 2"}',
      "{}",
    ]);
  });

  it("drops arguments nested thousands deep (a copy or a store would run out of stack) to {}, with why", async () => {
    const deep = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
    fake.server.enqueue({
      toolCalls: [
        { name: "write_file", arguments: `{"path": ${deep}}` },
        { name: "write_file", arguments: '{"path": "a.txt", "lines": [[["three deep is fine"]]]}' },
      ],
    });
    const provider = await createProvider(
      { provider: "openai-compatible", baseUrl: fake.server.openaiBaseUrl },
      FAST,
    );
    const result = await provider.chat(ask("write", [tool]));
    const [dropped, kept] = result.toolCalls as [ToolCall, ToolCall];
    expect(dropped.arguments).toEqual({});
    expect(dropped.rawArguments).toBe("(arguments nested more than 64 levels deep, not kept)");
    expect(kept.arguments).toEqual({ path: "a.txt", lines: [[["three deep is fine"]]] });
    expect(JSON.stringify(result.message)).toContain("three deep is fine");
  });
});

describe("native wire request bodies", () => {
  const fake = useFakeServer();

  it("over a long run, every body the server receives is the whole history, as a fresh build gives it", async () => {
    const steps = 120;
    const output = "x".repeat(2048);
    fake.server.enqueue(
      ...Array.from(
        { length: steps },
        (_, i): FakeReply => ({
          toolCalls: [{ name: "read_file", arguments: { path: `notes/${i}.txt` }, id: `call_${i}` }],
        }),
      ),
    );
    const provider = await createProvider(
      { provider: "openai-compatible", baseUrl: fake.server.openaiBaseUrl, model: "fake-model" },
      FAST,
    );
    const tools = [
      { name: "read_file", description: "Read", parameters: Type.Object({ path: Type.String() }) },
    ];
    const history: Message[] = [{ role: "user", content: "read them all", timestamp: 1 }];
    for (let step = 0; step < steps; step++) {
      const request = { systemPrompt: "You are a test.", messages: [...history], tools };
      const result = await provider.chat(request);
      const fresh = new BodyBuilder({
        id: "fake-model",
        provider: "openai-compatible",
        maxTokens: provider.model.maxOutputTokens,
      }).build(request);
      expect(fake.server.requests[step]?.body).toEqual(
        JSON.parse(Buffer.concat([...fresh.parts]).toString("utf8")),
      );
      const call = result.toolCalls[0]!;
      history.push(result.message, {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: output }],
        isError: false,
        timestamp: 1,
      });
      // Older outputs are shown as a short line from then on (a new object, as the loop does).
      const old = history.length - 3;
      const previous = history[old];
      if (previous?.role === "toolResult")
        history[old] = { ...previous, content: [{ type: "text", text: "read" }] };
    }
    const last = fake.server.requests.at(-1)?.body as { messages: unknown[] };
    expect(last.messages).toHaveLength(2 + 2 * (steps - 1));
  });
});

describe("choosing the wire", () => {
  const fake = useFakeServer();

  it("is native by default for openai-compatible and ollama, and pi-ai for the others", async () => {
    const compatible = await createProvider({
      provider: "openai-compatible",
      baseUrl: fake.server.openaiBaseUrl,
    });
    const ollama = await createProvider({ provider: "ollama" });
    const openai = await createProvider({ provider: "openai", apiKey: "k" });
    expect([compatible, ollama, openai].map((p) => p.model.wire)).toEqual(["native", "native", "pi-ai"]);
    const viaPi = await createProvider({
      provider: "openai-compatible",
      baseUrl: fake.server.openaiBaseUrl,
      wire: "pi-ai",
    });
    expect(viaPi.model.wire).toBe("pi-ai");
  });

  it("refuses the native wire for a provider it does not serve, and a base URL that is not http(s)", async () => {
    const anthropic = await rejection(createProvider({ provider: "anthropic", apiKey: "k", wire: "native" }));
    expect(anthropic.code).toBe("config_invalid");
    expect(anthropic.hint).toMatch(/ollama and openai-compatible/);
    const badUrl = await rejection(
      createProvider({ provider: "openai-compatible", baseUrl: "localhost:8080/v1" }),
    );
    expect(badUrl.code).toBe("config_invalid");
  });

  it("takes the wire from the input, or from RESON_WIRE for the providers that have a choice", async () => {
    const noOllama = { probeOllama: async () => false };
    const url = fake.server.openaiBaseUrl;
    expect(await resolveProviderSettings({ baseUrl: url, wire: "pi-ai" }, {}, noOllama)).toMatchObject({
      wire: "pi-ai",
    });
    expect(await resolveProviderSettings({ baseUrl: url }, { RESON_WIRE: "pi-ai" }, noOllama)).toMatchObject({
      wire: "pi-ai",
    });
    const hosted = await resolveProviderSettings({}, { RESON_WIRE: "native", OPENAI_API_KEY: "k" }, noOllama);
    expect(hosted).not.toHaveProperty("wire");
    const unknown = await rejection(resolveProviderSettings({ baseUrl: url, wire: "grpc" }, {}, noOllama));
    expect(unknown.code).toBe("usage_error");
  });
});
