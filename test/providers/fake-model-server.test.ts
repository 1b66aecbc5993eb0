// The fake server's own surface, for what the provider tests do not reach: plain JSON replies,
// the GET probes, closing while requests hang, and the embeddings function and limits.
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, fakeEmbedding, startFakeModelServer } from "../support/fake-model-server.js";

const cosine = (a: number[], b: number[]) => a.reduce((sum, value, i) => sum + value * (b[i] ?? 0), 0);

describe("fakeEmbedding", () => {
  it("is deterministic, unit length, and closer for texts that share words", () => {
    const cat = fakeEmbedding("The cat sat on the mat");
    expect(fakeEmbedding("the CAT sat on the mat!")).toEqual(cat);
    expect(cosine(cat, cat)).toBeCloseTo(1, 10);
    expect(cosine(cat, fakeEmbedding("a cat sat down"))).toBeGreaterThan(
      cosine(cat, fakeEmbedding("stock prices fell sharply")),
    );
    expect(fakeEmbedding("", 8)).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(fakeEmbedding("x", 200)).toHaveLength(200);
  });
});

describe("fake model server", () => {
  let server: FakeModelServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  const post = (path: string, body: unknown) =>
    fetch(`${server?.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer k1" },
      body: JSON.stringify(body),
    });

  it("answers non-streaming OpenAI and Anthropic requests with plain JSON, one scripted reply each", async () => {
    server = await startFakeModelServer({
      replies: [{ text: "one", toolCalls: [{ name: "t", arguments: { a: 1 } }] }, { text: "two" }],
    });
    const openai = (await (await post("/v1/chat/completions", { model: "m", stream: false })).json()) as {
      choices: {
        message: { content: string; tool_calls: { function: { arguments: string } }[] };
        finish_reason: string;
      }[];
    };
    expect(openai.choices[0]?.message.content).toBe("one");
    expect(openai.choices[0]?.message.tool_calls[0]?.function.arguments).toBe('{"a":1}');
    expect(openai.choices[0]?.finish_reason).toBe("tool_calls");

    const anthropic = (await (await post("/v1/messages", { model: "c" })).json()) as {
      content: { type: string; text: string }[];
      stop_reason: string;
    };
    expect(anthropic.content).toEqual([{ type: "text", text: "two" }]);
    expect(anthropic.stop_reason).toBe("end_turn");
    expect(server.remaining).toBe(0);
    expect(server.requests.map((r) => [r.protocol, r.headers.authorization])).toEqual([
      ["openai", "Bearer k1"],
      ["anthropic", "Bearer k1"],
    ]);
  });

  it("answers Gemini's generateContent with one JSON response and streamGenerateContent with SSE", async () => {
    server = await startFakeModelServer({
      replies: [{ text: "one", toolCalls: [{ name: "t", arguments: { a: 1 } }] }, { text: "two words" }],
    });
    const gemini = (await (
      await post("/v1beta/models/gemini-x:generateContent", { contents: [] })
    ).json()) as { candidates: { content: { parts: unknown[] }; finishReason: string }[] };
    expect(gemini.candidates[0]?.content.parts).toEqual([
      { text: "one" },
      { functionCall: { name: "t", args: { a: 1 } } },
    ]);
    expect(gemini.candidates[0]?.finishReason).toBe("STOP");

    const stream = await (
      await post("/v1beta/models/gemini-x:streamGenerateContent?alt=sse", { contents: [] })
    ).text();
    const events = stream.split("\r\n\r\n").filter(Boolean);
    expect(events).toHaveLength(2);
    expect(events.every((event) => event.startsWith("data: "))).toBe(true);
    expect(JSON.parse(events[1]!.slice(6))).toMatchObject({
      candidates: [{ content: { parts: [{ text: "words" }] }, finishReason: "STOP" }],
      usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 7 },
      modelVersion: "gemini-x",
    });
    expect(server.requests.map((r) => r.protocol)).toEqual(["google", "google"]);
  });

  it("answers GET /api/tags and /v1/models without consuming the script", async () => {
    server = await startFakeModelServer({ replies: [{ text: "kept" }] });
    expect((await fetch(`${server.url}/api/tags`)).status).toBe(200);
    expect((await fetch(`${server.openaiBaseUrl}/models`)).status).toBe(200);
    expect(server.remaining).toBe(1);
  });

  it("says the script is exhausted with a 500 instead of hanging", async () => {
    server = await startFakeModelServer();
    const response = await post("/v1/messages", { model: "c", stream: true });
    expect(response.status).toBe(500);
    expect(await response.text()).toContain("fake model server: script exhausted");
  });

  it("closes while a request hangs", async () => {
    server = await startFakeModelServer({ replies: [{ fault: "hang" }] });
    const hanging = post("/v1/chat/completions", { model: "m", stream: true }).catch(
      (error: unknown) => error,
    );
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await server.close();
    expect(await hanging).toBeInstanceOf(Error);
    server = undefined;
  });

  it("answers OpenAI embeddings with usage, without consuming the chat script", async () => {
    server = await startFakeModelServer({ replies: [{ text: "kept" }], embeddingDimensions: 8 });
    const response = await post("/v1/embeddings", { model: "m", input: "one two three" });
    const body = (await response.json()) as {
      data: { index: number; embedding: number[] }[];
      usage: { prompt_tokens: number };
    };
    expect(body.data).toEqual([
      { object: "embedding", index: 0, embedding: fakeEmbedding("one two three", 8) },
    ]);
    expect(body.usage.prompt_tokens).toBe(3);
    expect(server.remaining).toBe(1);
    expect(server.requests[0]?.protocol).toBe("openai-embeddings");
  });

  it("enforces Google's 100-request batch limit and matching model names", async () => {
    server = await startFakeModelServer();
    const request = (model: string) => ({ model, content: { parts: [{ text: "t" }] } });
    const path = "/v1beta/models/gemini-embedding-001:batchEmbedContents";
    const batch = (n: number, model: string) => ({
      requests: Array.from({ length: n }, () => request(model)),
    });
    const tooMany = await post(path, batch(101, "models/gemini-embedding-001"));
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as { error: { message: string } }).error.message).toMatch(/at most 100/);
    expect((await post(path, batch(1, "models/other"))).status).toBe(400);
    const ok = await post(path, batch(1, "models/gemini-embedding-001"));
    expect(((await ok.json()) as { embeddings: unknown[] }).embeddings).toHaveLength(1);
  });
});
