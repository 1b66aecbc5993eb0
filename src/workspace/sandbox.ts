// The path sandbox: every path a tool names is checked against the workspace root, first as
// a string and then on the real file system, following symbolic links by hand, so that
// nothing outside the root is read or written however the path is spelled.
//
// Remaining window: the check resolves to a real path and the operation then uses that path,
// so a component swapped for a symlink between the two (by a concurrent process) is not
// seen. Reads open the last component with O_NOFOLLOW and writes rename over it, which
// closes the window for the last component only; a later issue moves to fd-based walking
// (openat through /proc/self/fd) to close it for every component, and adds mount checks.
import { realpathSync } from "node:fs";
import { lstat, readlink } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { throwIfAborted } from "../core/abort.js";
import { ResonError } from "../core/errors.js";

/** Linux PATH_MAX and NAME_MAX, in bytes. */
const MAX_PATH_BYTES = 4096;
const MAX_NAME_BYTES = 255;
/** The kernel's limit on symlinks followed in one lookup. */
const MAX_SYMLINK_HOPS = 40;

const OUTSIDE_HINT =
  'Use a path relative to the workspace root (e.g. "src/index.ts"); files outside the workspace cannot be reached.';

export interface ResolvedPath {
  /** The path as named, normalised, relative to the root with "/" separators ("." for the root). */
  relative: string;
  /** The absolute real path (every symlink followed), inside the root. */
  real: string;
  /** Whether something exists at `real`; when false, `real` is where it would be created. */
  exists: boolean;
}

export function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return candidate.startsWith(prefix);
}

/** `real` relative to the root, "." for the root itself. */
export function relativeToRoot(root: string, real: string): string {
  return relative(root, real) || ".";
}

function invalid(path: string, why: string, hint?: string): ResonError {
  return new ResonError("path_invalid", `Invalid path ${JSON.stringify(path)}: ${why}.`, {
    hint: hint ?? "Name a file or directory relative to the workspace root, with / separators.",
    details: { path },
  });
}

function outside(path: string, root: string, why: string): ResonError {
  return new ResonError(
    "path_outside_workspace",
    `Path ${JSON.stringify(path)} ${why}, outside the workspace (${root}).`,
    { hint: OUTSIDE_HINT, details: { path } },
  );
}

/**
 * Checks a path as a string and places it against the root without touching the disk.
 * Refuses: non-strings, empty, NUL, lone surrogates, backslashes (no Windows separators on
 * POSIX: a name with "\" is almost always a mistake), a leading "~" segment (no home
 * expansion is done, and a folder named "~" is never what was meant), over-long paths or
 * names, and anything that normalises outside the root. Never percent-decodes: "%2e%2e" is
 * an ordinary name.
 */
export function checkPathString(root: string, path: unknown): { absolute: string; relative: string } {
  if (typeof path !== "string") throw invalid(String(path), "a path must be a string");
  if (path.length === 0) throw invalid(path, "the path is empty");
  if (path.includes("\0")) throw invalid(path, "it contains a NUL byte");
  if (/[\uD800-\uDFFF]/u.test(path)) throw invalid(path, "it is not well-formed Unicode");
  if (path.includes("\\")) {
    throw invalid(path, "it contains a backslash", 'Use "/" to separate directories, e.g. "src/index.ts".');
  }
  if (path === "~" || path.startsWith("~/")) {
    throw invalid(
      path,
      '"~" is not expanded',
      "Paths are relative to the workspace root; the home directory is outside the workspace.",
    );
  }
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) {
    throw invalid(path, `it is longer than ${MAX_PATH_BYTES} bytes`);
  }
  for (const name of path.split("/")) {
    if (Buffer.byteLength(name) > MAX_NAME_BYTES) {
      throw invalid(path, `a name in it is longer than ${MAX_NAME_BYTES} bytes`);
    }
  }
  const absolute = resolve(root, path);
  if (!isInside(root, absolute)) {
    throw outside(path, root, isAbsolute(path) ? "is an absolute path" : 'climbs out through ".."');
  }
  return { absolute, relative: relativeToRoot(root, absolute) };
}

/**
 * The common case in one system call: a path with no ".." that exists. realpath(3) follows
 * every link the way the kernel will at use, so the answer is the same as the walk below.
 * Anything else (missing tail, "..", an error) takes the walk, which explains its refusals.
 * Synchronous: a path lookup is cheaper than a round trip through the thread pool.
 */
function resolveExisting(
  root: string,
  path: string,
  lexical: { absolute: string; relative: string },
): ResolvedPath | undefined {
  if (path.split("/").includes("..")) return undefined;
  let real: string;
  try {
    real = realpathSync.native(lexical.absolute);
  } catch {
    return undefined;
  }
  if (!isInside(root, real))
    throw outside(lexical.relative, root, `resolves through a symbolic link to ${real}`);
  return { relative: lexical.relative, real, exists: true };
}

/**
 * Resolves a path to its real location, following symlinks one component at a time
 * (relative and absolute targets, `..` popping the physical parent), and refuses it when
 * the real location is outside the root. A missing tail is allowed (a file to create) as
 * long as the nearest existing ancestor is inside; a dangling symlink is followed to where
 * it points, so one pointing outside is refused rather than written through.
 */
export async function resolvePath(root: string, path: unknown, signal?: AbortSignal): Promise<ResolvedPath> {
  throwIfAborted(signal);
  const lexical = checkPathString(root, path);
  const fast = resolveExisting(root, path as string, lexical);
  if (fast) return fast;
  const pending = lexical.relative === "." ? [] : lexical.relative.split("/");
  let current = root;
  let hops = 0;
  while (pending.length > 0) {
    const name = pending.shift()!;
    if (name === "" || name === ".") continue;
    if (name === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, name);
    const info = await lstat(next).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      // Whatever went wrong out there (no such directory, no permission), the answer is "outside".
      if (!isInside(root, current)) {
        throw outside(lexical.relative, root, `resolves through a symbolic link to ${current}`);
      }
      if (error.code !== "ENOTDIR") throw error;
      throw new ResonError(
        "not_a_directory",
        `${relativeToRoot(root, current)} is a file, not a directory, so ${lexical.relative} cannot exist.`,
        { details: { path: lexical.relative } },
      );
    });
    if (info === undefined) {
      const rest = [name, ...pending].filter((part) => part !== "" && part !== ".");
      // A ".." after a missing name cannot be resolved physically; collapsing it by string
      // could land on an unchecked symlink, so refuse.
      if (rest.includes("..")) {
        throw invalid(lexical.relative, "it goes through a directory that does not exist");
      }
      const real = join(current, ...rest);
      if (!isInside(root, real)) {
        throw outside(lexical.relative, root, `resolves through a symbolic link to ${real}`);
      }
      return { relative: lexical.relative, real, exists: false };
    }
    if (info.isSymbolicLink()) {
      hops += 1;
      if (hops > MAX_SYMLINK_HOPS) throw invalid(lexical.relative, "too many levels of symbolic links");
      const target = await readlink(next);
      if (isAbsolute(target)) current = "/";
      pending.unshift(...target.split("/"));
      continue;
    }
    current = next;
  }
  if (!isInside(root, current)) {
    throw outside(lexical.relative, root, `resolves through a symbolic link to ${current}`);
  }
  return { relative: lexical.relative, real: current, exists: true };
}
