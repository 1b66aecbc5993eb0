// The fake server's own surface, for what the provider tests do not reach: plain JSON replies,
// the GET probes, and closing while requests hang.
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";

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
});
