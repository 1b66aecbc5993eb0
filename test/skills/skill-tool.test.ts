import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  createSkillTool,
  discoverSkills,
  formatSkillList,
  type Skill,
  SkillSet,
  skillCatalogue,
} from "../../src/skills/index.js";
import { ToolRegistry, type ToolResult } from "../../src/tools/index.js";
import { Workspace } from "../../src/workspace/index.js";
import { makeSkillDirs, type SkillDirs, skillMd } from "./fixtures.js";

let dirs: SkillDirs | undefined;
afterEach(async () => {
  await dirs?.cleanup();
  dirs = undefined;
});

function skill(name: string, description: string, extra: Partial<Skill> = {}): Skill {
  return {
    name,
    description,
    path: `/skills/${name}`,
    file: `/skills/${name}/SKILL.md`,
    source: "user",
    body: "",
    files: [],
    disableModelInvocation: false,
    userInvocable: true,
    ...extra,
  };
}

describe("skillCatalogue", () => {
  it("lists model-invocable skills by name, one line each, with when_to_use appended", () => {
    const text = skillCatalogue(
      [
        skill("zeta", "Last."),
        skill("alpha", "First.", { whenToUse: "Use for A." }),
        skill("hidden", "User only.", { disableModelInvocation: true }),
      ],
      { budgetChars: 1000 },
    );
    expect(text).toBe("- alpha: First. Use for A.\n- zeta: Last.");
  });

  it("is empty without skills", () => {
    expect(skillCatalogue([], { budgetChars: 1000 })).toBe("");
  });

  it("shortens descriptions first to stay within the budget", () => {
    const skills = ["a", "b", "c"].map((name) => skill(name, `${name} ${"word ".repeat(60)}`));
    const text = skillCatalogue(skills, { budgetChars: 400 });
    expect(text.length).toBeLessThanOrEqual(400);
    expect(text.split("\n").map((line) => line.slice(0, 4))).toEqual(["- a:", "- b:", "- c:"]);
    expect(text).toContain("…");
  });

  it("leaves out the last skills with a note when shortening is not enough, the same every time", () => {
    const skills = Array.from({ length: 30 }, (_, i) =>
      skill(`skill-${String(i).padStart(2, "0")}`, "A description that is fairly long. ".repeat(5)),
    );
    const text = skillCatalogue([...skills].reverse(), { budgetChars: 600 });
    expect(text.length).toBeLessThanOrEqual(600);
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^- skill-00: /);
    expect(lines.at(-1)).toMatch(/^\(\d+ more skills not listed: call skill with a name from \/skills\)$/);
    const listed = lines.length - 1;
    expect(lines.at(-1)).toContain(`(${30 - listed} more skills`);
    expect(skillCatalogue(skills, { budgetChars: 600 })).toBe(text);
  });
});

describe("SkillSet", () => {
  it("switches a skill off and on for the session", () => {
    const set = new SkillSet({ skills: [skill("a", "A."), skill("b", "B.")], warnings: [] });
    expect(set.setEnabled("a", false)).toBe(true);
    expect(set.enabled().map((s) => s.name)).toEqual(["b"]);
    expect(set.list().map((s) => s.name)).toEqual(["a", "b"]);
    expect(set.isEnabled("a")).toBe(false);
    expect(set.get("a")?.name).toBe("a");
    expect(set.setEnabled("a", true)).toBe(true);
    expect(set.enabled().map((s) => s.name)).toEqual(["a", "b"]);
    expect(set.setEnabled("missing", false)).toBe(false);
  });
});

describe("the skill tool", () => {
  async function setup(files: Record<string, string>) {
    dirs = await makeSkillDirs();
    await dirs.write(files);
    const found = await discoverSkills({
      workspaceRoot: dirs.workspace,
      home: dirs.home,
      userHome: dirs.userHome,
    });
    const set = new SkillSet(found);
    const tool = createSkillTool(() => set.list(), {
      budgetChars: 2000,
      isEnabled: (name) => set.isEnabled(name),
    });
    const registry = new ToolRegistry();
    registry.register(tool);
    const workspace = await Workspace.open(dirs.workspace);
    let n = 0;
    const call = (name: string): Promise<ToolResult> => {
      n += 1;
      return registry.execute(
        { id: `c${n}`, name: "skill", arguments: { name } },
        { workspace, signal: new AbortController().signal, runId: "run", toolCallId: `c${n}` },
      );
    };
    return { set, tool, call, found };
  }

  it("carries the catalogue in its description and is read-only", async () => {
    const { tool, set } = await setup({
      "repo/packages/app/.agents/skills/pdf/SKILL.md": skillMd("name: pdf\ndescription: Fill PDF forms."),
      "repo/packages/app/.agents/skills/secret/SKILL.md": skillMd(
        "name: secret\ndescription: Hidden.\ndisable-model-invocation: true",
      ),
    });
    expect(tool.readOnly).toBe(true);
    expect(tool.description).toContain("- pdf: Fill PDF forms.");
    expect(tool.description).not.toContain("secret");
    set.setEnabled("pdf", false);
    expect(tool.description).not.toContain("- pdf");
  });

  it("returns the body without frontmatter and lists files relative to the workspace", async () => {
    const { call } = await setup({
      "repo/packages/app/.agents/skills/pdf/SKILL.md": skillMd(
        "name: pdf\ndescription: Fill PDF forms.",
        "# Filling forms\n\nRun scripts/fill.py.\n",
      ),
      "repo/packages/app/.agents/skills/pdf/scripts/fill.py": "print('fill')\n",
      "repo/packages/app/.agents/skills/pdf/forms.md": "about forms\n",
    });
    const result = await call("pdf");
    expect(result.ok).toBe(true);
    expect(result.content).toContain('<skill_content name="pdf">');
    expect(result.content).toContain("# Filling forms\n\nRun scripts/fill.py.");
    expect(result.content).not.toContain("description: Fill PDF forms.");
    expect(result.content).toContain(
      "<skill_resources>\n.agents/skills/pdf/forms.md\n.agents/skills/pdf/scripts/fill.py\n</skill_resources>",
    );
    expect(result.content).not.toContain("print('fill')");
  });

  it("for a skill outside the workspace says so and includes small text files inline", async () => {
    const { call } = await setup({
      "user/.agents/skills/notes/SKILL.md": skillMd("name: notes\ndescription: Notes.", "Read guide.md.\n"),
      "user/.agents/skills/notes/guide.md": "The guide.\n",
      "user/.agents/skills/notes/big.txt": "x".repeat(9000),
    });
    const result = await call("notes");
    expect(result.ok).toBe(true);
    expect(result.content).toContain(
      `Skill folder: ${join(dirs!.userHome, ".agents/skills/notes")} (outside`,
    );
    expect(result.content).toContain("<skill_resources>\nbig.txt\nguide.md\n</skill_resources>");
    expect(result.content).toContain('<skill_file path="guide.md">\nThe guide.\n');
    expect(result.content).not.toContain('<skill_file path="big.txt">');
  });

  it("refuses an unknown name, listing the available skills", async () => {
    const { call } = await setup({
      "repo/.agents/skills/pdf/SKILL.md": skillMd("name: pdf\ndescription: PDFs."),
      "repo/.agents/skills/docx/SKILL.md": skillMd("name: docx\ndescription: Word files."),
    });
    const result = await call("xlsx");
    expect(result.ok).toBe(false);
    expect(result.error).toMatchObject({
      code: "not_found",
      message: 'There is no skill named "xlsx".',
      hint: "Available skills: docx, pdf.",
    });
  });

  it("refuses a skill switched off for the session, and one only the user may invoke", async () => {
    const { call, set } = await setup({
      "repo/.agents/skills/pdf/SKILL.md": skillMd("name: pdf\ndescription: PDFs."),
      "repo/.agents/skills/deploy/SKILL.md": skillMd(
        "name: deploy\ndescription: Ship.\ndisable-model-invocation: true",
      ),
    });
    set.setEnabled("pdf", false);
    const off = await call("pdf");
    expect(off.ok).toBe(false);
    expect(off.error).toMatchObject({
      code: "tool_denied",
      message: 'The skill "pdf" is turned off for this session.',
    });
    const userOnly = await call("deploy");
    expect(userOnly.error).toMatchObject({ code: "tool_denied" });
    expect(userOnly.error?.message).toContain("only be invoked by the user");
    set.setEnabled("pdf", true);
    expect((await call("pdf")).ok).toBe(true);
  });

  it("formatSkillList shows each skill's source, path, state and the warnings", async () => {
    const { set } = await setup({
      "repo/.agents/skills/pdf/SKILL.md": skillMd("name: pdf\ndescription: Fill PDF forms."),
      "user/.agents/skills/notes/SKILL.md": skillMd("name: notes\ndescription: Notes."),
      "repo/.agents/skills/broken/SKILL.md": "no frontmatter\n",
      "repo/.reson/skills/core.md": "Core.\n",
    });
    set.setEnabled("notes", false);
    const text = formatSkillList(set);
    expect(text).toContain(`notes (user, off) ${join(dirs!.userHome, ".agents/skills/notes")}\n  Notes.`);
    expect(text).toContain(`pdf (project, on) ${join(dirs!.repo, ".agents/skills/pdf")}\n  Fill PDF forms.`);
    expect(text).toContain(`Core skill: ${join(dirs!.repo, ".reson/skills/core.md")}`);
    expect(text).toContain("Warnings (1):");
    expect(text).toContain(
      `${join(dirs!.repo, ".agents/skills/broken/SKILL.md")}: skipped: no YAML frontmatter`,
    );
    expect(formatSkillList({ skills: [], warnings: [] })).toBe("No skills found.");
  });
});
