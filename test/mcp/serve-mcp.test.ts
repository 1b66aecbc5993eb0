// MCP servers in a service run: `reson serve` starts the user's MCP servers (from
// $RESON_HOME/config.json) for a run posted over HTTP, the model calls one of their tools, and
// the server is stopped when the run ends; a project's server, which no one is there to
// approve, is left out with a warning in serve's log and the run goes on.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { processAlive } from "../../src/core/process-alive.js";
import { oneCallThenAnswer, runServed, startServed, useServedFixture } from "../support/served-run.js";
import { TEST_SERVER } from "./servers.js";

describe("MCP servers in reson serve", () => {
  const f = useServedFixture(
    oneCallThenAnswer({ name: "mcp__tester__echo", arguments: { text: "served" } }, "Echoed."),
  );

  it("starts the user's servers for a run posted over HTTP, offers their tools, and stops them after", async () => {
    mkdirSync(f.ws.home, { recursive: true });
    const log = join(f.ws.home, "mcp-events.log");
    writeFileSync(
      join(f.ws.home, "config.json"),
      JSON.stringify({
        mcp: {
          servers: { tester: { command: process.execPath, args: [TEST_SERVER], env: { MCP_TEST_LOG: log } } },
        },
      }),
    );
    // A project's server: not approved, and no one to ask.
    writeFileSync(
      join(f.ws.path, ".mcp.json"),
      JSON.stringify({ mcpServers: { project: { command: process.execPath, args: [TEST_SERVER] } } }),
    );
    const served = await startServed(f.ws.home, f.ws.path);
    const { status, events } = await runServed(served, {
      task: "echo something",
      workspace: f.ws.path,
      provider: "openai-compatible",
      baseUrl: f.model.openaiBaseUrl,
      model: "fake-model",
      sandbox: "off",
      // An MCP tool is gated like any tool that may change things: allowed by a rule here.
      allow: ["mcp__tester__echo"],
    });
    expect(status, served.process.stderr()).toBe("completed");
    expect(events.find((e) => e.type === "tool_result")?.data).toMatchObject({
      name: "mcp__tester__echo",
      ok: true,
      content: expect.stringContaining("served"),
    });
    // The project's server was left out, and serve's log says why.
    await served.process.waitFor(/MCP server \\"project\\" not started/, 5_000);
    // The user's server started once, for the run, and is gone once the run ended.
    const started = readFileSync(log, "utf8")
      .split("\n")
      .flatMap((line) => /^started (\d+)$/.exec(line)?.[1] ?? []);
    expect(started).toHaveLength(1);
    const pid = Number(started[0]);
    for (let tries = 0; tries < 50 && processAlive(pid); tries++)
      await new Promise((r) => setTimeout(r, 100));
    expect(processAlive(pid)).toBe(false);
  });
});
