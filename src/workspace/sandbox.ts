// The path sandbox: every path a tool names is checked against the workspace root, first as
// a string, then walked on the real file system one component at a time by file descriptor
// (fd-ops.ts), following symbolic links by hand, so that nothing outside the root is read or
// written however the path is spelled. The walk ends holding the target (or its deepest
// existing ancestor) open, and the operation works on those descriptors: a component swapped
// for a symlink by a concurrent process after the check cannot redirect it.
//
// Not covered: a directory already walked being moved outside the root while in use (rename
// needs write access to both places), and macOS (no /proc/self/fd; file tools refuse there).
import { closeSync, constants, fstatSync, openSync, readlinkSync, type Stats } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { throwIfAborted } from "../core/abort.js";
import { ResonError } from "../core/errors.js";
import {
  closeAll,
  fdPath,
  mountIdOf,
  O_PATH,
  openDirectoryNoFollow,
  openForReading,
  openNoFollow,
  requireProc,
} from "./fd-ops.js";

/**
 * The longest path file tools take, in bytes: eight times Linux's PATH_MAX. The walk opens one
 * name at a time inside the directory before it, so PATH_MAX (4096) does not bind it; this
 * only keeps an absurd argument from costing thousands of opens.
 */
export const MAX_PATH_BYTES = 32_768;
/** Linux NAME_MAX, in bytes: the kernel refuses longer names. */
const MAX_NAME_BYTES = 255;
/** The kernel's limit on symlinks followed in one lookup. */
export const MAX_SYMLINK_HOPS = 40;

/** A path ending in "/" or "/." (or just ".") can only name a directory, as POSIX has it. */
const NAMES_DIRECTORY = /(^|\/)\.?$/;

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

/** A path as shown in a message: a very long one is cut (the details keep it whole). */
function shown(path: string): string {
  return JSON.stringify(path.length > 200 ? `${path.slice(0, 200)}…` : path);
}

function invalid(path: string, why: string, hint?: string): ResonError {
  return new ResonError("path_invalid", `Invalid path ${shown(path)}: ${why}.`, {
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
export function checkPathString(root: string, path: unknown): CheckedPath {
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
    throw invalid(
      path,
      `it is longer than ${MAX_PATH_BYTES} bytes, the most file tools take`,
      "Name a shorter path, or work in a folder deeper down with execute_command (cd into it first).",
    );
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
  return { absolute, relative: relativeToRoot(root, absolute), directory: NAMES_DIRECTORY.test(path) };
}

export interface CheckedPath {
  /** Normalised and absolute. */
  absolute: string;
  /** Relative to the root, "." for the root itself. */
  relative: string;
  /** The path as named can only be a directory (a trailing "/"). */
  directory: boolean;
}

/** A path placed in the workspace by the walk, with descriptors open: call `close` after use. */
export interface Located {
  /** The path as named, normalised, relative to the root ("." for the root). */
  relative: string;
  /** Where it really is (every symlink followed), inside the root. */
  real: string;
  /** The mount of the root; anything opened below must be on it. */
  mountId: number;
  /** The target's parent, open; when the target is missing, its deepest existing ancestor. */
  dir: number;
  /** Names from `dir` to the target: [name] when it exists ([] for the root), else the missing folders then the name. */
  rest: string[];
  /** The target itself (never a symlink), open O_PATH (or for reading, see `readable`), when it exists. */
  target: number | undefined;
  /** `target` is open O_RDONLY: the walk was asked to open it for reading and could. */
  readable: boolean;
  /** fstat of `target`. */
  info: Stats | undefined;
  /** The path as named ends in "/": it must be a directory (checked when it exists). */
  directory: boolean;
  close(): void;
}

function notADirectory(root: string, real: string, path: string): ResonError {
  return new ResonError(
    "not_a_directory",
    `${relativeToRoot(root, real)} is a file, not a directory, so ${path} cannot exist.`,
    { details: { path } },
  );
}

/**
 * Walks a checked path from the root one name at a time: each opened O_PATH|O_NOFOLLOW
 * inside the directory before it, so a symlink is seen rather than followed. A symlink is
 * read and its target spliced into the names still to walk: an absolute one must lie under
 * the root as a string and restarts from the root; ".." pops the directories actually walked
 * and never past the root; 40 links at most. A missing tail is allowed (a file to create); a
 * dangling symlink is followed to where it points, so one pointing outside is refused rather
 * than written through.
 *
 * Mounts: the target (or, when it is missing, the directory it would go in) must be on the
 * root's mount (mnt_id). A lookup only goes down into a mount, and nothing below another mount
 * is on the root's, so if the end is on the root's mount every directory on the way is too;
 * all the walk does with anything it passes through is read symlinks, whose targets it then
 * walks with the same checks.
 */
export function locate(
  root: string,
  path: unknown,
  signal?: AbortSignal,
  intent: "read" | "place" = "place",
): Located {
  throwIfAborted(signal);
  const lexical = checkPathString(root, path);
  requireProc();
  const rootFd = openSync(root, O_PATH | constants.O_DIRECTORY);
  // The directories walked, the root first; `names[i]` is the name of `fds[i]` in `fds[i - 1]`.
  const fds = [rootFd];
  const names = [""];
  // How the walk ends: the last name opened (`target`, named `targetName` in the last
  // directory walked), or `missing` names below the last directory walked, or neither (the
  // last directory walked is itself the target).
  let target: number | undefined;
  let readable = false;
  let targetName = "";
  let info: Stats | undefined;
  let missing: string[] | undefined;
  try {
    const mountId = rootMountId(root, rootFd);
    const pending = lexical.relative === "." ? [] : lexical.relative.split("/");
    let hops = 0;
    while (pending.length > 0) {
      const name = pending.shift()!;
      if (name === "" || name === ".") continue;
      if (name === "..") {
        if (fds.length === 1) {
          const where = resolve(root, "..", ...pending);
          throw outside(lexical.relative, root, `resolves through a symbolic link to ${where}`);
        }
        closeSync(fds.pop()!);
        names.pop();
        continue;
      }
      const parent = fds[fds.length - 1]!;
      const last = !pending.some((part) => part !== "" && part !== ".");
      // On the way down most names are plain directories: one open tells, no fstat needed.
      const directory = last ? undefined : openDirectoryNoFollow(parent, name);
      if (directory !== undefined) {
        fds.push(directory);
        names.push(name);
        continue;
      }
      // A file to read is opened for reading right away (O_NOFOLLOW|O_NONBLOCK: a symlink
      // fails, a FIFO cannot hang); anything else, or if that fails, as an O_PATH handle.
      let fd = last && intent === "read" ? openForReading(parent, name) : undefined;
      readable = fd !== undefined;
      try {
        fd ??= openNoFollow(parent, name);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        missing = [name, ...pending].filter((part) => part !== "" && part !== ".");
        // A ".." after a missing name cannot be resolved physically; collapsing it by string
        // could land on an unchecked symlink, so refuse.
        if (missing.includes("..")) {
          throw invalid(lexical.relative, "it goes through a directory that does not exist");
        }
        break;
      }
      target = fd;
      const stats = fstatSync(fd);
      if (stats.isSymbolicLink()) {
        target = undefined;
        readable = false;
        closeSync(fd);
        hops += 1;
        if (hops > MAX_SYMLINK_HOPS) throw invalid(lexical.relative, "too many levels of symbolic links");
        const link = readLink(parent, name);
        if (link === undefined) {
          pending.unshift(name); // no longer a symlink: look at the name again
        } else if (!isAbsolute(link)) {
          pending.unshift(...link.split("/"));
        } else {
          const normal = resolve(link);
          if (!isInside(root, normal)) {
            throw outside(lexical.relative, root, `resolves through a symbolic link to ${normal}`);
          }
          closeAll(fds.splice(1));
          names.splice(1);
          pending.unshift(...relative(root, normal).split("/"));
        }
        continue;
      }
      if (!last && stats.isDirectory()) {
        target = undefined;
        fds.push(fd);
        names.push(name);
        continue;
      }
      if (!last) throw notADirectory(root, join(realOf(root, names), name), lexical.relative);
      targetName = name;
      info = stats;
    }
    if (target === undefined && missing === undefined && fds.length > 1) {
      target = fds.pop()!;
      targetName = names.pop()!;
    } else if (target === undefined && missing === undefined) {
      target = rootFd; // the root itself, its own parent
    }
    const dir = fds[fds.length - 1]!;
    info ??= target === undefined ? undefined : fstatSync(target);
    if (lexical.directory && info !== undefined && !info.isDirectory()) {
      throw new ResonError(
        "not_a_directory",
        `${JSON.stringify(path)} names a directory (it ends with "/"), but ${lexical.relative} is a file.`,
        { hint: `Name the file without the trailing "/": ${lexical.relative}.`, details: { path } },
      );
    }
    const end = target ?? dir;
    if (end !== rootFd && mountIdOf(end) !== mountId) {
      throw outside(lexical.relative, root, `crosses into another file system (at ${realOf(root, names)})`);
    }
    for (let i = 0; i < fds.length - 1; i += 1) closeSync(fds[i]!);
    const rest = missing ?? (target === rootFd ? [] : [targetName]);
    const open = target === undefined || target === dir ? [dir] : [dir, target];
    return {
      relative: lexical.relative,
      real: join(realOf(root, names), ...rest),
      mountId,
      dir,
      rest,
      target,
      readable: readable && target !== undefined && target !== dir,
      info,
      directory: lexical.directory,
      close: () => {
        for (const fd of open) closeSync(fd);
      },
    };
  } catch (error) {
    if (target !== undefined && !fds.includes(target)) closeSync(target);
    closeAll(fds);
    throw error;
  }
}

/** The target of the symlink `name` in `dirFd`, or undefined when it is no longer a symlink. */
function readLink(dirFd: number, name: string): string | undefined {
  try {
    return readlinkSync(fdPath(dirFd, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EINVAL") return undefined;
    throw error;
  }
}

function realOf(root: string, names: readonly string[]): string {
  return names.length === 1 ? root : join(root, ...names.slice(1));
}

const rootMounts = new Map<string, number>();

/** The mount of the workspace root, read once per root (it is fixed for the workspace's life). */
function rootMountId(root: string, rootFd: number): number {
  let id = rootMounts.get(root);
  if (id === undefined) {
    id = mountIdOf(rootFd);
    rootMounts.set(root, id);
  }
  return id;
}

/** Where a path really is, and whether it exists; refuses paths that leave the root. */
export async function resolvePath(root: string, path: unknown, signal?: AbortSignal): Promise<ResolvedPath> {
  const located = locate(root, path, signal);
  located.close();
  return { relative: located.relative, real: located.real, exists: located.info !== undefined };
}
