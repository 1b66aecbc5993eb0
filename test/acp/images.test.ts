// Images in an editor's prompt, driven by the ACP SDK's client over stdio against the fake model
// server: each of the three wire protocols receives the image in its own shape, the image is
// stored with its turn (session/load shows it, the next task's history carries it), and what
// cannot be taken (a text-only model, a format or size the providers refuse) is a JSON-RPC
// parameter error while the process keeps serving.
import { methods } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { type AcpProcess, acpEnv, agentText, startAcp, updatesOf } from "../support/acp-client.js";
import { useCliFixture } from "../support/cli-fixture.js";
import type { FakeModelServer } from "../support/fake-model-server.js";

/** A 1×1 PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

type Protocol = "openai" | "anthropic" | "google";

/** The environment that makes `reson acp` use `protocol`'s provider against the fake server. */
function providerEnv(protocol: Protocol, server: FakeModelServer): Record<string, string> {
  switch (protocol) {
    case "openai":
      return {
        RESON_PROVIDER: "openai",
        RESON_BASE_URL: server.openaiBaseUrl,
        RESON_MODEL: "gpt-4o",
        OPENAI_API_KEY: "test-key",
      };
    case "anthropic":
      return {
        RESON_PROVIDER: "anthropic",
        RESON_BASE_URL: server.anthropicBaseUrl,
        RESON_MODEL: "claude-sonnet-4-5",
        ANTHROPIC_API_KEY: "test-key",
      };
    case "google":
      return {
        RESON_PROVIDER: "google",
        RESON_BASE_URL: server.googleBaseUrl,
        RESON_MODEL: "gemini-2.5-flash",
        GEMINI_API_KEY: "test-key",
      };
  }
}

/** The image as `protocol` carries it in a user message. */
const WIRE_IMAGE: Record<Protocol, unknown> = {
  openai: { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
  anthropic: { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
  google: { inlineData: { mimeType: "image/png", data: PNG } },
};

/** The parts of every user message of a request body, in the protocol's own fields. */
function userParts(protocol: Protocol, body: unknown): unknown[] {
  const request = body as {
    messages?: { role: string; content: unknown }[];
    contents?: { role: string; parts: unknown[] }[];
  };
  if (protocol === "google")
    return (request.contents ?? []).filter((c) => c.role === "user").flatMap((c) => c.parts);
  return (request.messages ?? [])
    .filter((m) => m.role === "user")
    .flatMap((m) => (Array.isArray(m.content) ? m.content : [m.content]));
}

describe("reson acp: images in prompts", () => {
  const f = useCliFixture();
  const started: AcpProcess[] = [];
  afterEach(async () => {
    for (const acp of started.splice(0)) await acp.close();
  });

  async function begin(extra: Record<string, string>) {
    const acp = startAcp({ env: acpEnv(f, extra) });
    started.push(acp);
    return { acp, init: await acp.initialize() };
  }

  const imagePrompt = (acp: AcpProcess, sessionId: string, data = PNG, mimeType = "image/png") =>
    acp.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: "text", text: "What is in this picture?" },
        { type: "image", data, mimeType },
      ],
    });

  it.each<Protocol>(["openai", "anthropic", "google"])(
    "with %s's protocol the model receives the prompt's image in its wire shape, and initialize offers images",
    async (protocol) => {
      f.server.enqueue({ text: "A single pixel." });
      const { acp, init } = await begin(providerEnv(protocol, f.server));
      expect(init.agentCapabilities?.promptCapabilities?.image).toBe(true);
      const { sessionId } = await acp.connection.agent.request(methods.agent.session.new, {
        cwd: f.ws.path,
        mcpServers: [],
      });
      expect((await imagePrompt(acp, sessionId)).stopReason).toBe("end_turn");
      expect(agentText(acp.updates)).toContain("A single pixel.");
      const parts = userParts(protocol, f.server.requests.at(-1)?.body);
      expect(parts).toContainEqual(expect.objectContaining(WIRE_IMAGE[protocol]));
      expect(JSON.stringify(parts)).toContain("What is in this picture?");
    },
  );

  it("the image is stored with its turn: session/load in a new process shows it, and the next task's history carries it", async () => {
    const env = providerEnv("anthropic", f.server);
    f.server.enqueue({ text: "A single pixel." });
    const first = await begin(env);
    const { sessionId } = await first.acp.connection.agent.request(methods.agent.session.new, {
      cwd: f.ws.path,
      mcpServers: [],
    });
    await imagePrompt(first.acp, sessionId);
    first.acp.child.kill("SIGKILL");
    await first.acp.exited;

    const second = await begin(env);
    await second.acp.connection.agent.request(methods.agent.session.load, {
      sessionId,
      cwd: f.ws.path,
      mcpServers: [],
    });
    expect(updatesOf(second.acp.updates, "user_message_chunk").map((u) => u.content)).toEqual([
      { type: "text", text: "What is in this picture?" },
      { type: "image", data: PNG, mimeType: "image/png" },
    ]);
    f.server.enqueue({ text: "Still one pixel." });
    await second.acp.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "And its colour?" }],
    });
    expect(userParts("anthropic", f.server.requests.at(-1)?.body)).toContainEqual(
      expect.objectContaining(WIRE_IMAGE.anthropic),
    );
  });

  it("a text-only model says so at initialize and refuses an image with a parameter error, then keeps serving", async () => {
    const { acp, init } = await begin({});
    expect(init.agentCapabilities?.promptCapabilities?.image).toBe(false);
    const { sessionId } = await acp.connection.agent.request(methods.agent.session.new, {
      cwd: f.ws.path,
      mcpServers: [],
    });
    const refused = await imagePrompt(acp, sessionId).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: -32602, message: expect.stringMatching(/reads text only/) });
    expect(f.server.requests).toHaveLength(0);
    f.server.enqueue({ text: "still here" });
    const answer = await acp.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hello" }],
    });
    expect(answer.stopReason).toBe("end_turn");
  });

  it("an image over 5 MB, of another format, or whose bytes are not its type is a parameter error that says which", async () => {
    const { acp } = await begin(providerEnv("openai", f.server));
    const { sessionId } = await acp.connection.agent.request(methods.agent.session.new, {
      cwd: f.ws.path,
      mcpServers: [],
    });
    const big = Buffer.alloc(5 * 1024 * 1024 + 1);
    Buffer.from(PNG, "base64").copy(big);
    const cases: [string, string, RegExp][] = [
      [big.toString("base64"), "image/png", /5\.0 MB/],
      [Buffer.from("BM fake bitmap").toString("base64"), "image/bmp", /PNG, JPEG, GIF or WebP/],
      [PNG, "image/jpeg", /not JPEG/],
      ["not base64!", "image/png", /not base64/],
    ];
    for (const [data, mimeType, message] of cases) {
      const refused = await imagePrompt(acp, sessionId, data, mimeType).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: -32602, message: expect.stringMatching(message) });
    }
    expect(f.server.requests).toHaveLength(0);
    expect(acp.child.exitCode).toBeNull();
  });
});
