// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} in a server definition is what the test writes
// End to end: what a user is told when an MCP server does not start. The server's own last
// stderr lines come with the warning or error (secrets masked, also in its log), a failure that
// looks like the network's says to pass proxy and CA variables through `env`, a startup timeout
// names startupTimeoutMs, every message names the server as configured, and a workspace
// folder that does not exist stops run, resume and the terminal before any server starts.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import { TEST_SERVER } from "./servers.js";

const TOKEN = "tok-very-secret-4711";

/** A stdio "server" that fails the way npx does behind a company certificate authority. */
const CERT_FAILURE = [
  "-e",
  [
    "console.error('npm error code UNABLE_TO_GET_ISSUER_CERT_LOCALLY');",
    "console.error('npm error request to https://registry.npmjs.org/x failed, token ' + process.env.REGISTRY_TOKEN);",
    "process.exit(1);",
  ].join(" "),
];

describe("an MCP server that does not start", () => {
  const f = useCliFixture();
  const env = (extra: Record<string, string> = {}) =>
    cleanEnv({ RESON_HOME: f.home.path, REGISTRY_TOKEN: TOKEN, ...extra });
  const userServers = (servers: Record<string, unknown>) =>
    writeFileSync(join(f.home.path, "config.json"), JSON.stringify({ mcp: { servers } }));
  /** A server named "registry" that fails like npx behind a company CA, given the token through env. */
  const registry = (extra: Record<string, unknown> = {}) =>
    userServers({
      registry: {
        command: process.execPath,
        args: CERT_FAILURE,
        env: { REGISTRY_TOKEN: "${REGISTRY_TOKEN}" },
        ...extra,
      },
    });

  it("reson mcp test of a server that does not start says why, and sends the user nowhere they just were", async () => {
    userServers({
      broken: { command: process.execPath, args: ["-e", "console.error('no such module'); process.exit(3)"] },
    });
    const result = await runCli(["mcp", "test", "broken"], { cwd: f.ws.path, env: env() });
    expect(result.code).toBe(1);
    // Its own output, live, then the error with the server's name.
    expect(result.stderr).toContain("no such module");
    expect(result.stderr).toMatch(/reson: MCP server "broken" is unavailable \(during the start\)/);
    // It was not marked required by the user, and the hint is not the command just run.
    expect(result.stderr).not.toContain("required");
    expect(result.stderr).not.toContain("reson mcp test broken");
    expect(result.stderr).toMatch(
      /hint: What the server printed is above\. Check its command, args and env .* in .*config\.json/,
    );
  });

  it("shows the server's last stderr lines, masked, and says to pass proxy and CA variables through env", async () => {
    registry();
    f.server.enqueue({ text: "went on without it" });
    const result = await runCli(["run", ...fakeModelArgs(f.server), "hello"], { cwd: f.ws.path, env: env() });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('warning: MCP server "registry" did not start, its tools are missing');
    expect(result.stderr).toContain("registry's stderr ended with:");
    expect(result.stderr).toContain("    npm error code UNABLE_TO_GET_ISSUER_CERT_LOCALLY");
    expect(result.stderr).toContain("failed, token <secret>REGISTRY_TOKEN</secret>");
    expect(result.stderr).toMatch(
      /hint: A local MCP server gets a scrubbed environment .*pass the proxy and certificate variables it needs through the "env" of "registry" in .*config\.json.*HTTPS_PROXY.*NODE_EXTRA_CA_CERTS/,
    );
    expect(result.stderr).not.toContain(TOKEN);
    // Its log has the same lines, masked too.
    const log = readFileSync(join(f.home.path, "logs", "mcp", "registry.log"), "utf8");
    expect(log).toContain("UNABLE_TO_GET_ISSUER_CERT_LOCALLY");
    expect(log).not.toContain(TOKEN);
  });

  it("a required server's error carries the same lines, in --json runs too", async () => {
    registry({ required: true });
    const result = await runCli(["run", "--json", ...fakeModelArgs(f.server), "hello"], {
      cwd: f.ws.path,
      env: env(),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('reson: The required MCP server "registry" did not start');
    expect(result.stderr).toContain("UNABLE_TO_GET_ISSUER_CERT_LOCALLY");
    expect(result.stderr).toContain("hint: A local MCP server gets a scrubbed environment");
    expect(result.stderr + result.stdout).not.toContain(TOKEN);
    expect(f.server.requests).toHaveLength(0);
  });

  it("a server slow to start points at startupTimeoutMs, not callTimeoutMs", async () => {
    userServers({
      sleeper: {
        command: process.execPath,
        args: ["-e", "setTimeout(() => {}, 60000)"],
        startupTimeoutMs: 300,
        required: true,
      },
    });
    const result = await runCli(["run", ...fakeModelArgs(f.server), "hello"], { cwd: f.ws.path, env: env() });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('MCP server "sleeper" did not answer the start within 300 ms');
    expect(result.stderr).toContain("mcp.servers.sleeper.startupTimeoutMs");
    expect(result.stderr).not.toContain("callTimeoutMs");
  });

  it("a command that does not exist is named by the server's name", async () => {
    userServers({ broken: { command: "/nonexistent/mcp-server" } });
    f.server.enqueue({ text: "ok" });
    const result = await runCli(["run", ...fakeModelArgs(f.server), "hello"], { cwd: f.ws.path, env: env() });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Cannot start MCP server "broken" (/nonexistent/mcp-server)');
  });
});

describe("a workspace folder that does not exist", () => {
  const f = useCliFixture();
  const logFile = () => join(f.home.path, "server-events.log");
  const env = () => cleanEnv({ RESON_HOME: f.home.path });
  const missing = () => join(f.ws.path, "no-such-folder");
  const startsLogged = () =>
    existsSync(logFile())
      ? readFileSync(logFile(), "utf8")
          .split("\n")
          .filter((line) => line.startsWith("started"))
      : [];

  it("stops run, resume and the terminal before any MCP server starts", async () => {
    writeFileSync(
      join(f.home.path, "config.json"),
      JSON.stringify({
        mcp: {
          servers: {
            tester: { command: process.execPath, args: [TEST_SERVER], env: { MCP_TEST_LOG: logFile() } },
          },
        },
      }),
    );
    // A session to resume, in a folder that is then named away.
    f.server.enqueue({ text: "first" });
    const first = await runCli(["run", "--json", ...fakeModelArgs(f.server), "first"], {
      cwd: f.ws.path,
      env: env(),
    });
    expect(first.code).toBe(0);
    const runId = parseEvents(first.stdout)[0]!.runId as string;
    expect(startsLogged()).toHaveLength(1);

    const run = await runCli(["run", "-w", missing(), ...fakeModelArgs(f.server), "hello"], {
      cwd: f.ws.path,
      env: env(),
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`reson: The workspace folder ${missing()} does not exist.`);

    const resume = await runCli(["resume", runId, "-w", missing(), ...fakeModelArgs(f.server)], {
      cwd: f.ws.path,
      env: env(),
    });
    expect(resume.code).toBe(2);
    expect(resume.stderr).toContain("does not exist");

    const terminal = await runCli(["-w", missing(), ...fakeModelArgs(f.server)], {
      cwd: f.ws.path,
      env: env(),
      input: "hello\n",
    });
    expect(terminal.code).toBe(2);
    expect(terminal.stderr).toContain("does not exist");

    expect(startsLogged()).toHaveLength(1);
    expect(f.server.requests.filter((r) => r.protocol !== "other")).toHaveLength(1);
  });
});
