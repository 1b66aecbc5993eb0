// `reson mcp add|list|remove|test` as a user types them.
import { appendFileSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { approve } from "../../src/mcp/approval.js";
import { serverFiles } from "../../src/mcp/server-files.js";
import { cleanEnv, runCli, type TempDir, tempDir } from "../support/cli.js";
import { TEST_SERVER } from "./servers.js";

let ws: TempDir;
let home: TempDir;
beforeEach(() => {
  ws = tempDir();
  home = tempDir();
});
afterEach(() => {
  ws.remove();
  home.remove();
});

const mcp = (...args: string[]) =>
  runCli(["mcp", ...args], { cwd: ws.path, env: cleanEnv({ RESON_HOME: home.path }), timeoutMs: 60_000 });

describe("reson mcp", () => {
  it("add writes the user's config, list shows its tools and schema tokens, remove takes it away", async () => {
    const added = await mcp("add", "--env", "MODE=test", "tester", "--", process.execPath, TEST_SERVER);
    expect(added.code).toBe(0);
    const config = JSON.parse(readFileSync(join(home.path, "config.json"), "utf8"));
    expect(config.mcp.servers.tester).toEqual({
      command: process.execPath,
      args: [TEST_SERVER],
      env: { MODE: "test" },
    });

    const listed = await mcp("list", "--json");
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout).servers;
    expect(rows).toEqual([
      expect.objectContaining({ name: "tester", scope: "user", transport: "stdio", status: "ok", tools: 4 }),
    ]);
    expect(rows[0].schemaTokens).toBeGreaterThan(0);

    const text = await mcp("list");
    expect(text.stdout).toMatch(/tester\s+user\s+stdio\s+ok\s+4/);

    expect((await mcp("remove", "tester")).code).toBe(0);
    expect(JSON.parse(readFileSync(join(home.path, "config.json"), "utf8")).mcp.servers).toEqual({});
    const missing = await mcp("remove", "tester");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no MCP server "tester"');
  });

  it("a project server added to .mcp.json needs approval: list says so, test refuses headless without --allow-mcp", async () => {
    const added = await mcp("add", "--scope", "project", "tester", "--", process.execPath, TEST_SERVER);
    expect(added.code).toBe(0);
    expect(JSON.parse(readFileSync(join(ws.path, ".mcp.json"), "utf8"))).toEqual({
      mcpServers: { tester: { command: process.execPath, args: [TEST_SERVER] } },
    });
    const listed = JSON.parse((await mcp("list", "--json")).stdout).servers;
    expect(listed).toEqual([
      expect.objectContaining({ name: "tester", scope: "project", status: "needs approval" }),
    ]);

    const refused = await mcp("test", "tester");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("--allow-mcp tester");

    const tested = await mcp("test", "tester", "--allow-mcp", "tester");
    expect(tested.code).toBe(0);
    expect(tested.stdout).toContain("OK: 4 tools");
    expect(tested.stdout).toContain("mcp__tester__echo (read-only hint)");
  });

  it("a project server whose script changed since it was approved: list names the change", async () => {
    mkdirSync(join(ws.path, "tools"));
    writeFileSync(join(ws.path, "tools", "server.mjs"), "await import(process.env.REAL_SERVER);\n");
    const definition = {
      command: process.execPath,
      args: ["tools/server.mjs"],
      env: { REAL_SERVER: TEST_SERVER },
    };
    writeFileSync(join(ws.path, ".mcp.json"), JSON.stringify({ mcpServers: { tools: definition } }));
    const workspace = realpathSync(ws.path);
    // The user's yes in the terminal records the definition and the files it runs.
    await approve(
      home.path,
      workspace,
      "tools",
      definition,
      await serverFiles(definition, workspace, process.env),
    );
    const approved = JSON.parse((await mcp("list", "--json")).stdout).servers;
    expect(approved).toEqual([expect.objectContaining({ name: "tools", status: "ok", tools: 4 })]);

    appendFileSync(join(ws.path, "tools", "server.mjs"), "// changed\n");
    const listed = JSON.parse((await mcp("list", "--json")).stdout).servers;
    expect(listed).toEqual([
      expect.objectContaining({
        name: "tools",
        status: "changed since approved",
        changed: ["tools/server.mjs"],
      }),
    ]);
    const text = await mcp("list");
    expect(text.stdout).toContain("tools: tools/server.mjs changed since you approved it");
  });

  it("a server that cannot start is reported failed with the reason", async () => {
    await mcp("add", "broken", "--", "/nonexistent/mcp-server");
    const listed = await mcp("list");
    expect(listed.stdout).toMatch(/broken\s+user\s+stdio\s+failed/);
    const tested = await mcp("test", "broken");
    expect(tested.code).toBe(1);
    expect(tested.stderr).toContain("Cannot start MCP server");
  });
});
