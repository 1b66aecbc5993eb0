// edit_file: replace an exact piece of text in a file. Refuses to guess: no match and more
// than one match are errors that say how to fix the call. Keeps the file's CRLF line endings.
import { Type } from "typebox";
import { ResonError } from "../../core/errors.js";
import type { ToolDefinition } from "../types.js";
import { numberedLines, splitLines } from "./numbered-lines.js";

/** Lines of context shown around an edit. */
const CONTEXT_LINES = 3;
const MAX_SNIPPET_LINES = 40;

const parameters = Type.Object(
  {
    path: Type.String({ description: "File path relative to the workspace root." }),
    old_string: Type.String({
      description: "The exact text to replace, including whitespace and indentation.",
    }),
    new_string: Type.String({ description: "The text to put in its place." }),
    replace_all: Type.Optional(
      Type.Boolean({
        description: "Replace every occurrence instead of requiring exactly one; default false.",
      }),
    ),
  },
  { additionalProperties: false },
);

/** Start indexes of the non-overlapping occurrences of `needle`. */
function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) {
    found.push(at);
  }
  return found;
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf("\n"); at !== -1 && at < index; at = text.indexOf("\n", at + 1)) line += 1;
  return line;
}

/** True when every newline in the text is part of a CRLF. */
function usesCrlf(text: string): boolean {
  return text.includes("\r\n") && !/(^|[^\r])\n/.test(text);
}

function noMatchHint(text: string, oldString: string): string {
  const squash = (s: string) => s.replace(/\s+/g, " ").trim();
  if (squash(oldString) !== "" && squash(text).includes(squash(oldString))) {
    return "old_string matches only if whitespace is ignored: check indentation (tabs or spaces) and line breaks against read_file's output.";
  }
  const firstLine = oldString
    .split("\n")
    .find((line) => line.trim() !== "")
    ?.trim();
  if (firstLine) {
    const lines = splitLines(text);
    const near = lines.flatMap((line, index) => (line.includes(firstLine) ? [index + 1] : [])).slice(0, 3);
    if (near.length > 0) {
      return `Its first line appears at line ${near.join(", ")}; the lines after it differ. Read that part of the file again and copy the text exactly.`;
    }
  }
  return "Read the file again with read_file and copy the text exactly (without the line-number prefix).";
}

interface EditArgs {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

interface PlannedEdit {
  updated: string;
  /** Where each replaced occurrence starts in the original text. */
  found: number[];
  /** new_string as written into the file (in its line-ending convention). */
  newString: string;
}

/** Refuses an edit that names nothing to replace or would change nothing (before any read). */
function refuseEmptyEdit(args: EditArgs): void {
  if (args.old_string === "") {
    throw new ResonError("tool_invalid_arguments", "old_string is empty.", {
      hint: "Give the exact text to replace; to create a file or replace all of it, use write_file.",
      details: { field: "old_string" },
    });
  }
  if (args.old_string === args.new_string) {
    throw new ResonError(
      "tool_invalid_arguments",
      "old_string and new_string are the same, so nothing would change.",
      {
        details: { field: "new_string" },
      },
    );
  }
}

/** The file's text after the edit, or the error that says how to fix the call. */
function plannedEdit(text: string, args: EditArgs, path: string): PlannedEdit {
  let oldString = args.old_string;
  let newString = args.new_string;
  let found = occurrences(text, oldString);
  if (usesCrlf(text)) {
    // The model writes \n; the file has \r\n. Match and write in the file's convention.
    newString = newString.replace(/\r?\n/g, "\r\n");
    if (found.length === 0 && !oldString.includes("\r\n") && oldString.includes("\n")) {
      oldString = oldString.replace(/\n/g, "\r\n");
      found = occurrences(text, oldString);
    }
  }
  if (found.length === 0) {
    throw new ResonError("edit_no_match", `old_string was not found in ${path}.`, {
      hint: noMatchHint(text, args.old_string),
      details: { path },
    });
  }
  if (found.length > 1 && args.replace_all !== true) {
    const lines = found.slice(0, 10).map((index) => lineAt(text, index));
    throw new ResonError(
      "edit_ambiguous",
      `old_string occurs ${found.length} times in ${path} (at line${lines.length === 1 ? "" : "s"} ${lines.join(", ")}${found.length > lines.length ? ", …" : ""}).`,
      {
        hint: "Include more surrounding lines in old_string so it matches once, or set replace_all=true to change every occurrence.",
        details: { path, matches: found.length },
      },
    );
  }
  const parts: string[] = [];
  let from = 0;
  for (const index of found) {
    parts.push(text.slice(from, index), newString);
    from = index + oldString.length;
  }
  parts.push(text.slice(from));
  return { updated: parts.join(""), found, newString };
}

export const editFileTool: ToolDefinition<typeof parameters> = {
  name: "edit_file",
  description:
    "Edit a text file by replacing old_string with new_string. old_string must match the file exactly " +
    "(whitespace and indentation included, without read_file's line-number prefix) and occur exactly once, " +
    "unless replace_all is true; include a few surrounding lines to make it unique. Read the file first. " +
    "To create a file or rewrite it whole, use write_file. The write is atomic.",
  parameters,
  readOnly: false,
  async execute(args, ctx) {
    refuseEmptyEdit(args);
    const file = await ctx.workspace.readText(args.path, { signal: ctx.signal });
    const { updated, found, newString } = plannedEdit(file.text, args, file.path);
    await ctx.workspace.writeText(file.path, updated, { signal: ctx.signal });

    const count = `${found.length} occurrence${found.length === 1 ? "" : "s"}`;
    let content = `Edited ${file.path}: replaced ${count}.`;
    if (found.length === 1) {
      // Show the edited region so the model can check it without reading the file again.
      const start = lineAt(updated, found[0]!);
      const end = start + splitLines(newString).length - 1;
      const lines = splitLines(updated);
      const from = Math.max(1, start - CONTEXT_LINES);
      const to = Math.min(lines.length, Math.max(start, end) + CONTEXT_LINES, from + MAX_SNIPPET_LINES - 1);
      if (lines.length > 0) content += `\n\n${numberedLines(lines, from, to)}`;
    }
    return { content, longTermMemory: `edited ${file.path} (${count} replaced)` };
  },
  async preview(args, ctx) {
    refuseEmptyEdit(args);
    const file = await ctx.workspace.readText(args.path, { signal: ctx.signal });
    const { updated, found } = plannedEdit(file.text, args, file.path);
    return { path: file.path, before: file.text, after: updated, replacements: found.length };
  },
};
