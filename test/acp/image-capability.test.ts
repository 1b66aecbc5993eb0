// What initialize says of images is what the sessions' model does: a provider named only in
// $RESON_HOME/config.json and a text-only model picked with -m are seen before the first session,
// and a session whose model changes to a text-only one (/model) refuses an image with a
// parameter error, and takes one again once the model reads images.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { methods } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { type AcpProcess, agentText, startAcp } from "../support/acp-client.js";
import { cleanEnv } from "../support/cli.js";
import { useCliFixture } from "../support/cli-fixture.js";

/** A 1×1 PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

describe("reson acp: initialize's image capability", () => {
  const f = useCliFixture();
  const started: AcpProcess[] = [];
  afterEach(async () => {
    for (const acp of started.splice(0)) await acp.close();
  });

  async function session(env: NodeJS.ProcessEnv, args: string[] = []) {
    const acp = startAcp({ env, args });
    started.push(acp);
    const image = (await acp.initialize()).agentCapabilities?.promptCapabilities?.image;
    const { sessionId } = await acp.connection.agent.request(methods.agent.session.new, {
      cwd: f.ws.path,
      mcpServers: [],
    });
    const prompt = (text: string, withImage: boolean) =>
      acp.connection.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [
          { type: "text", text },
          ...(withImage ? [{ type: "image" as const, data: PNG, mimeType: "image/png" }] : []),
        ],
      });
    return { acp, image, prompt };
  }

  /** OpenAI against the fake server, its default model (which reads images) unless `extra` says otherwise. */
  const openaiEnv = (extra: Record<string, string> = {}) =>
    cleanEnv({
      RESON_HOME: f.home.path,
      RESON_PROVIDER: "openai",
      RESON_BASE_URL: f.server.openaiBaseUrl,
      OPENAI_API_KEY: "test-key",
      ...extra,
    });
  /** An image prompt's refusal: a parameter error naming `model`, and no model call. */
  const expectTextOnly = async (refusal: Promise<unknown>, model: string) => {
    const refused = await refusal.catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: -32602,
      message: expect.stringMatching(new RegExp(`${model} reads text only`)),
    });
    expect(f.server.requests).toHaveLength(0);
  };

  const userConfig = (values: Record<string, string>) =>
    writeFileSync(join(f.home.path, "config.json"), JSON.stringify(values));

  it("a provider named only in $RESON_HOME/config.json decides it: yes for Anthropic, and the image reaches the model", async () => {
    userConfig({ provider: "anthropic", baseUrl: f.server.anthropicBaseUrl, model: "claude-sonnet-4-5" });
    const { image, prompt } = await session(
      cleanEnv({ RESON_HOME: f.home.path, ANTHROPIC_API_KEY: "test-key" }),
    );
    expect(image).toBe(true);
    f.server.enqueue({ text: "A single pixel." });
    expect((await prompt("What is in this picture?", true)).stopReason).toBe("end_turn");
    expect(JSON.stringify(f.server.requests.at(-1)?.body)).toContain(PNG);
  });

  it("a text-only server named only in config.json says no, though a hosted key is in the environment", async () => {
    userConfig({ provider: "openai-compatible", baseUrl: f.server.openaiBaseUrl, model: "fake-model" });
    const { image, prompt } = await session(
      cleanEnv({ RESON_HOME: f.home.path, OPENAI_API_KEY: "test-key" }),
    );
    expect(image).toBe(false);
    const refused = await prompt("What is in this picture?", true).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: -32602, message: expect.stringMatching(/reads text only/) });
    expect(f.server.requests).toHaveLength(0);
  });

  it("a text-only model picked with -m says no, where the provider's default model would say yes", async () => {
    const { image, prompt } = await session(openaiEnv(), ["-m", "o3-mini"]);
    expect(image).toBe(false);
    await expectTextOnly(prompt("What is in this picture?", true), "o3-mini");
  });

  it("a session switched to a text-only model with /model refuses an image, and takes one again after switching back", async () => {
    const { acp, image, prompt } = await session(openaiEnv({ RESON_MODEL: "gpt-4o" }));
    expect(image).toBe(true);
    await prompt("/model o3-mini", false);
    await expectTextOnly(prompt("What is in this picture?", true), "o3-mini");
    await prompt("/model gpt-4o", false);
    f.server.enqueue({ text: "A single pixel." });
    expect((await prompt("What is in this picture?", true)).stopReason).toBe("end_turn");
    expect(agentText(acp.updates)).toContain("A single pixel.");
    expect(JSON.stringify(f.server.requests.at(-1)?.body)).toContain(PNG);
  });
});
