// A file change as the approval prompt shows it: a unified diff (the whole new file for a
// write that creates one), coloured only on a terminal, cut after a screenful with a note of
// what was left out. Text from files and from the model is made safe to print: control
// characters and bidirectional overrides are shown, never sent to the terminal.
import { lineHunks } from "../core/line-hunks.js";
import type { FileChange } from "../tools/index.js";
import { printable } from "./terminal-text.js";

export interface DiffViewOptions {
  color: boolean;
  /** Lines of diff (hunk headers included) shown before the rest is cut; default 60. */
  maxLines?: number;
  /** Characters of one line shown; default 200. */
  maxLineChars?: number;
}

const DEFAULT_MAX_LINES = 60;
const DEFAULT_MAX_LINE_CHARS = 200;

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

// The permission prompt's diff and the run's output share one sanitiser.
export { printable };

function shorten(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}
