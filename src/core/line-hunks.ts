// A line diff whose cost is bounded, for every diff reson shows (an approval's, a step's, a
// rewind's). The diff library's cost grows with the edit length times the files' length: two
// unlike 300 KB files took 12 s, a 1 MB pair minutes, on the thread that also serves every
// other request. Past MAX_EDIT_LENGTH changed lines (or a time limit) the change is a whole
// replacement instead: every old line removed, every new line added, still a valid patch.

/** Lines of unchanged text around each change. */
export const CONTEXT_LINES = 3;
/** The line diff gives up past this many added plus removed lines. */
const MAX_EDIT_LENGTH = 1000;
/** And past this long (ms), whatever the edit length (a guard: the cap above bounds it first). */
const TIME_LIMIT_MS = 1000;

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** Each starts with " ", "-", "+" or "\" (no newline at the end of the file). */
  lines: string[];
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

/** The hunks from `before` to `after`; `whole` when they are one whole replacement (too many changes). */
export async function lineHunks(
  before: string,
  after: string,
  context = CONTEXT_LINES,
): Promise<{ hunks: Hunk[]; whole: boolean }> {
  // The diff library is loaded only when a diff is shown.
  const { structuredPatch } = await import("diff/lib/patch/create.js");
  const patch = structuredPatch("a", "b", before, after, undefined, undefined, {
    context,
    maxEditLength: MAX_EDIT_LENGTH,
    timeout: TIME_LIMIT_MS,
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
