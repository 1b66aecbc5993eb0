// End to end: `reson skills` lists the skills of a workspace and reports the ones that did not
// load, with their path and the reason.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, runCli, type TempDir, tempDir } from "../support/cli.js";

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
