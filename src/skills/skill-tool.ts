// The `skill` tool: progressive disclosure of skills. Its description carries the catalogue
// (name and description per skill); a call returns the skill's body and lists its files
// without reading them. Files inside the workspace are listed relative to it, for read_file.
// The sandbox cannot reach a skill folder outside the workspace (e.g. ~/.agents/skills), so
// for those the result says so and includes up to 3 small text files inline instead.
import { readFile, realpath, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { Type } from "typebox";
import { ResonError } from "../core/errors.js";
import { isWithin } from "../core/path-within.js";
import type { ToolDefinition } from "../tools/index.js";
import { invocableSkills, skillCatalogue } from "./catalogue.js";
import type { Skill } from "./types.js";

export interface SkillToolOptions {
  /** The catalogue's share of the tool description, in characters. */
  budgetChars: number;
  /** Whether a skill is switched on for the session (SkillSet.isEnabled); default all are on. */
  isEnabled?: (name: string) => boolean;
}

/** Resources of an outside-the-workspace skill shown inline: at most this many, each under this size. */
export const MAX_INLINE_FILES = 3;
export const MAX_INLINE_FILE_BYTES = 8 * 1024;

const parameters = Type.Object(
  { name: Type.String({ description: "The skill's name, as listed in this tool's description." }) },
  { additionalProperties: false },
);

const INTRO =
  "Load a skill: instructions, and often scripts or references, for a kind of task. When the task " +
  "matches a skill below, call this with its name before starting, then follow what it says.";

/**
 * `getSkills` gives the skills found (all of them: those switched off are refused by name
 * with a clear error, via `isEnabled`). The description is read afresh on each use, so a
 * skill switched off leaves the catalogue.
 */
export function createSkillTool(
  getSkills: () => readonly Skill[],
  options: SkillToolOptions,
): ToolDefinition<typeof parameters> {
  const isEnabled = options.isEnabled ?? (() => true);
  const visible = () => getSkills().filter((skill) => isEnabled(skill.name));
  return {
    name: "skill",
    get description() {
      const catalogue = skillCatalogue(visible(), { budgetChars: options.budgetChars });
      return catalogue
        ? `${INTRO}\n\nAvailable skills:\n${catalogue}`
        : `${INTRO}\n\nNo skills are available.`;
    },
    parameters,
    readOnly: true,
    // The body is the instructions; it must stay in view: no once-only output, and pinned so
    // that trimming, compaction and the goal view keep it for the rest of the session.
    async execute(args, ctx) {
      const skill = getSkills().find((candidate) => candidate.name === args.name);
      const available = invocableSkills(visible()).map((candidate) => candidate.name);
      if (!skill) {
        throw new ResonError("not_found", `There is no skill named "${args.name}".`, {
          hint:
            available.length > 0 ? `Available skills: ${available.join(", ")}.` : "No skills are available.",
          details: { tool: "skill", name: args.name },
        });
      }
      if (!isEnabled(skill.name)) {
        throw new ResonError("tool_denied", `The skill "${skill.name}" is turned off for this session.`, {
          hint: "Do without it, or ask the user to turn it on with /skill <name> on.",
          details: { tool: "skill", name: skill.name },
        });
      }
      if (skill.disableModelInvocation) {
        throw new ResonError("tool_denied", `The skill "${skill.name}" can only be invoked by the user.`, {
          hint: `Do not follow or reproduce it on your own; the user invokes it with /${skill.name}.`,
          details: { tool: "skill", name: skill.name },
        });
      }
      return { content: await renderSkill(skill, ctx.workspace.root), pinAs: `skill:${skill.name}` };
    },
  };
}

/**
 * The task of a skill the user invoked by name (`/name request` in an editor): the user's
 * request, then the skill's content as the skill tool gives it. Skills only the user may
 * invoke are invoked so.
 */
export async function userInvokedTask(skill: Skill, request: string, workspaceRoot: string): Promise<string> {
  const asked = request.trim() ? `, asking: ${request.trim()}` : "";
  return `The user invoked the skill "${skill.name}"${asked}. Follow it.\n\n${await renderSkill(skill, workspaceRoot)}`;
}

async function renderSkill(skill: Skill, workspaceRoot: string): Promise<string> {
  const parts = [`<skill_content name="${skill.name}">`, `# Skill: ${skill.name}`, "", skill.body.trim(), ""];
  const inside = await relativeInside(workspaceRoot, skill.path);
  if (inside !== undefined) {
    const prefix = inside === "" ? "" : `${inside}/`;
    parts.push(`Skill folder: ${inside || "."} (in the workspace; read its files with read_file).`);
    if (skill.files.length > 0) {
      parts.push("<skill_resources>", ...skill.files.map((file) => `${prefix}${file}`), "</skill_resources>");
    }
  } else {
    parts.push(
      `Skill folder: ${skill.path} (outside the workspace: read_file cannot open it; ` +
        `small text files are included below).`,
    );
    if (skill.files.length > 0) {
      parts.push("<skill_resources>", ...skill.files, "</skill_resources>");
      for (const inline of await inlineFiles(skill)) {
        parts.push(`<skill_file path="${inline.file}">`, inline.text, "</skill_file>");
      }
    }
  }
  parts.push("</skill_content>");
  return parts.join("\n");
}

/** The folder relative to the workspace root ("" for the root itself) when inside it, by real path. */
async function relativeInside(workspaceRoot: string, folder: string): Promise<string | undefined> {
  const real = await realpath(folder).catch(() => folder);
  const root = await realpath(workspaceRoot).catch(() => workspaceRoot);
  if (!isWithin(real, root)) return undefined;
  const rel = relative(root, real);
  if (rel === "") return "";
  return rel.split(sep).join("/");
}

async function inlineFiles(skill: Skill): Promise<{ file: string; text: string }[]> {
  const out: { file: string; text: string }[] = [];
  for (const file of skill.files) {
    if (out.length >= MAX_INLINE_FILES) break;
    const path = join(skill.path, file);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile() || info.size >= MAX_INLINE_FILE_BYTES) continue;
    const bytes = await readFile(path).catch(() => undefined);
    if (!bytes || bytes.includes(0)) continue;
    out.push({ file, text: bytes.toString("utf8") });
  }
  return out;
}
