// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${TOKEN} is the header README writes into .mcp.json
// README "MCP": a project's .mcp.json as Claude Code writes it, read by `reson mcp list` and by
// a headless run; and the `reson mcp` commands as written in a user's shell. The servers named
// live on the network (npx fetching a package, mcp.example.com), which the tests do not reach:
// what can be seen offline is checked (each server is read, project servers wait for approval,
// an unset ${VAR} stops its server by name, `mcp test` says why a server does not start).
//
// Harness variables: RESON_PROVIDER=openai-compatible, RESON_BASE_URL and RESON_MODEL point at
// the fake model server, beside cleanEnv's (test/support/cli.ts); the user's ~/.npmrc keeps npm
// offline (readme-user.ts).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { localModel } from "./readme-user.js";
import { reson, scenario, useModel, useShell, useUser } from "./scenario.js";

describe("README: MCP", () => {
  scenario('{ "mcpServers": {', async (block) => {
    const model = await useModel({ replies: [{ text: "ok" }, { text: "ok" }] });
    const user = useUser(localModel(model));
    writeFileSync(join(user.work, ".mcp.json"), block.body);
    const listed = await reson(user, ["mcp", "list", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const source = join(user.work, ".mcp.json");
    expect(JSON.parse(listed.stdout).servers).toEqual([
      expect.objectContaining({
        name: "fs",
        scope: "project",
        source,
        transport: "stdio",
        status: "needs approval",
      }),
      expect.objectContaining({
        name: "remote",
        scope: "project",
        source,
        transport: "http",
        status: "needs approval",
      }),
    ]);
    // A headless run starts neither without approval, and says how to allow each.
    const run = await reson(user, ["run", "hello"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('MCP server "fs" not started');
    expect(run.stderr).toContain("--allow-mcp remote");
    // Allowed, the remote server's header needs EXAMPLE_TOKEN, which this user has not set.
    const allowed = await reson(user, ["run", "--allow-mcp", "remote", "hello"]);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stderr).toContain('MCP server "remote" uses EXAMPLE_TOKEN, which is not set');
  });

  scenario("reson mcp list [--json]", async (block) => {
    const user = useUser();
    const shell = useShell(block, user);
    const config = () => JSON.parse(readFileSync(join(user.home, ".reson/config.json"), "utf8"));

    const empty = await shell.runBoth("reson mcp list [--json]");
    expect(JSON.parse(empty.with.stdout)).toEqual({ servers: [] });
    await shell.run("reson mcp add github -- npx -y @modelcontextprotocol/server-github");
    expect(config().mcp.servers.github).toEqual({
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-github"],
    });
    // npm is offline here, so npx cannot fetch the server: the test says why.
    const test = await shell.run("reson mcp test github", { code: 1 });
    expect(test.stdout + test.stderr).toContain("ENOTCACHED");
    expect(test.stderr).toContain('"github"');
    await shell.run("reson mcp add --scope project --transport http --header");
    expect(JSON.parse(readFileSync(join(user.work, ".mcp.json"), "utf8")).mcpServers.docs).toEqual({
      type: "http",
      url: "https://docs.example.com/mcp",
      headers: { Authorization: "Bearer ${TOKEN}" },
    });
    const listed = JSON.parse((await shell.probe("reson mcp list --json")).stdout) as {
      servers: { name: string }[];
    };
    expect(listed.servers.map((server) => server.name).sort()).toEqual(["docs", "github"]);
    await shell.run("reson mcp remove github");
    await shell.run("reson mcp remove --scope project docs");
    shell.end();
    expect(JSON.parse((await shell.probe("reson mcp list --json")).stdout)).toEqual({ servers: [] });
  });
});
