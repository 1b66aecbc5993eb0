// End to end in the interactive terminal: a project's MCP server is started only after the
// user says yes (remembered for that definition), and a server's prompt is a slash command.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";
import { type ReplSession, startRepl } from "../support/repl-session.js";
import { EVERYTHING } from "./servers.js";

describe("MCP in the interactive terminal", () => {
  let server: FakeModelServer;
  let ws: TempDir;
  let home: TempDir;
  let repl: ReplSession | undefined;

  beforeEach(async () => {
    server = await startFakeModelServer();
    ws = tempDir();
    home = tempDir();
    writeFileSync(
      join(ws.path, ".mcp.json"),
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
      }),
    );
  });
  afterEach(async () => {
    if (repl && repl.child.exitCode === null) repl.child.kill("SIGKILL");
    repl = undefined;
    await server.close();
    ws.remove();
    home.remove();
  });

  const open = () => {
    repl = startRepl(
      ["--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "fake-model"],
      ws.path,
      cleanEnv({ RESON_HOME: home.path }),
    );
    return repl;
  };

  it("asks before starting a project server, remembers the yes, and runs a server prompt as a task", async () => {
    const first = open();
    await first.waitFor('The project defines the MCP server "everything"');
    await first.waitFor("Start it? [y]");
    first.send("y");
    await first.waitFor("reson> ");
    server.enqueue({ text: "PROMPT-DONE" });
    first.send("/mcp__everything__args-prompt Lyon");
    await first.waitFor("PROMPT-DONE");
    expect(JSON.stringify(server.requests[0]?.body)).toContain("Lyon");
    expect(JSON.stringify(server.requests[0]?.body)).toContain("mcp__everything__echo");
    first.send("/exit");
    await first.exited;
    const approvals = JSON.parse(readFileSync(join(home.path, "mcp-approvals.json"), "utf8"));
    expect(Object.values(approvals.workspaces)[0]).toHaveProperty("everything");

    // The same definition: no question the second time.
    const second = open();
    await second.waitFor("reson> ");
    expect(second.output).not.toContain("Start it?");
    second.send("/exit");
    await second.exited;
  });

  it("a no starts nothing and is not remembered", async () => {
    const session = open();
    await session.waitFor("Start it? [y]");
    session.send("n");
    await session.waitFor('MCP server "everything" not started');
    await session.waitFor("reson> ");
    session.send("/exit");
    await session.exited;
    expect(existsSync(join(home.path, "mcp-approvals.json"))).toBe(false);
  });
});
