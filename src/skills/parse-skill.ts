// Turns one SKILL.md into a Skill, leniently as the Agent Skills client guide asks: a missing
// or mismatched name, an over-long name or description, or an odd optional field is a
// warning and the skill still loads; no frontmatter, unparseable YAML or no description
// means the model could not know when to use it, so it is skipped with a warning.
import { basename } from "node:path";
import { splitFrontmatter } from "./frontmatter.js";
import {
  MAX_COMPATIBILITY_CHARS,
  MAX_DESCRIPTION_CHARS,
  MAX_NAME_CHARS,
  NAME_PATTERN,
  type Skill,
  type SkillSource,
} from "./types.js";

export interface SkillFileInput {
  folder: string;
  file: string;
  text: string;
  source: SkillSource;
  files: string[];
}

export interface ParsedSkill {
  skill?: Skill;
  /** Reasons, without the path (the caller adds it). */
  problems: string[];
}

export function parseSkill(input: SkillFileInput): ParsedSkill {
  const split = splitFrontmatter(input.text);
  if (!split.ok) return { problems: [`skipped: ${split.reason}`] };
  const data = split.data;
  const problems: string[] = [];
  const folderName = basename(input.folder);

  const description = text(data.description)?.trim();
  if (!description) return { problems: ["skipped: the frontmatter has no description"] };
  if (description.length > MAX_DESCRIPTION_CHARS) {
    problems.push(`the description is ${description.length} characters (at most ${MAX_DESCRIPTION_CHARS})`);
  }

  const declared = text(data.name)?.trim();
  if (!declared) problems.push(`the frontmatter has no name; using the folder name "${folderName}"`);
  else if (declared !== folderName) {
    problems.push(`the name "${declared}" does not match its folder "${folderName}"; using "${folderName}"`);
  }
  if (folderName.length > MAX_NAME_CHARS) {
    problems.push(`the name is ${folderName.length} characters (at most ${MAX_NAME_CHARS})`);
  }
  if (!NAME_PATTERN.test(folderName)) {
    problems.push(`the name "${folderName}" is not lowercase letters, digits and single hyphens`);
  }

  const skill: Skill = {
    name: folderName,
    description,
    path: input.folder,
    file: input.file,
    source: input.source,
    body: split.body,
    files: input.files,
    disableModelInvocation: flag(
      data["disable-model-invocation"],
      false,
      "disable-model-invocation",
      problems,
    ),
    userInvocable: flag(data["user-invocable"], true, "user-invocable", problems),
  };

  const allowedTools = toolList(data["allowed-tools"]);
  if (allowedTools) skill.allowedTools = allowedTools;
  const whenToUse = text(data.when_to_use ?? data["when-to-use"])?.trim();
  if (whenToUse) skill.whenToUse = whenToUse;
  const license = text(data.license)?.trim();
  if (license) skill.license = license;
  const compatibility = text(data.compatibility)?.trim();
  if (compatibility) {
    skill.compatibility = compatibility;
    if (compatibility.length > MAX_COMPATIBILITY_CHARS) {
      problems.push(
        `compatibility is ${compatibility.length} characters (at most ${MAX_COMPATIBILITY_CHARS})`,
      );
    }
  }
  const metadata = stringMap(data.metadata);
  if (metadata) skill.metadata = metadata;
  else if (data.metadata !== undefined && data.metadata !== null) {
    problems.push("metadata is not a map of keys to values; ignored");
  }
  return { skill, problems };
}

/** A scalar as text (YAML may read `description: 2024` as a number). */
function text(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

const TRUE_WORDS = new Set(["true", "yes", "on", "1"]);
const FALSE_WORDS = new Set(["false", "no", "off", "0"]);

/** Claude Code's booleans: true/false, yes/no, on/off, 1/0. */
function flag(value: unknown, fallback: boolean, field: string, problems: string[]): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value === "boolean") return value;
  const word = String(value).trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  problems.push(`${field} is not a yes/no value; using ${fallback}`);
  return fallback;
}

/**
 * `allowed-tools` as a YAML list, a comma list, or the spec's space-separated form, where a
 * rule's parentheses may hold spaces ("Bash(git add:*) Read").
 */
function toolList(value: unknown): string[] | undefined {
  if (Array.isArray(value)) {
    const items = value.map((item) => text(item)?.trim() ?? "").filter((item) => item !== "");
    return items.length > 0 ? items : undefined;
  }
  const raw = text(value);
  if (raw === undefined) return undefined;
  const items: string[] = [];
  let current = "";
  let depth = 0;
  for (const char of raw) {
    if (char === "(") depth += 1;
    if (char === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === "," || /\s/.test(char))) {
      if (current.trim()) items.push(current.trim());
      current = "";
      continue;
    }
    current += char;
  }
  if (current.trim()) items.push(current.trim());
  return items.length > 0 ? items : undefined;
}

function stringMap(value: unknown): Record<string, string> | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    const itemText = text(item);
    if (itemText !== undefined) out[key] = itemText;
  }
  return out;
}
