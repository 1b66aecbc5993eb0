// MCP servers in a service run: `reson serve` starts the user's MCP servers (from
// $RESON_HOME/config.json) for a run posted over HTTP, the model calls one of their tools, and
// the server is stopped when the run ends; a project's server, which no one is there to
// approve, is left out with a warning in serve's log and the run goes on.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import {
  type FakeModelServer,
  type RecordedRequest,
  startFakeModelServer,
} from "../support/fake-model-server.js";
import { killAllReson, startReson } from "../support/service-process.js";
import { TEST_SERVER } from "./servers.js";

/** Calls the echo tool once, then answers. */
function scripted(request: RecordedRequest) {
  const messages = (request.body as { messages?: { role: string }[] }).messages ?? [];
  if (!messages.some((m) => m.role === "assistant"))
    return { toolCalls: [{ id: "call_echo", name: "mcp__tester__echo", arguments: { text: "served" } }] };
  return { text: "Echoed." };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("MCP servers in reson serve", () => {
  let model: FakeModelServer;
  let ws: TempDir;
  beforeEach(async () => {
    model = await startFakeModelServer({ respond: scripted });
    ws = tempDir();
  });
  afterEach(async () => {
    await killAllReson();
    await model.close();
    ws.remove();
  });

  it("starts the user's servers for a run posted over HTTP, offers their tools, and stops them after", async () => {
    mkdirSync(ws.home, { recursive: true });
    const log = join(ws.home, "mcp-events.log");
    writeFileSync(
      join(ws.home, "config.json"),
      JSON.stringify({
        mcp: {
          servers: { tester: { command: process.execPath, args: [TEST_SERVER], env: { MCP_TEST_LOG: log } } },
        },
      }),
    );
    // A project's server: not approved, and no one to ask.
    writeFileSync(
      join(ws.path, ".mcp.json"),
      JSON.stringify({ mcpServers: { project: { command: process.execPath, args: [TEST_SERVER] } } }),
    );
    const serve = startReson(["serve", "--port", "0", "--log-format", "json", "--workspace-root", ws.path], {
      env: cleanEnv({ RESON_HOME: ws.home }),
      cwd: ws.path,
    });
    const [, url] = await serve.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
    const headers = {
      authorization: `Bearer ${readFileSync(join(ws.home, "serve-token"), "utf8").trim()}`,
      "content-type": "application/json",
    };
    const posted = await fetch(`${url}/runs`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        task: "echo something",
        workspace: ws.path,
        provider: "openai-compatible",
        baseUrl: model.openaiBaseUrl,
        model: "fake-model",
        sandbox: "off",
        // An MCP tool is gated like any tool that may change things: allowed by a rule here.
        allow: ["mcp__tester__echo"],
      }),
    });
    expect(posted.status, await posted.clone().text()).toBe(202);
    const { id } = (await posted.json()) as { id: string };
    let status = "";
    for (let tries = 0; tries < 200 && !["completed", "failed"].includes(status); tries++) {
      await new Promise((r) => setTimeout(r, 100));
      status = ((await (await fetch(`${url}/runs/${id}`, { headers })).json()) as { status: string }).status;
    }
    expect(status, `${serve.stderr()}${serve.stdout()}`).toBe("completed");
    const { events } = (await (await fetch(`${url}/runs/${id}/events?format=json`, { headers })).json()) as {
      events: { type: string; data: Record<string, unknown> }[];
    };
    expect(events.find((e) => e.type === "tool_result")?.data).toMatchObject({
      name: "mcp__tester__echo",
      ok: true,
      content: expect.stringContaining("served"),
    });
    // The project's server was left out, and serve's log says why.
    await serve.waitFor(/MCP server \\"project\\" not started/, 5_000);
    // The user's server started once, for the run, and is gone once the run ended.
    const started = readFileSync(log, "utf8")
      .split("\n")
      .flatMap((line) => /^started (\d+)$/.exec(line)?.[1] ?? []);
    expect(started).toHaveLength(1);
    const pid = Number(started[0]);
    for (let tries = 0; tries < 50 && alive(pid); tries++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(false);
  });
});
