// Skills written for Claude Code and Codex load unchanged: the fixture project holds folders
// laid out as those clients expect (scripts, references, templates, Claude Code's extra
// frontmatter, Codex's agents/openai.yaml, an unquoted colon in a description), and every
// one of them is found with its fields, its files and no warning.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSkillTool, discoverSkills } from "../../src/skills/index.js";
import { copyFixtureSkills, makeSkillDirs, type SkillDirs } from "./fixtures.js";

let dirs: SkillDirs | undefined;
afterEach(async () => {
  await dirs?.cleanup();
  dirs = undefined;
});

async function discoverFixtures() {
  dirs = await makeSkillDirs();
  await copyFixtureSkills(dirs.workspace);
  const found = await discoverSkills({
    workspaceRoot: dirs.workspace,
    home: dirs.home,
    userHome: dirs.userHome,
  });
  return {
    found,
    byName: new Map(found.skills.map((skill) => [skill.name, skill])),
    workspace: dirs.workspace,
  };
}

describe("real-world skill folders", () => {
  it("all load, from .claude/skills and .agents/skills, without a warning", async () => {
    const { found, workspace } = await discoverFixtures();
    expect(found.warnings).toEqual([]);
    expect(found.skills.map((s) => [s.name, s.source, s.path])).toEqual([
      ["changelog", "project", join(workspace, ".claude/skills/changelog")],
      ["commit-message", "project", join(workspace, ".agents/skills/commit-message")],
      ["pdf-forms", "project", join(workspace, ".claude/skills/pdf-forms")],
      ["release", "project", join(workspace, ".claude/skills/release")],
    ]);
  });

  it("a skill with scripts and a reference lists them, and keeps the spec's optional fields", async () => {
    const pdf = (await discoverFixtures()).byName.get("pdf-forms")!;
    expect(pdf.files).toEqual(["reference.md", "scripts/fill_fields.py", "scripts/list_fields.py"]);
    expect(pdf.license).toBe("MIT");
    expect(pdf.compatibility).toBe("Needs python3 with the pypdf package installed.");
    expect(pdf.body).toMatch(/^# Filling PDF forms\n/);
    expect(pdf.body).not.toContain("description:");
  });

  it("Claude Code's fields: when_to_use, allowed-tools as a list or a spaced string, disable-model-invocation", async () => {
    const { byName } = await discoverFixtures();
    const changelog = byName.get("changelog")!;
    expect(changelog.whenToUse).toMatch(/^When the user prepares a release/);
    expect(changelog.allowedTools).toEqual(["Bash(git log:*)", "Bash(git describe:*)", "Read", "Edit"]);
    expect(changelog.files).toEqual(["templates/entry.md"]);
    const release = byName.get("release")!;
    expect(release.disableModelInvocation).toBe(true);
    expect(release.userInvocable).toBe(true);
    expect(release.allowedTools).toEqual([
      "Bash(npm version:*)",
      "Bash(npm publish:*)",
      "Bash(git push --follow-tags)",
      "Read",
    ]);
  });

  it("a Codex skill: the description with an unquoted colon, metadata, and agents/openai.yaml as a file", async () => {
    const commit = (await discoverFixtures()).byName.get("commit-message")!;
    expect(commit.description).toContain("Use when: the user asks for a commit message");
    expect(commit.metadata).toEqual({
      "short-description": "Conventional commit messages from the staged diff",
      version: "1.2",
    });
    expect(commit.files).toEqual(["agents/openai.yaml"]);
  });

  it("the skill tool's catalogue offers the model every skill but the user-only one", async () => {
    const { found } = await discoverFixtures();
    const description = createSkillTool(() => found.skills, { budgetChars: 4_000 }).description;
    expect(description).toContain("- changelog: Writes the changelog entry");
    expect(description).toContain("When the user prepares a release");
    expect(description).toContain("- commit-message: ");
    expect(description).toContain("- pdf-forms: ");
    expect(description).not.toContain("release:");
  });
});
