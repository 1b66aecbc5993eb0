// Path specifiers: gitignore-style patterns with Claude Code's anchors.
//   `//abs/x`  absolute from the filesystem root
//   `~/x`      from the user's home
//   `/x`       from the root of the settings file that holds the rule (project root, or $RESON_HOME)
//   `x`, `./x` from the workspace root; as in gitignore, a pattern with no inner `/` matches at
//              any depth, one with an inner `/` is anchored. In deny and ask rules a relative
//              pattern matches at any depth even with an inner `/` (stricter is the safe side).
// A pattern naming a folder also covers everything inside it.
import { relative } from "node:path";
import { globMatches } from "../core/glob-compile.js";
import { isWithin } from "../core/path-within.js";
import type { RuleList } from "./types.js";

export interface PathAnchors {
  workspaceRoot: string;
  userHome: string;
  /** The root of the settings file holding the rule. */
  sourceRoot: string;
}

interface CompiledPattern {
  base: string;
  globs: string[];
}

function compile(pattern: string, list: RuleList, anchors: PathAnchors): CompiledPattern {
  if (pattern.startsWith("//")) return anchored("/", pattern.slice(2));
  if (pattern === "~") return anchored(anchors.userHome, "**");
  if (pattern.startsWith("~/")) return anchored(anchors.userHome, pattern.slice(2));
  if (pattern.startsWith("/")) return anchored(anchors.sourceRoot, pattern.slice(1));
  const relativePattern = pattern.startsWith("./") ? pattern.slice(2) : pattern;
  const trimmed = relativePattern.replace(/\/+$/, "");
  const hasInnerSlash = trimmed.includes("/");
  if (pattern.startsWith("./") || (hasInnerSlash && list === "allow"))
    return anchored(anchors.workspaceRoot, relativePattern);
  const body = trimmed.startsWith("**/") ? trimmed.slice(3) : trimmed;
  return { base: anchors.workspaceRoot, globs: [`**/${body}`, `**/${body}/**`] };
}

function anchored(base: string, glob: string): CompiledPattern {
  const trimmed = glob.replace(/\/+$/, "");
  if (trimmed === "" || trimmed === "**") return { base, globs: ["**"] };
  return { base, globs: [trimmed, `${trimmed}/**`] };
}

/** A file name as a pattern that matches just that name (glob characters escaped). */
export function escapeGlob(path: string): string {
  return path.replace(/[\\*?[\]{}()!+@|]/g, "\\$&");
}

/** Whether absolute `path` matches the rule's path pattern. */
export function matchesPathPattern(
  path: string,
  pattern: string,
  list: RuleList,
  anchors: PathAnchors,
): boolean {
  const { base, globs } = compile(pattern, list, anchors);
  if (!isWithin(path, base)) return false;
  const rel = relative(base, path);
  if (rel === "") return globs.includes("**");
  return globs.some((glob) => globMatches(rel, glob, { dot: true }));
}
