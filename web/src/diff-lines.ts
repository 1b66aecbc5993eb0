// A file change as an approval shows it, the same lines as the terminal's prompt: a unified
// diff with three lines of context (the whole new file for a write that creates one), from the
// same diff library and settings, cut after a long screenful with a note of what was left out.
import { structuredPatch } from "diff";

export interface DiffLine {
  kind: "head" | "hunk" | "add" | "del" | "same" | "note";
  text: string;
}

export interface FileChangeView {
  path: string;
  before: string | null;
  after: string;
  beforeUnreadable?: string;
}

const CONTEXT_LINES = 3;
/** As the terminal's: past this many changed lines the change is shown as a whole replacement. */
const MAX_EDIT_LENGTH = 1000;
const MAX_LINES = 400;

function marked(text: string, mark: "-" | "+"): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  const endsWithNewline = lines.at(-1) === "";
  if (endsWithNewline) lines.pop();
  return [
    ...lines.map((line) => `${mark}${line}`),
    ...(endsWithNewline ? [] : ["\\ No newline at end of file"]),
  ];
}

export function diffLines(change: FileChangeView): { lines: DiffLine[]; added: number; removed: number } {
  const before = change.before ?? "";
  const patch = structuredPatch("a", "b", before, change.after, undefined, undefined, {
    context: CONTEXT_LINES,
    maxEditLength: MAX_EDIT_LENGTH,
  });
  const out: DiffLine[] = [];
  if (change.beforeUnreadable)
    out.push({
      kind: "note",
      text: `(${change.beforeUnreadable} Its content is not shown; the write replaces it.)`,
    });
  const hunks = patch
    ? patch.hunks
    : [
        {
          oldStart: 1,
          oldLines: before === "" ? 0 : before.split("\n").length,
          newStart: 1,
          newLines: change.after.split("\n").length,
          lines: [...marked(before, "-"), ...marked(change.after, "+")],
        },
      ];
  if (!patch)
    out.push({
      kind: "note",
      text: "(too many changes for a line-by-line diff: shown as a whole replacement)",
    });
  const path = change.path;
  const side = (prefix: string) => (path.startsWith("/") ? path : `${prefix}/${path}`);
  out.push({ kind: "head", text: `--- ${change.before === null ? "/dev/null" : side("a")}` });
  out.push({ kind: "head", text: `+++ ${side("b")}` });
  const body: DiffLine[] = [];
  let added = 0;
  let removed = 0;
  for (const hunk of hunks) {
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    body.push({ kind: "hunk", text: `@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@` });
    for (const line of hunk.lines) {
      const mark = line[0] ?? " ";
      const text = `${mark}${line.slice(1).replace(/\r$/, "")}`;
      if (mark === "+") added++;
      if (mark === "-") removed++;
      body.push({
        kind: mark === "+" ? "add" : mark === "-" ? "del" : mark === "\\" ? "note" : "same",
        text,
      });
    }
  }
  if (body.length === 0)
    body.push({
      kind: "note",
      text: change.before === null ? "(an empty file)" : "(no change: the new content is the file's own)",
    });
  out.push(...body.slice(0, MAX_LINES));
  if (body.length > MAX_LINES) {
    const left = body.length - MAX_LINES;
    out.push({ kind: "note", text: `… ${left} more line${left === 1 ? "" : "s"} of the diff not shown` });
  }
  return { lines: out, added, removed };
}

/** Lines of a unified diff as git prints it (GET /runs/:id/diff's patch), kinded for colour. */
export function patchLines(patch: string): DiffLine[] {
  return patch
    .split("\n")
    .filter((line, i, all) => line !== "" || i < all.length - 1)
    .map((line) => ({
      kind: /^(diff |index |--- |\+\+\+ |new file|deleted file|old mode|new mode)/.test(line)
        ? "head"
        : line.startsWith("@@")
          ? "hunk"
          : line.startsWith("+")
            ? "add"
            : line.startsWith("-")
              ? "del"
              : "same",
      text: line,
    }));
}
