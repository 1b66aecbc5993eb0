// End to end in the interactive terminal: a project's MCP server is started only after the
// user says yes (remembered for that definition), and a server's prompt is a slash command.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useReplFixture } from "../support/repl-session.js";
import { EVERYTHING } from "./servers.js";

describe("MCP in the interactive terminal", () => {
  const f = useReplFixture(({ ws }) => {
    writeFileSync(
      join(ws.path, ".mcp.json"),
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
      }),
    );
  });

  it("asks before starting a project server, remembers the yes, and runs a server prompt as a task", async () => {
    const first = f.open();
    await first.waitFor('The project defines the MCP server "everything"');
    await first.waitFor("Start it? [y]");
    first.send("y");
    await first.waitFor("reson> ");
    f.server.enqueue({ text: "PROMPT-DONE" });
    first.send("/mcp__everything__args-prompt Lyon");
    await first.waitFor("PROMPT-DONE");
    expect(JSON.stringify(f.server.requests[0]?.body)).toContain("Lyon");
    expect(JSON.stringify(f.server.requests[0]?.body)).toContain("mcp__everything__echo");
    first.send("/exit");
    await first.exited;
    const approvals = JSON.parse(readFileSync(join(f.home.path, "mcp-approvals.json"), "utf8"));
    expect(Object.values(approvals.workspaces)[0]).toHaveProperty("everything");

    // The same definition: no question the second time.
    const second = f.open();
    await second.waitFor("reson> ");
    expect(second.output).not.toContain("Start it?");
    second.send("/exit");
    await second.exited;
  });

  it("a no starts nothing and is not remembered", async () => {
    const session = f.open();
    await session.waitFor("Start it? [y]");
    session.send("n");
    await session.waitFor('MCP server "everything" not started');
    await session.waitFor("reson> ");
    session.send("/exit");
    await session.exited;
    expect(existsSync(join(f.home.path, "mcp-approvals.json"))).toBe(false);
  });
});

describe("a project server that is the project's own script, in the interactive terminal", () => {
  const f = useReplFixture(({ ws }) => {
    mkdirSync(join(ws.path, "tools"));
    writeFileSync(
      join(ws.path, "tools", "server.mjs"),
      'process.argv.push("stdio");\nawait import(process.env.REAL_SERVER);\n',
    );
    writeFileSync(
      join(ws.path, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          tools: { command: process.execPath, args: ["tools/server.mjs"], env: { REAL_SERVER: EVERYTHING } },
        },
      }),
    );
  });

  it("names the files it runs, and asks again, naming the change, once one changed", async () => {
    const first = f.open();
    await first.waitFor("It runs these workspace files, outside the sandbox: tools/server.mjs.");
    await first.waitFor("Start it? [y]");
    first.send("y");
    await first.waitFor("reson> ");
    first.send("/exit");
    await first.exited;

    appendFileSync(join(f.ws.path, "tools", "server.mjs"), "// changed\n");
    const second = f.open();
    await second.waitFor("since then these files it runs changed");
    expect(second.output).toContain("tools/server.mjs");
    await second.waitFor("Start it? [y]");
    second.send("n");
    await second.waitFor('MCP server "tools" not started');
    await second.waitFor("reson> ");
    second.send("/exit");
    await second.exited;
  });
});
