// End to end: `reson skills` lists the skills of a workspace and reports the ones that did not
// load, with their path and the reason; skills written for Claude Code and Codex are listed as
// they are; and `reson run` offers a skill, loads it and runs the script that comes with it.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyFixtureSkills } from "../skills/fixtures.js";
import { cleanEnv, parseEvents, runCli, type TempDir, tempDir } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import { skipWithout } from "../support/requirements.js";

const noSandbox = await skipWithout("sandbox", "skills written for other clients");

describe("reson skills", () => {
  let ws: TempDir;
  let home: TempDir;
  beforeEach(() => {
    ws = tempDir();
    home = tempDir();
    mkdirSync(join(ws.path, ".git"));
    mkdirSync(join(ws.path, ".reson/skills/deploy"), { recursive: true });
    writeFileSync(
      join(ws.path, ".reson/skills/deploy/SKILL.md"),
      "---\nname: deploy\ndescription: Ship to staging\n---\nSteps.\n",
    );
    mkdirSync(join(home.path, "skills/broken"), { recursive: true });
    writeFileSync(join(home.path, "skills/broken/SKILL.md"), "no frontmatter here\n");
  });
  afterEach(() => {
    ws.remove();
    home.remove();
  });

  const skills = (args: string[] = []) =>
    runCli(["skills", ...args], { cwd: ws.path, env: cleanEnv({ RESON_HOME: home.path }) });

  it("lists what was found, from where, and warns about a skill that did not load", async () => {
    const result = await skills();
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("deploy (project, on)");
    expect(result.stdout).toContain("Ship to staging");
    expect(result.stdout).toContain(join(home.path, "skills/broken"));
  });

  it("--json prints one skill per line without its body", async () => {
    const result = await skills(["--json"]);
    expect(result.code).toBe(0);
    const [first] = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(first).toMatchObject({ name: "deploy", source: "project", description: "Ship to staging" });
    expect(first).not.toHaveProperty("body");
    expect(result.stderr).toContain("broken");
  });

  it("a missing workspace exits 2", async () => {
    expect((await skills(["-w", join(ws.path, "nope")])).code).toBe(2);
  });
});

describe("skills written for other clients", () => {
  const f = useCliFixture();
  const cli = (args: string[]) =>
    runCli(args, { cwd: f.ws.path, env: cleanEnv({ RESON_HOME: f.home.path }), timeoutMs: 30_000 });

  it("reson skills lists Claude Code's and Codex's skill folders unchanged, with no warning", async () => {
    mkdirSync(join(f.ws.path, ".git"));
    await copyFixtureSkills(f.ws.path);
    const result = await cli(["skills"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`changelog (project, on) ${join(f.ws.path, ".claude/skills/changelog")}`);
    expect(result.stdout).toContain(
      `commit-message (project, on) ${join(f.ws.path, ".agents/skills/commit-message")}`,
    );
    expect(result.stdout).toContain("pdf-forms (project, on)");
    expect(result.stdout).toContain("release (project, on, user only)");
    expect(result.stdout).not.toContain("Warnings");
  });

  it.skipIf(noSandbox)(
    "reson run offers a .claude skill, loads it, and runs its bundled script",
    async () => {
      const skill = join(f.ws.path, ".claude/skills/weekly-report");
      mkdirSync(join(skill, "scripts"), { recursive: true });
      mkdirSync(join(f.ws.path, ".git"));
      writeFileSync(
        join(skill, "SKILL.md"),
        [
          "---",
          "name: weekly-report",
          "description: Writes the weekly status report. Use when the user asks for the weekly report.",
          "---",
          "# Weekly report",
          "",
          "Run `bash .claude/skills/weekly-report/scripts/run.sh` from the workspace root; it writes",
          "out/report.txt from template.txt. Do not write the report by hand.",
          "",
        ].join("\n"),
      );
      writeFileSync(join(skill, "template.txt"), "Weekly report: all green.\n");
      writeFileSync(
        join(skill, "scripts/run.sh"),
        '#!/usr/bin/env bash\nset -eu\nhere="$(dirname "$0")"\nmkdir -p out\ncat "$here/../template.txt" > out/report.txt\necho "report written"\n',
      );
      chmodSync(join(skill, "scripts/run.sh"), 0o755);
      const command = "bash .claude/skills/weekly-report/scripts/run.sh";
      f.server.enqueue(
        {
          text: "Loading the skill.",
          toolCalls: [{ name: "skill", arguments: { name: "weekly-report" }, id: "s1" }],
        },
        { toolCalls: [{ name: "execute_command", arguments: { command }, id: "c1" }] },
        { text: "The weekly report is in out/report.txt." },
      );
      const result = await cli(["run", "--json", ...fakeModelArgs(f.server), "write the weekly report"]);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(readFileSync(join(f.ws.path, "out/report.txt"), "utf8")).toBe("Weekly report: all green.\n");

      type Body = { tools?: Array<{ function: { name: string; description: string } }>; messages: unknown[] };
      const [first, second, third] = f.server.requests.map((r) => r.body as Body);
      // The catalogue: the skill tool's description names the skill and when to use it.
      const skillTool = first!.tools?.find((t) => t.function.name === "skill");
      expect(skillTool?.function.description).toContain(
        "- weekly-report: Writes the weekly status report. Use when the user asks for the weekly report.",
      );
      // The skill's body and its files, listed relative to the workspace, come back to the model.
      const loaded = JSON.stringify(second!.messages.at(-1));
      expect(loaded).toContain("Do not write the report by hand.");
      expect(loaded).toContain(".claude/skills/weekly-report/scripts/run.sh");
      expect(loaded).toContain(".claude/skills/weekly-report/template.txt");
      expect(JSON.stringify(third!.messages.at(-1))).toContain("report written");

      const events = parseEvents(result.stdout);
      const calls = events.filter((e) => e.type === "tool_result").map((e) => [e.name, e.ok]);
      expect(calls).toEqual([
        ["skill", true],
        ["execute_command", true],
      ]);
      // The trace has both calls, with their results.
      const runId = String(events[0]!.runId);
      const trace = await cli(["trace", "show", runId]);
      expect(trace.code).toBe(0);
      expect(trace.stdout).toMatch(/skill name="weekly-report" ✓/);
      expect(trace.stdout).toMatch(/execute_command command="bash \.claude\/skills\/weekly-report\/[^"]*" ✓/);
    },
  );
});
