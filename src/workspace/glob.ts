// Glob patterns, in the two flavours tools need: `globMatcher` is a classic glob matched
// against a path relative to the search directory (`*.ts` is one level, `**/*.ts` any depth);
// `fileFilter` is ripgrep's --glob flavour (gitignore syntax relative to the root: a pattern
// without "/" matches a name at any depth, a leading "!" excludes).
import { isAbsolute, posix } from "node:path";
import ignore from "ignore";
import { ResonError } from "../core/errors.js";
import { compileGlob } from "../core/glob-compile.js";
import { isInside } from "./sandbox.js";

export type PathMatcher = (path: string) => boolean;

/** Validates a pattern and makes an absolute one (inside the root) relative to the root. */
export function normaliseGlob(pattern: string, root: string): string {
  if (pattern.trim() === "") {
    throw new ResonError("tool_invalid_arguments", "The glob pattern is empty.", {
      hint: 'Give a pattern such as "**/*.ts".',
    });
  }
  if (pattern.includes("\0")) {
    throw new ResonError("tool_invalid_arguments", "The glob pattern contains a NUL byte.");
  }
  let relative = pattern;
  if (isAbsolute(pattern)) {
    // An absolute pattern inside the root is taken relative to it; anything else is refused.
    const normal = posix.normalize(pattern);
    if (normal === root || !isInside(root, normal)) {
      throw new ResonError(
        "path_outside_workspace",
        `Glob pattern ${JSON.stringify(pattern)} is outside the workspace.`,
        {
          hint: 'Patterns are relative to the workspace root (or to "path"), e.g. "src/**/*.ts".',
        },
      );
    }
    relative = posix.relative(root, normal);
  }
  if (relative.split("/").includes("..")) {
    throw new ResonError("path_outside_workspace", `Glob pattern ${JSON.stringify(pattern)} uses "..".`, {
      hint: 'Patterns cannot leave the search directory; set "path" to a directory inside the workspace instead.',
    });
  }
  return relative;
}

/** A classic glob (picomatch, dotfiles included) for paths relative to the search directory. */
export function globMatcher(pattern: string, root: string): PathMatcher {
  const relative = normaliseGlob(pattern, root);
  const isMatch = compileGlob(relative.replace(/^\.\//, ""), { dot: true });
  return (path) => isMatch(path);
}

/** ripgrep's --glob semantics, for paths relative to the workspace root. */
export function fileFilter(glob: string, root: string): PathMatcher {
  const negated = glob.startsWith("!");
  const relative = normaliseGlob(negated ? glob.slice(1) : glob, root);
  const rules = ignore().add(relative);
  return (path) => rules.test(path).ignored !== negated;
}
