// The system prompt: the first and most stable part of what the model sees, in the fixed
// order baseline -> core skill -> AGENTS.md (user-level, then git root -> workspace) ->
// SOUL.md -> USER.md -> retrieved memory. Each section is headed by the file it came from, so
// the model knows where a rule was written. Rendering is a pure function of its inputs
// (same inputs, same bytes), so provider prompt caches keep hitting; the goal tree and the
// history are volatile and go after it, in the messages.
import { basename } from "node:path";
import type { InstructionFile } from "./instructions.js";
import { type ManifestEntry, type ManifestEntryInput, manifestEntry } from "./manifest.js";

export interface BaselineInput {
  workspaceRoot: string;
  platform: string;
  /** ISO date (YYYY-MM-DD) the run started. */
  date: string;
  /** Extra instructions from the embedding program or a preset. */
  instructions?: string;
  /** The user's secrets by name (never values) and where each may be used. */
  secrets?: ReadonlyArray<{ name: string; description: string }>;
}

export function baselineSystemPrompt(input: BaselineInput): string {
  const lines = [
    "You are reson, an autonomous software agent working in a sandboxed workspace.",
    "",
    "How you work:",
    "- Act through the tools. Inspect before you change: list, glob, grep and read the files that matter.",
    "- Make focused changes with edit_file (exact string replacement) or write_file (whole files).",
    "- Paths are relative to the workspace root; you cannot reach files outside it.",
    "- Use execute_command to build, test and inspect; it runs in the workspace root with a timeout.",
    "- When a tool returns an error, read its message and hint, and fix the call instead of repeating it.",
    "- Independent read-only calls (read_file, grep, glob, list_files) can go in one step; they run in parallel.",
    "- When the task is done, answer with a short final message that says what you did and what you found,",
    "  without calling any tool. If the task cannot be done, say why.",
    "",
    `Workspace root: ${input.workspaceRoot}`,
    `Platform: ${input.platform}`,
    `Date: ${input.date}`,
  ];
  if (input.secrets && input.secrets.length > 0) {
    lines.push(
      "",
      "Secrets: write <secret>name</secret> where a secret's value belongs (a web_fetch URL, header or body; a command).",
      "You never see the values; they are filled in when the tool runs, and outputs show the placeholder instead.",
      "In commands the value arrives as an environment variable, never on the command line.",
      ...input.secrets.map((secret) => `- ${secret.name}: ${secret.description}`),
    );
  }
  if (input.instructions?.trim()) lines.push("", "Additional instructions:", input.instructions.trim());
  return lines.join("\n");
}

export interface CoreSkillInput {
  path: string;
  text: string;
}

export interface SystemPromptInput {
  baseline: BaselineInput;
  coreSkill?: CoreSkillInput;
  /** From loadInstructions, in its order (AGENTS.md user then project levels, SOUL.md, USER.md). */
  instructions: readonly InstructionFile[];
  /** Retrieved memory and experiences, already rendered; empty or absent: no section. */
  memory?: string;
}

export interface SystemPrompt {
  text: string;
  /** One entry per section, in order; the sections joined by SECTION_SEPARATOR make `text`. */
  manifest: ManifestEntry[];
}

export const SECTION_SEPARATOR = "\n\n";

const KIND_ORDER = { agents: 0, soul: 1, user: 2 } as const;

const INSTRUCTIONS_NOTE =
  "Instruction files follow, each under a heading naming it. Follow them; where two AGENTS.md files " +
  "disagree, the one nearer the workspace wins.";

export function assembleSystemPrompt(input: SystemPromptInput): SystemPrompt {
  const sections: ManifestEntry[] = [];
  const texts: string[] = [];
  const add = (entry: ManifestEntryInput) => {
    texts.push(entry.text);
    sections.push(manifestEntry(entry));
  };

  // A stable sort keeps loadInstructions' order within a kind (user level, then root -> workspace).
  const instructions = [...input.instructions].sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind]);
  const baseline = baselineSystemPrompt(input.baseline);
  add({
    section: "baseline",
    text: instructions.length > 0 ? `${baseline}\n\n${INSTRUCTIONS_NOTE}` : baseline,
  });

  const skill = input.coreSkill?.text.trim();
  if (input.coreSkill && skill)
    add({
      section: "core-skill",
      source: input.coreSkill.path,
      text: `# Core skill (${input.coreSkill.path})\n\n${skill}`,
    });

  for (const file of instructions) {
    const body = file.text.trim();
    if (!body) continue;
    add({
      section: file.kind,
      source: file.path,
      text: `${instructionHeading(file)}\n\n${body}`,
      rawChars: file.rawChars,
      truncated: file.truncated,
    });
  }

  const memory = input.memory?.trim();
  if (memory) add({ section: "memory", text: `# Relevant memory and experiences\n\n${memory}` });

  return { text: texts.join(SECTION_SEPARATOR), manifest: sections };
}

function instructionHeading(file: InstructionFile): string {
  const name = basename(file.path);
  const where = file.scope === "user" ? "user-level" : "project";
  const cut = file.truncated ? "; cut to fit, see the marker" : "";
  return `# ${name} (${where}: ${file.path}${cut})`;
}
