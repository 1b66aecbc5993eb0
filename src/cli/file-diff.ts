// A file change as the approval prompt shows it: a unified diff (the whole new file for a
// write that creates one), coloured only on a terminal, cut after a screenful with a note of
// what was left out. Text from files and from the model is made safe to print: control
// characters and bidirectional overrides are shown, never sent to the terminal.
import type { FileChange } from "../tools/index.js";
import { printable } from "./terminal-text.js";

export interface DiffViewOptions {
  color: boolean;
  /** Lines of diff (hunk headers included) shown before the rest is cut; default 60. */
  maxLines?: number;
  /** Characters of one line shown; default 200. */
  maxLineChars?: number;
}

/** Lines of unchanged text around each change. */
const CONTEXT_LINES = 3;
const DEFAULT_MAX_LINES = 60;
const DEFAULT_MAX_LINE_CHARS = 200;
/**
 * The line diff gives up past this many added plus removed lines (its cost grows with their
 * product with the file's length) and the change is shown as a whole replacement instead.
 */
const MAX_EDIT_LENGTH = 1000;

interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** Each starts with " ", "-", "+" or "\" (no newline at the end of the file). */
  lines: string[];
}

export interface DiffView {
  /** The diff, a line each (no newlines), indented for the prompt. */
  lines: string[];
  added: number;
  removed: number;
}

export async function fileDiff(change: FileChange, options: DiffViewOptions): Promise<DiffView> {
  const paint = (code: string, text: string) => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxLineChars = options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS;
  const before = change.before ?? "";
  const { hunks, whole } = await lineHunks(before, change.after);
  const path = printable(change.path);
  const out: string[] = [];
  if (change.beforeUnreadable)
    out.push(
      paint(
        "2",
        `  (${printable(change.beforeUnreadable)} Its content is not shown; the write replaces it.)`,
      ),
    );
  if (whole)
    out.push(paint("2", "  (too many changes for a line-by-line diff: shown as a whole replacement)"));
  const side = (prefix: string) => (path.startsWith("/") ? path : `${prefix}/${path}`);
  out.push(paint("1", `  --- ${change.before === null ? "/dev/null" : side("a")}`));
  out.push(paint("1", `  +++ ${side("b")}`));
  const body: string[] = [];
  let added = 0;
  let removed = 0;
  for (const hunk of hunks) {
    // As in `diff -u`: a side with no lines is numbered from the line before it.
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    body.push(paint("36", `  @@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`));
    for (const line of hunk.lines) {
      const mark = line[0] ?? " ";
      const text = `  ${mark}${shorten(printable(line.slice(1).replace(/\r$/, "")), maxLineChars)}`;
      if (mark === "+") {
        added++;
        body.push(paint("32", text));
      } else if (mark === "-") {
        removed++;
        body.push(paint("31", text));
      } else if (mark === "\\") {
        body.push(paint("2", `  \\${line.slice(1)}`));
      } else {
        body.push(text);
      }
    }
  }
  if (body.length === 0)
    body.push(
      paint(
        "2",
        change.before === null ? "  (an empty file)" : "  (no change: the new content is the file's own)",
      ),
    );
  out.push(...body.slice(0, maxLines));
  if (body.length > maxLines) {
    const left = body.length - maxLines;
    out.push(paint("2", `  … ${left} more line${left === 1 ? "" : "s"} of the diff not shown`));
  }
  return { lines: out, added, removed };
}

/** Lines of `text` for a whole-replacement hunk, with the no-newline marker where due. */
function markedLines(text: string, mark: "-" | "+"): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  const endsWithNewline = lines.at(-1) === "";
  if (endsWithNewline) lines.pop();
  const marked = lines.map((line) => `${mark}${line}`);
  if (!endsWithNewline) marked.push("\\ No newline at end of file");
  return marked;
}

async function lineHunks(before: string, after: string): Promise<{ hunks: Hunk[]; whole: boolean }> {
  // The diff library is loaded only when a prompt shows a change.
  const { structuredPatch } = await import("diff/lib/patch/create.js");
  const patch = structuredPatch("a", "b", before, after, undefined, undefined, {
    context: CONTEXT_LINES,
    maxEditLength: MAX_EDIT_LENGTH,
  });
  if (patch) return { hunks: patch.hunks, whole: false };
  const removed = markedLines(before, "-");
  const added = markedLines(after, "+");
  const count = (lines: string[]) => lines.filter((line) => !line.startsWith("\\")).length;
  return {
    hunks: [
      {
        oldStart: 1,
        oldLines: count(removed),
        newStart: 1,
        newLines: count(added),
        lines: [...removed, ...added],
      },
    ],
    whole: true,
  };
}

// The permission prompt's diff and the run's output share one sanitiser.
export { printable };

function shorten(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}
