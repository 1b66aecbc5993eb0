// Class 1 of the injection suite, through a project's own MCP server: `.mcp.json` starts a
// script of the project (`node tools/server.mjs`), which the user approved. The server runs
// outside the sandbox, and a fooled run's commands can change the script or what it imports;
// the approval covers those files, so the user's next run does not start the changed server
// (and the terminal would ask again, naming the change). Judged by the payload's marker after
// that next run; controls show the approved server starts, and that the plant runs when the
// script is started by hand.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { approve } from "../../../src/mcp/approval.js";
import { serverFiles } from "../../../src/mcp/server-files.js";
import { EVERYTHING } from "../../mcp/servers.js";
import { cleanEnv, runCli } from "../../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../../support/cli-fixture.js";
import { skipWithout } from "../../support/requirements.js";
import { command, fooledRun, pythonWrite } from "./fooled-run.js";

const noSandbox = await skipWithout("sandbox", "the injection suite: a project's MCP server script");

describe.skipIf(noSandbox)("planted code: a project MCP server that is the project's own script", () => {
  const f = useCliFixture();
  const marker = () => join(f.home.path, "ran-project-server");
  const definition = {
    command: "node",
    args: ["tools/server.mjs"],
    env: { REAL_SERVER: EVERYTHING },
  };

  /** The project as the user approved it: a server script importing a module of its own. */
  async function approvedProject(banner = 'export const banner = "tools server\\n";\n'): Promise<void> {
    mkdirSync(join(f.ws.path, "tools"));
    writeFileSync(
      join(f.ws.path, "tools", "server.mjs"),
      'import { banner } from "./banner.mjs";\nprocess.stderr.write(banner);\nprocess.argv.push("stdio");\nawait import(process.env.REAL_SERVER);\n',
    );
    writeFileSync(join(f.ws.path, "tools", "banner.mjs"), banner);
    writeFileSync(join(f.ws.path, ".mcp.json"), JSON.stringify({ mcpServers: { tools: definition } }));
    const workspace = realpathSync(f.ws.path);
    // What the terminal's yes records (approveProjectServer, then approve): the definition and its files.
    const files = await serverFiles(definition, workspace, process.env);
    expect(Object.keys(files.files)).toEqual(["tools/banner.mjs", "tools/server.mjs"]);
    await approve(f.home.path, workspace, "tools", definition, files);
  }

  /** The user's next run, headless; says whether the project's server started (its tools offered). */
  async function nextRun(): Promise<{ started: boolean; stderr: string }> {
    const before = f.server.requests.length;
    f.server.enqueue({ text: "done" });
    const next = await runCli(["run", ...fakeModelArgs(f.server), "hello"], {
      cwd: f.ws.path,
      env: cleanEnv({ RESON_HOME: f.home.path }),
      timeoutMs: 120_000,
    });
    expect(next.code, next.stderr).toBe(0);
    const body = JSON.stringify(f.server.requests[before]?.body);
    return { started: body.includes("mcp__tools__echo"), stderr: next.stderr };
  }

  const plant = () =>
    `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker())}, "ran");\nexport const banner = "tools server\\n";\n`;

  it("the approved server starts in a headless run (control)", async () => {
    await approvedProject();
    const next = await nextRun();
    expect(next.started, next.stderr).toBe(true);
  });

  it("after a run changed a module the script imports, the next run does not start it, and names the change", async () => {
    await approvedProject();
    const run = await fooledRun(f, [[pythonWrite("tools/banner.mjs", plant())]]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.results[0]?.ok, JSON.stringify(run.results[0])).toBe(true);
    const next = await nextRun();
    expect(existsSync(marker())).toBe(false);
    expect(next.started).toBe(false);
    expect(next.stderr).toContain('MCP server "tools" not started');
    expect(next.stderr).toContain("tools/banner.mjs changed since you approved it");
    expect(next.stderr).toContain("reson mcp test tools");
  });

  it("a module rewritten in place (same size, its times put back) is seen by the next run, which reuses what it found before otherwise", async () => {
    const planted = plant();
    const original = 'export const banner = "tools server\\n";\n';
    await approvedProject(`${original}//${"x".repeat(planted.length - original.length - 3)}\n`);
    // Past the window in which a just-changed file is not trusted to its stamps.
    await new Promise((done) => setTimeout(done, 2100));
    expect((await nextRun()).started).toBe(true);
    const keptDir = join(f.home.path, "cache", "mcp-server-files");
    const [kept] = readdirSync(keptDir);
    const keptAt = statSync(join(keptDir, kept!)).mtimeMs;
    expect((await nextRun()).started).toBe(true);
    expect(statSync(join(keptDir, kept!)).mtimeMs).toBe(keptAt);
    const inPlace = [
      "import os",
      'p = "tools/banner.mjs"',
      "st = os.stat(p)",
      `open(p, "r+").write(${JSON.stringify(planted)})`,
      "os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))",
    ].join("; ");
    const run = await fooledRun(f, [[command(`python3 -c '${inPlace.replaceAll("'", "'\\''")}'`)]]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.results[0]?.ok, JSON.stringify(run.results[0])).toBe(true);
    const next = await nextRun();
    expect(existsSync(marker())).toBe(false);
    expect(next.started).toBe(false);
    expect(next.stderr).toContain("tools/banner.mjs changed since you approved it");
  });

  it("a changed script itself is not started either", async () => {
    await approvedProject();
    const run = await fooledRun(f, [[pythonWrite("tools/server.mjs", plant())]]);
    expect(run.code, run.stderr).toBe(0);
    const next = await nextRun();
    expect(existsSync(marker())).toBe(false);
    expect(next.started).toBe(false);
    expect(next.stderr).toContain("tools/server.mjs changed since you approved it");
  });

  it("the changed script run by hand runs the plant (control)", async () => {
    await approvedProject();
    const run = await fooledRun(f, [[pythonWrite("tools/banner.mjs", plant())]]);
    expect(run.code, run.stderr).toBe(0);
    execFileSync("node", ["-e", 'import("./tools/banner.mjs")'], { cwd: f.ws.path, stdio: "ignore" });
    expect(existsSync(marker())).toBe(true);
  });
});
