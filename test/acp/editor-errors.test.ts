// The errors an editor's user can do something about say what, in the editor's terms: a missing
// or rejected provider key names the variable and where the editor's agent settings keep its
// environment (an editor has no --api-key to pass), and a session another reson process is
// running is an error of the request (not reson failing) whose message says to wait or start a
// new session.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { methods } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { type AcpProcess, type AcpProcessOptions, acpEnv, startAcp } from "../support/acp-client.js";
import { useCliFixture } from "../support/cli-fixture.js";
import { WAITING_COMMAND } from "../support/waiting-command.js";

interface RpcFailure {
  code: number;
  message: string;
  data: { code: string; hint?: string };
}

describe("reson acp: errors an editor's user can act on", () => {
  const f = useCliFixture();
  const started: AcpProcess[] = [];
  afterEach(async () => {
    for (const acp of started.splice(0)) await acp.close();
  });

  async function begin(options: Partial<AcpProcessOptions> = {}) {
    const acp = startAcp({ env: acpEnv(f), ...options });
    started.push(acp);
    await acp.initialize();
    return acp;
  }

  const newSession = (acp: AcpProcess) =>
    acp.connection.agent.request(methods.agent.session.new, { cwd: f.ws.path, mcpServers: [] });

  const prompt = (acp: AcpProcess, sessionId: string, text: string) =>
    acp.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text }],
    });

  it("without the provider's key, session/new says to set its variable in the editor's agent settings, not to pass --api-key", async () => {
    const acp = await begin({ env: acpEnv(f, { RESON_PROVIDER: "anthropic", RESON_BASE_URL: "" }) });
    const failure = (await newSession(acp).catch((error: unknown) => error)) as RpcFailure;
    expect(failure).toMatchObject({ code: -32000, data: { code: "no_provider_configured" } });
    expect(failure.data.hint).toContain("set ANTHROPIC_API_KEY in");
    expect(failure.data.hint).toContain("agent settings");
    expect(failure.data.hint).not.toContain("--api-key");
  });

  it("a key the provider rejects: the prompt's error says where the editor keeps the key, not --api-key", async () => {
    f.server.enqueue({ fault: "http", status: 401, message: "invalid api key" });
    const acp = await begin({ env: acpEnv(f, { RESON_API_KEY: "sk-wrong-key-0123456789" }) });
    const { sessionId } = await newSession(acp);
    const failure = (await prompt(acp, sessionId, "hello").catch((error: unknown) => error)) as RpcFailure;
    expect(failure).toMatchObject({ code: -32000, data: { code: "provider_auth_failed" } });
    expect(failure.data.hint).toContain("set RESON_API_KEY in");
    expect(failure.data.hint).toContain("agent settings");
    expect(failure.data.hint).not.toContain("--api-key");
  });

  it("a session another reson process is running: the prompt is refused as the request's error, saying to wait or start a new session", async () => {
    f.server.setResponder((request) =>
      JSON.stringify(request.body).includes('"role":"tool"')
        ? { text: "finished" }
        : {
            toolCalls: [
              { id: "call_slow", name: "execute_command", arguments: { command: WAITING_COMMAND } },
            ],
          },
    );
    const first = await begin({ args: ["--sandbox", "off", "--allow", "execute_command"] });
    const { sessionId } = await newSession(first);
    const running = prompt(first, sessionId, "run the slow command");
    for (let i = 0; i < 400 && !existsSync(join(f.ws.path, "started.txt")); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(join(f.ws.path, "started.txt"))).toBe(true);

    const second = await begin();
    await second.connection.agent.request(methods.agent.session.load, {
      sessionId,
      cwd: f.ws.path,
      mcpServers: [],
    });
    const failure = (await prompt(second, sessionId, "and this?").catch(
      (error: unknown) => error,
    )) as RpcFailure;
    expect(failure).toMatchObject({ code: -32602, data: { code: "run_leased" } });
    expect(failure.message).toContain("Another reson process is running this session");
    expect(failure.message).toContain("start a new session");

    writeFileSync(join(f.ws.path, "go"), "");
    expect((await running).stopReason).toBe("end_turn");
  });
});
