// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} in .mcp.json is what the test writes
// End to end through the CLI: a project's .mcp.json server, approved with --allow-mcp, gives
// the model a tool it calls in a scripted run against the fake model server; unapproved, the
// server never starts; and no server outlives reson, whether it exits or is killed.
import { chmodSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import { runCliIsolated } from "../support/pid-namespace.js";
import { skipWithout } from "../support/requirements.js";
import { TEST_SERVER } from "./servers.js";

function offeredTools(body: unknown): string[] {
  const tools = (body as { tools?: { function?: { name?: string } }[] }).tools ?? [];
  return tools.map((t) => t.function?.name ?? "");
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("an MCP tool in a reson run", () => {
  const f = useCliFixture();
  const logFile = () => join(f.home.path, "server-events.log");
  const writeMcpJson = () =>
    writeFileSync(
      join(f.ws.path, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          tester: { command: process.execPath, args: [TEST_SERVER], env: { MCP_TEST_LOG: "${TEST_LOG}" } },
        },
      }),
    );
  const env = () => cleanEnv({ RESON_HOME: f.home.path, TEST_LOG: logFile() });
  const events = () => {
    try {
      return readFileSync(logFile(), "utf8").split("\n").filter(Boolean);
    } catch {
      return [];
    }
  };

  it("the model calls a project server's tool once the server is allowed, and the rule lets the call through", async () => {
    writeMcpJson();
    f.server.enqueue(
      { toolCalls: [{ name: "mcp__tester__echo", arguments: { text: "hello from MCP" } }] },
      { text: "done" },
    );
    const result = await runCli(
      [
        "run",
        "--json",
        ...fakeModelArgs(f.server),
        "--allow-mcp",
        "tester",
        "--allow",
        "mcp__tester",
        "echo it",
      ],
      { cwd: f.ws.path, env: env() },
    );
    expect(result.stderr).not.toContain("not started");
    expect(result.code).toBe(0);
    const toolResult = parseEvents(result.stdout).find((e) => e.type === "tool_result");
    expect(toolResult).toMatchObject({ ok: true });
    expect(JSON.stringify(toolResult)).toContain("hello from MCP");
    expect(offeredTools(f.server.requests[0]?.body)).toContain("mcp__tester__echo");
    expect(events().filter((e) => e.startsWith("started"))).toHaveLength(1);
  });

  it("headless, an unapproved project server never starts, and the warning says how to allow it", async () => {
    writeMcpJson();
    f.server.enqueue({ text: "nothing to do" });
    const result = await runCli(["run", "--json", ...fakeModelArgs(f.server), "hello"], {
      cwd: f.ws.path,
      env: env(),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('MCP server "tester" not started');
    expect(result.stderr).toContain("--allow-mcp tester");
    expect(offeredTools(f.server.requests[0]?.body).some((n) => n.startsWith("mcp__"))).toBe(false);
    expect(events()).toEqual([]);
  });

  it("a required server that cannot start fails the run at start with mcp_unavailable", async () => {
    writeFileSync(
      join(f.home.path, "config.json"),
      JSON.stringify({ mcp: { servers: { broken: { command: "/nonexistent/server", required: true } } } }),
    );
    const result = await runCli(["run", "--json", ...fakeModelArgs(f.server), "hello"], {
      cwd: f.ws.path,
      env: env(),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('required MCP server "broken"');
    expect(f.server.requests).toHaveLength(0);
  });

  it("a server that cannot start, not required, is skipped with a warning and the run goes on", async () => {
    writeFileSync(
      join(f.home.path, "config.json"),
      JSON.stringify({
        mcp: {
          servers: {
            broken: { command: "/nonexistent/server" },
            other: { url: "http://127.0.0.1:9/${PATH_PART:-mcp}" },
          },
        },
      }),
    );
    f.server.enqueue({ text: "fine without it" });
    const result = await runCli(["run", "--json", ...fakeModelArgs(f.server), "hello"], {
      cwd: f.ws.path,
      env: env(),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('MCP server "broken" did not start');
    expect(result.stderr).toContain('MCP server "other" did not start');
    expect(parseEvents(result.stdout).find((e) => e.type === "run_end")).toMatchObject({
      status: "completed",
    });
  });

  it("a killed reson leaves no MCP server behind: the server sees its stdin close and exits", async () => {
    writeMcpJson();
    f.server.enqueue(
      { toolCalls: [{ name: "mcp__tester__wait", arguments: { ms: 60_000 } }] },
      { text: "done" },
    );
    let serverPid: number | undefined;
    await runCli(
      [
        "run",
        "--json",
        ...fakeModelArgs(f.server),
        "--allow-mcp",
        "tester",
        "--allow",
        "mcp__tester",
        "wait",
      ],
      {
        cwd: f.ws.path,
        env: env(),
        onStdout: (chunk, child) => {
          if (!chunk.includes('"tool_call"')) return;
          const started = events().find((e) => e.startsWith("started"));
          serverPid = Number(started?.split(" ")[1]);
          child.kill("SIGKILL");
        },
      },
    ).catch(() => undefined);
    expect(serverPid).toBeGreaterThan(0);
    await expect.poll(() => alive(serverPid as number), { timeout: 10_000 }).toBe(false);
  });
});

describe.skipIf(await skipWithout("sandbox", "MCP servers left behind"))("MCP servers left behind", () => {
  const f = useCliFixture();
  it("a run that used an MCP server leaves no process behind when it ends", async () => {
    writeFileSync(
      join(f.home.path, "config.json"),
      JSON.stringify({ mcp: { servers: { tester: { command: process.execPath, args: [TEST_SERVER] } } } }),
    );
    f.server.enqueue(
      { toolCalls: [{ name: "mcp__tester__echo", arguments: { text: "x" } }] },
      { text: "done" },
    );
    const result = await runCliIsolated(
      ["run", "--json", ...fakeModelArgs(f.server), "--allow", "mcp__tester", "echo"],
      f.home.path,
      { cwd: f.ws.path, env: cleanEnv({ RESON_HOME: f.home.path }) },
    );
    expect(result.code).toBe(0);
    expect(JSON.stringify(parseEvents(result.stdout).find((e) => e.type === "tool_result"))).toContain(
      '"ok":true',
    );
    expect(result.left.filter((p) => p.state !== "Z")).toEqual([]);
  });
});

describe("tool search in a run", () => {
  const f = useCliFixture();
  it("with many MCP tools and a small context, the model finds a tool with tool_search and calls it by name", async () => {
    writeFileSync(
      join(f.home.path, "config.json"),
      JSON.stringify({
        contextWindow: 32_000,
        mcp: {
          servers: { many: { command: process.execPath, args: [TEST_SERVER], env: { MCP_TEST_MANY: "80" } } },
        },
      }),
    );
    f.server.enqueue(
      { toolCalls: [{ name: "tool_search", arguments: { query: "select:mcp__many__filler_42" } }] },
      { toolCalls: [{ name: "mcp__many__filler_42", arguments: { query: "needle" } }] },
      { text: "done" },
    );
    const result = await runCli(
      ["run", "--json", ...fakeModelArgs(f.server), "--allow", "mcp__many", "find it"],
      {
        cwd: f.ws.path,
        env: cleanEnv({ RESON_HOME: f.home.path }),
      },
    );
    expect(result.code).toBe(0);
    const offered = offeredTools(f.server.requests[0]?.body);
    expect(offered).toContain("tool_search");
    expect(offered.some((n) => n.startsWith("mcp__"))).toBe(false);
    // The same set on every call of the session.
    expect(offeredTools(f.server.requests[2]?.body)).toEqual(offered);
    const results = parseEvents(result.stdout).filter((e) => e.type === "tool_result");
    expect(JSON.stringify(results[0])).toContain("mcp__many__filler_42");
    expect(results[1]).toMatchObject({ ok: true });
    expect(JSON.stringify(results[1])).toContain("filler 42: needle");
  });
});

describe("secrets and MCP servers", () => {
  const f = useCliFixture();
  it("a <secret> in a server's env is filled from the secrets file, and its value is masked in what comes back", async () => {
    const secrets = join(f.home.path, "secrets.json");
    writeFileSync(
      secrets,
      JSON.stringify({ [`workspace:${realpathSync(f.ws.path)}`]: { mcp_token: "s3cret-value-123" } }),
    );
    chmodSync(secrets, 0o600);
    writeFileSync(
      join(f.home.path, "config.json"),
      JSON.stringify({
        mcp: {
          servers: {
            tester: {
              command: process.execPath,
              args: [TEST_SERVER],
              env: { TOKEN: "<secret>mcp_token</secret>" },
            },
          },
        },
      }),
    );
    f.server.enqueue(
      { toolCalls: [{ name: "mcp__tester__env", arguments: { name: "TOKEN" } }] },
      { text: "done" },
    );
    const result = await runCli(
      ["run", "--json", ...fakeModelArgs(f.server), "--allow", "mcp__tester", "show it"],
      {
        cwd: f.ws.path,
        env: cleanEnv({ RESON_HOME: f.home.path }),
      },
    );
    expect(result.code).toBe(0);
    const toolResult = parseEvents(result.stdout).find((e) => e.type === "tool_result");
    expect(toolResult).toMatchObject({ ok: true });
    expect(JSON.stringify(toolResult)).toContain("<secret>mcp_token</secret>");
    expect(result.stdout).not.toContain("s3cret-value-123");
    expect(JSON.stringify(f.server.requests.map((r) => r.body))).not.toContain("s3cret-value-123");
  });
  it("a server's secret scoped elsewhere: the hint's example, written as told, lets the next run have it", async () => {
    const secrets = join(f.home.path, "secrets.json");
    writeFileSync(
      secrets,
      JSON.stringify({ "workspace:/somewhere/else": { mcp_token: "s3cret-value-123" } }),
    );
    chmodSync(secrets, 0o600);
    writeFileSync(
      join(f.home.path, "config.json"),
      JSON.stringify({
        mcp: {
          servers: {
            tester: {
              command: process.execPath,
              args: [TEST_SERVER],
              env: { TOKEN: "<secret>mcp_token</secret>" },
            },
          },
        },
      }),
    );
    const run = () => {
      f.server.enqueue(
        { toolCalls: [{ name: "mcp__tester__env", arguments: { name: "TOKEN" } }] },
        { text: "done" },
      );
      return runCli(["run", "--json", ...fakeModelArgs(f.server), "--allow", "mcp__tester", "show it"], {
        cwd: f.ws.path,
        env: cleanEnv({ RESON_HOME: f.home.path }),
      });
    };
    const refused = await run();
    expect(refused.stderr).toContain('MCP server "tester" uses secrets it cannot have: mcp_token');
    const example = /as in (\{ .*? \} \})/.exec(refused.stderr)?.[1];
    expect(example).toBeDefined();
    writeFileSync(secrets, example!.replace('"…"', '"s3cret-value-123"'));
    const result = await run();
    expect(result.code).toBe(0);
    const toolResult = parseEvents(result.stdout).find((e) => e.type === "tool_result");
    expect(toolResult).toMatchObject({ ok: true });
    expect(JSON.stringify(toolResult)).toContain("<secret>mcp_token</secret>");
  });
});
