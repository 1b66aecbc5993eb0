// Every glob reson compiles goes through here. picomatch (4.0.7) loops forever on a pattern
// ending in four or more backslashes (its parser skips a run of backslashes past the end), and
// reads a longer run as fewer backslashes than it holds. Patterns come from the model (the glob
// tool), from rules narrowed from a path the model named, and from settings files, so one file
// called `a\\` must not hang a permission check. An escaped backslash outside a bracket
// expression is therefore given to picomatch as the class `[\\]`, which it reads exactly.
import picomatch from "picomatch";

export type GlobOptions = picomatch.PicomatchOptions;

/** `pattern` with each escaped backslash (`\\`) outside a bracket expression written as `[\\]`. */
export function bracketEscapedBackslashes(pattern: string): string {
  if (!pattern.includes("\\\\")) return pattern;
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") {
      const next = pattern[i + 1];
      if (next === undefined) {
        out += ch;
      } else if (next === "\\") {
        out += "[\\\\]";
        i++;
      } else {
        out += ch + next;
        i++;
      }
      continue;
    }
    if (ch === "[") {
      const end = bracketEnd(pattern, i);
      if (end !== -1) {
        // A bracket expression is copied as it is: picomatch reads backslashes in it correctly.
        out += pattern.slice(i, end + 1);
        i = end;
        continue;
      }
    }
    out += ch;
  }
  return out;
}

/** Where the bracket expression opened at `start` closes, or -1 when it does not (a literal "["). */
function bracketEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === "!" || pattern[i] === "^") i++;
  // A "]" first in the expression is a member, not its end.
  if (pattern[i] === "]") i++;
  for (; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++;
    else if (pattern[i] === "]") return i;
  }
  return -1;
}

/** A matcher for `pattern` (or any of `patterns`), as picomatch would build it, without its backslash defect. */
export function compileGlob(pattern: string | string[], options?: GlobOptions): (path: string) => boolean {
  const patterns = Array.isArray(pattern)
    ? pattern.map(bracketEscapedBackslashes)
    : bracketEscapedBackslashes(pattern);
  return picomatch(patterns, options);
}

/** Whether `path` matches `pattern` (compiled each call: for patterns used once). */
export function globMatches(path: string, pattern: string, options?: GlobOptions): boolean {
  return picomatch.isMatch(path, bracketEscapedBackslashes(pattern), options);
}
