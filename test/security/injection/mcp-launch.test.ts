// Class 1 of the injection suite, through the user's own MCP servers: a local server runs
// outside the sandbox, in the workspace folder, where a fooled run's commands can write. A
// server started as `npx -y <package>` would run a copy of the package planted in the
// workspace's node_modules, and `python3 -m <module>` a module planted in the folder, at the
// user's next run. Judged by the payload's marker after that next run; a control runs the same
// launch by hand to show the plant would have run.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TEST_SERVER } from "../../mcp/servers.js";
import { cleanEnv, runCli } from "../../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../../support/cli-fixture.js";
import { skipWithout } from "../../support/requirements.js";
import { fooledRun, pythonWrite } from "./fooled-run.js";

const noSandbox = await skipWithout("sandbox", "the injection suite: MCP server launches");

const PACKAGE = "reson-planted-mcp-server";

describe.skipIf(noSandbox)("planted code: what the user's own MCP servers run", () => {
  const f = useCliFixture();
  const marker = (name: string) => join(f.home.path, `ran-${name}`);
  const plant = (name: string) => `require("fs").writeFileSync(${JSON.stringify(marker(name))}, "ran")\n`;
  const steps = () => [
    [
      pythonWrite(
        `node_modules/${PACKAGE}/package.json`,
        JSON.stringify({ name: PACKAGE, version: "1.0.0", bin: { [PACKAGE]: "server.js" } }),
      ),
      pythonWrite(`node_modules/${PACKAGE}/server.js`, `#!/usr/bin/env node\n${plant("npx")}`),
      // What npm install leaves: the bin linked into node_modules/.bin.
      pythonWrite(`node_modules/.bin/${PACKAGE}`, `#!/usr/bin/env node\n${plant("npx")}`),
      pythonWrite(
        "planted_server/__main__.py",
        `open(${JSON.stringify(marker("python"))}, "w").write("ran")\n`,
      ),
    ],
  ];
  const servers = {
    // Offline, so the package is looked for only where npx keeps or finds it: never fetched.
    fromNpm: { command: "npx", args: ["-y", PACKAGE], env: { npm_config_offline: "true" } },
    fromPython: { command: "python3", args: ["-m", "planted_server"] },
  };

  it("the user's next run starts their servers without running what the run planted", async () => {
    const run = await fooledRun(f, steps());
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(f.ws.path, "node_modules", ".bin", PACKAGE))).toBe(true);
    writeFileSync(join(f.home.path, "config.json"), JSON.stringify({ mcp: { servers } }));
    f.server.enqueue({ text: "done" });
    const next = await runCli(["run", ...fakeModelArgs(f.server), "hello"], {
      cwd: f.ws.path,
      env: cleanEnv({ RESON_HOME: f.home.path }),
      timeoutMs: 120_000,
    });
    expect(next.code, next.stderr).toBe(0);
    expect(existsSync(marker("npx"))).toBe(false);
    expect(existsSync(marker("python"))).toBe(false);
    expect(next.stderr).toContain('MCP server "fromNpm" did not start');
  });

  it("the same launches by hand in the workspace run the plants (control)", async () => {
    const run = await fooledRun(f, steps());
    expect(run.code, run.stderr).toBe(0);
    const env = { ...process.env, npm_config_offline: "true" };
    execFileSync("npx", ["-y", PACKAGE], { cwd: f.ws.path, env, stdio: "ignore" });
    execFileSync("python3", ["-m", "planted_server"], { cwd: f.ws.path, stdio: "ignore" });
    expect(existsSync(marker("npx"))).toBe(true);
    expect(existsSync(marker("python"))).toBe(true);
  });
});

describe.skipIf(noSandbox)("planted code: the user's servers started with uv run and bunx", () => {
  const f = useCliFixture();
  /**
   * A stand-in for `name` (uv and bun are not on the machine) on the PATH of the user's next run:
   * it notes how reson launched it, then is the MCP test server, so the server starts.
   */
  const launcher = (name: string) => {
    const bin = join(f.home.path, "bin");
    mkdirSync(bin, { recursive: true });
    const script = `#!/bin/sh\nprintf '%s\\n' "$PWD" "$@" > ${JSON.stringify(join(f.home.path, `launched-${name}`))}\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(TEST_SERVER)}\n`;
    writeFileSync(join(bin, name), script, { mode: 0o755 });
    return bin;
  };
  const launched = (name: string) => {
    const file = join(f.home.path, `launched-${name}`);
    return existsSync(file) ? readFileSync(file, "utf8").split("\n").slice(0, -1) : undefined;
  };
  /** The user's next run, with `servers` as theirs and a stand-in for `name` on its PATH. */
  const nextRun = (name: string, servers: Record<string, unknown>) => {
    const bin = launcher(name);
    writeFileSync(join(f.home.path, "config.json"), JSON.stringify({ mcp: { servers } }));
    f.server.enqueue({ text: "done" });
    return runCli(["run", ...fakeModelArgs(f.server), "hello"], {
      cwd: f.ws.path,
      env: cleanEnv({ RESON_HOME: f.home.path, PATH: `${bin}:${process.env.PATH}` }),
      timeoutMs: 120_000,
    });
  };
  const fromBun = { fromBun: { command: "bunx", args: [PACKAGE] } };

  it("uv run gets an empty project of reson's, so the workspace's pyproject, .venv and uv.toml are not used", async () => {
    const run = await fooledRun(f, [
      [
        pythonWrite("uv.toml", '[[index]]\nurl = "http://127.0.0.2/simple"\ndefault = true\n'),
        pythonWrite("pyproject.toml", '[project]\nname = "planted"\nversion = "1"\n'),
      ],
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(f.ws.path, "uv.toml"))).toBe(true);
    // As FastMCP's `install` writes a server: its script's absolute path, run in the workspace.
    const args = ["run", "--with", "fastmcp", "fastmcp", "run", "/home/u/server.py"];
    const next = await nextRun("uv", { fromUv: { command: "uv", args } });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toContain("did not start");
    const empty = join(f.home.path, "mcp", "no-packages");
    expect(launched("uv")).toEqual([f.ws.path, "run", "--project", empty, ...args.slice(1)]);
    expect(existsSync(empty)).toBe(true);
  });

  it("bunx is not started while the workspace holds a copy of its package, which bunx would run instead", async () => {
    const run = await fooledRun(f, [
      [
        pythonWrite(
          `node_modules/${PACKAGE}/package.json`,
          JSON.stringify({ name: PACKAGE, version: "1.0.0" }),
        ),
        pythonWrite(`node_modules/.bin/${PACKAGE}`, "#!/bin/sh\necho planted\n"),
      ],
    ]);
    expect(run.code, run.stderr).toBe(0);
    const next = await nextRun("bunx", fromBun);
    expect(next.code, next.stderr).toBe(0);
    expect(launched("bunx")).toBeUndefined();
    expect(next.stderr).toContain(
      `MCP server "fromBun" was not started: bunx would run node_modules/.bin/${PACKAGE} from the workspace`,
    );
    expect(next.stderr).toContain("Start it with npx instead");
  });

  it("bunx starts as before in a workspace without a copy of its package", async () => {
    const next = await nextRun("bunx", fromBun);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toContain("fromBun");
    expect(launched("bunx")).toEqual([f.ws.path, PACKAGE]);
  });
});
