import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { discoverSkills } from "../../src/skills/index.js";
import { makeSkillDirs, type SkillDirs, skillMd } from "./fixtures.js";

let dirs: SkillDirs | undefined;
afterEach(async () => {
  await dirs?.cleanup();
  dirs = undefined;
});

async function discover(d: SkillDirs) {
  return discoverSkills({ workspaceRoot: d.workspace, home: d.home, userHome: d.userHome });
}

describe("discoverSkills", () => {
  it("finds user and project skills, and a project skill overrides a user skill of the same name", async () => {
    dirs = await makeSkillDirs();
    await dirs.write({
      "reson-home/skills/deploy/SKILL.md": skillMd("name: deploy\ndescription: User deploy."),
      "user/.agents/skills/review/SKILL.md": skillMd("name: review\ndescription: User review."),
      "repo/packages/app/.reson/skills/deploy/SKILL.md": skillMd(
        "name: deploy\ndescription: Project deploy.",
      ),
      "repo/packages/app/.claude/skills/lint/SKILL.md": skillMd("name: lint\ndescription: Lint it."),
    });
    const found = await discover(dirs);
    expect(found.skills.map((s) => [s.name, s.source, s.description])).toEqual([
      ["deploy", "project", "Project deploy."],
      ["lint", "project", "Lint it."],
      ["review", "user", "User review."],
    ]);
    expect(found.warnings).toEqual([]);
    const deploy = found.skills[0]!;
    expect(deploy.path).toBe(join(dirs.workspace, ".reson/skills/deploy"));
    expect(deploy.file).toBe(join(dirs.workspace, ".reson/skills/deploy/SKILL.md"));
  });

  it("plugins' skills come last: the user's own skill of a name wins silently, two plugins' clash is warned", async () => {
    dirs = await makeSkillDirs();
    await dirs.write({
      "reson-home/skills/deploy/SKILL.md": skillMd("name: deploy\ndescription: User deploy."),
      "plugins/a/skills/deploy/SKILL.md": skillMd("name: deploy\ndescription: Plugin deploy."),
      "plugins/a/skills/greet/SKILL.md": skillMd("name: greet\ndescription: Plugin a greets."),
      "plugins/a/skills/core.md": "Never in the system prompt.\n",
      "plugins/b/skills/greet/SKILL.md": skillMd("name: greet\ndescription: Plugin b greets."),
    });
    const found = await discoverSkills({
      workspaceRoot: dirs.workspace,
      home: dirs.home,
      userHome: dirs.userHome,
      pluginFolders: [
        { path: join(dirs.base, "plugins/a/skills"), plugin: "a" },
        { path: join(dirs.base, "plugins/b/skills"), plugin: "b" },
      ],
    });
    expect(found.skills.map((s) => [s.name, s.source, s.plugin, s.description])).toEqual([
      ["deploy", "user", undefined, "User deploy."],
      ["greet", "plugin", "a", "Plugin a greets."],
    ]);
    expect(found.core).toBeUndefined();
    expect(found.warnings).toEqual([
      expect.stringContaining(
        `${join(dirs.base, "plugins/b/skills/greet/SKILL.md")}: skipped: a skill named "greet"`,
      ),
    ]);
  });

  it("$RESON_HOME/skills wins over ~/.agents/skills, with a warning for the clash", async () => {
    dirs = await makeSkillDirs();
    await dirs.write({
      "reson-home/skills/deploy/SKILL.md": skillMd("name: deploy\ndescription: From reson home."),
      "user/.agents/skills/deploy/SKILL.md": skillMd("name: deploy\ndescription: From agents."),
    });
    const found = await discover(dirs);
    expect(found.skills.map((s) => s.description)).toEqual(["From reson home."]);
    expect(found.warnings).toEqual([
      expect.stringContaining(
        `${join(dirs.userHome, ".agents/skills/deploy/SKILL.md")}: skipped: a skill named "deploy"`,
      ),
    ]);
  });

  it("walks from the workspace up to the git root, nearer folders winning, and no further", async () => {
    dirs = await makeSkillDirs();
    await dirs.write({
      "repo/.agents/skills/root-skill/SKILL.md": skillMd("name: root-skill\ndescription: At the repo root."),
      "repo/.agents/skills/shared/SKILL.md": skillMd("name: shared\ndescription: Root copy."),
      "repo/packages/.claude/skills/middle/SKILL.md": skillMd("name: middle\ndescription: In between."),
      "repo/packages/app/.agents/skills/shared/SKILL.md": skillMd("name: shared\ndescription: Nearest copy."),
      // Above the git root: never looked at.
      ".agents/skills/above/SKILL.md": skillMd("name: above\ndescription: Outside the repo."),
    });
    const found = await discover(dirs);
    expect(found.skills.map((s) => `${s.name}=${s.description}`)).toEqual([
      "middle=In between.",
      "root-skill=At the repo root.",
      "shared=Nearest copy.",
    ]);
  });

  it("treats a .git file (a worktree or submodule) as the git root too", async () => {
    dirs = await makeSkillDirs({ git: false });
    await dirs.write({
      "repo/.git": "gitdir: /elsewhere\n",
      "repo/.agents/skills/root-skill/SKILL.md": skillMd("name: root-skill\ndescription: At the root."),
    });
    const found = await discover(dirs);
    expect(found.skills.map((s) => s.name)).toEqual(["root-skill"]);
  });

  it("without a git repository looks only in the workspace itself", async () => {
    dirs = await makeSkillDirs({ git: false });
    await dirs.write({
      "repo/.agents/skills/parent/SKILL.md": skillMd("name: parent\ndescription: In a parent folder."),
      "repo/packages/app/.agents/skills/here/SKILL.md": skillMd("name: here\ndescription: In the workspace."),
    });
    const found = await discover(dirs);
    expect(found.skills.map((s) => s.name)).toEqual(["here"]);
  });

  it("warns about invalid skills with the path and reason, and loads the rest", async () => {
    dirs = await makeSkillDirs();
    const root = "repo/packages/app/.agents/skills";
    await dirs.write({
      [`${root}/good/SKILL.md`]: skillMd("name: good\ndescription: Works."),
      [`${root}/bad-yaml/SKILL.md`]: skillMd("name: bad-yaml\ndescription: [unclosed"),
      [`${root}/no-front/SKILL.md`]: "# Just markdown\n",
      [`${root}/no-description/SKILL.md`]: skillMd("name: no-description"),
      [`${root}/no-name/SKILL.md`]: skillMd("description: Has no name."),
      [`${root}/long-description/SKILL.md`]: skillMd(
        `name: long-description\ndescription: ${"x".repeat(1100)}`,
      ),
      [`${root}/mismatch/SKILL.md`]: skillMd("name: other-name\ndescription: Named differently."),
      [`${root}/${"a".repeat(70)}/SKILL.md`]: skillMd(`name: ${"a".repeat(70)}\ndescription: Long name.`),
      [`${root}/Bad_Name/SKILL.md`]: skillMd("name: Bad_Name\ndescription: Bad characters."),
    });
    const found = await discover(dirs);
    expect(found.skills.map((s) => s.name)).toEqual([
      "Bad_Name",
      "a".repeat(70),
      "good",
      "long-description",
      "mismatch",
      "no-name",
    ]);
    const base = join(dirs.workspace, ".agents/skills");
    const warning = (folder: string) =>
      found.warnings.filter((w) => w.startsWith(join(base, folder, "SKILL.md")));
    expect(warning("bad-yaml")).toEqual([
      expect.stringContaining("skipped: the frontmatter is not valid YAML"),
    ]);
    expect(warning("no-front")).toEqual([expect.stringContaining("skipped: no YAML frontmatter")]);
    expect(warning("no-description")).toEqual([
      expect.stringContaining("skipped: the frontmatter has no description"),
    ]);
    expect(warning("no-name")).toEqual([
      expect.stringContaining('has no name; using the folder name "no-name"'),
    ]);
    expect(warning("long-description")).toEqual([expect.stringContaining("1100 characters (at most 1024)")]);
    expect(warning("mismatch")).toEqual([
      expect.stringContaining('"other-name" does not match its folder "mismatch"'),
    ]);
    expect(warning("a".repeat(70))).toEqual([expect.stringContaining("70 characters (at most 64)")]);
    expect(warning("Bad_Name")).toEqual([expect.stringContaining("not lowercase letters")]);
    expect(warning("good")).toEqual([]);
  });

  it("reads unquoted values with colons, as other clients do", async () => {
    dirs = await makeSkillDirs();
    await dirs.write({
      "user/.agents/skills/pdf/SKILL.md": skillMd(
        "name: pdf\ndescription: Fill PDF forms. Use when: a form is given",
      ),
    });
    const found = await discover(dirs);
    expect(found.skills[0]?.description).toBe("Fill PDF forms. Use when: a form is given");
    expect(found.warnings).toEqual([]);
  });

  it("accepts Claude Code's extra fields and the optional standard ones", async () => {
    dirs = await makeSkillDirs();
    await dirs.write({
      "repo/.claude/skills/commit/SKILL.md": skillMd(
        [
          "name: commit",
          "description: Write a commit.",
          "when_to_use: When the user asks to commit.",
          "disable-model-invocation: yes",
          "user-invocable: false",
          "allowed-tools: Bash(git add:*) Bash(git commit:*) Read",
          "argument-hint: '[message]'",
          "model: inherit",
          "license: MIT",
          "compatibility: Needs git.",
          "metadata:",
          "  author: someone",
          "  version: 2",
        ].join("\n"),
      ),
      "repo/.claude/skills/listed/SKILL.md": skillMd(
        "name: listed\ndescription: List form.\nallowed-tools:\n  - Read\n  - Grep",
      ),
      "repo/.claude/skills/comma/SKILL.md": skillMd(
        "name: comma\ndescription: Comma form.\nallowed-tools: Read, Grep",
      ),
    });
    const found = await discover(dirs);
    expect(found.warnings).toEqual([]);
    const commit = found.skills.find((s) => s.name === "commit")!;
    expect(commit).toMatchObject({
      disableModelInvocation: true,
      userInvocable: false,
      whenToUse: "When the user asks to commit.",
      allowedTools: ["Bash(git add:*)", "Bash(git commit:*)", "Read"],
      license: "MIT",
      compatibility: "Needs git.",
      metadata: { author: "someone", version: "2" },
    });
    expect(found.skills.find((s) => s.name === "listed")?.allowedTools).toEqual(["Read", "Grep"]);
    expect(found.skills.find((s) => s.name === "comma")?.allowedTools).toEqual(["Read", "Grep"]);
    expect(found.skills.find((s) => s.name === "listed")).toMatchObject({
      disableModelInvocation: false,
      userInvocable: true,
    });
  });

  it("strips the frontmatter from the body and lists the other files without SKILL.md", async () => {
    dirs = await makeSkillDirs();
    await dirs.write({
      "repo/.agents/skills/pdf/SKILL.md": skillMd(
        "name: pdf\ndescription: PDFs.",
        "# PDF\n\nRun scripts/fill.py.\n",
      ),
      "repo/.agents/skills/pdf/scripts/fill.py": "print('hi')\n",
      "repo/.agents/skills/pdf/reference.md": "ref\n",
    });
    const [pdf] = (await discover(dirs)).skills;
    expect(pdf?.body).toBe("# PDF\n\nRun scripts/fill.py.\n");
    expect(pdf?.files).toEqual(["reference.md", "scripts/fill.py"]);
  });

  it("finds nested skills below a grouping folder", async () => {
    dirs = await makeSkillDirs();
    await dirs.write({
      "repo/.agents/skills/docs/pdf/SKILL.md": skillMd("name: pdf\ndescription: Nested."),
    });
    const found = await discover(dirs);
    expect(found.skills.map((s) => s.name)).toEqual(["pdf"]);
  });

  it("returns core.md as the core skill, the project's winning over the user's", async () => {
    dirs = await makeSkillDirs();
    await dirs.write({
      "reson-home/skills/core.md": "User core.\n",
      "repo/.reson/skills/core.md": "Project core.\n",
    });
    const found = await discover(dirs);
    expect(found.core).toEqual({ path: join(dirs.repo, ".reson/skills/core.md"), text: "Project core.\n" });
    expect(found.skills).toEqual([]);

    await dirs.cleanup();
    dirs = await makeSkillDirs();
    await dirs.write({ "reson-home/skills/core.md": "User core.\n" });
    expect((await discover(dirs)).core?.text).toBe("User core.\n");
  });

  it("finds nothing, without warnings, when no skills folder exists", async () => {
    dirs = await makeSkillDirs();
    expect(await discover(dirs)).toEqual({ skills: [], warnings: [] });
  });

  it("stops when the signal is aborted", async () => {
    dirs = await makeSkillDirs();
    const controller = new AbortController();
    controller.abort();
    await expect(
      discoverSkills({
        workspaceRoot: dirs.workspace,
        home: dirs.home,
        userHome: dirs.userHome,
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ code: "aborted" });
  });
});
