// The file walk behind glob and the JS grep: depth first, names sorted, ignore files
// respected (see ignore-rules.ts), `.git` always skipped, symlinks never followed (as
// ripgrep does without -L), other mounts not entered, and a cap on the files returned. Each
// directory is opened inside its parent's descriptor (fd-ops.ts), so one swapped for a
// symlink mid-walk is skipped rather than followed.
import { closeSync, constants, type Dirent, openSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { throwIfAborted } from "../core/abort.js";
import { fdPath, mountIdOf, O_PATH, openDirectoryNoFollow } from "./fd-ops.js";
import { toFsError } from "./fs-errors.js";
import { admitDirectory, type IgnoreLayer, isIgnoredEntry, loadIgnoreLayer } from "./ignore-rules.js";

export interface WalkOptions {
  /** Stop after this many files (default 20,000). */
  maxFiles?: number;
  /** Paths (relative to the root) the walk leaves out, with everything beneath them. */
  skip?: (path: string) => boolean;
  signal?: AbortSignal;
}

export interface WalkResult {
  /** Files found, relative to the root with "/" separators, in walk order. */
  files: string[];
  /** True when the walk stopped at `maxFiles` with more files left. */
  truncated: boolean;
}

export const DEFAULT_MAX_WALK_FILES = 20_000;

export function compareNames(a: string, b: string): number {
  if (a < b) return -1;
  return a > b ? 1 : 0;
}

/** The directory `name` inside `dirFd`, open, or undefined when it is not a directory on `mountId`. */
function openSubdirectory(dirFd: number, name: string, mountId: number): number | undefined {
  let fd: number | undefined;
  try {
    fd = openDirectoryNoFollow(dirFd, name);
  } catch {
    return undefined; // unreadable: skipped, as ripgrep does
  }
  if (fd === undefined || mountIdOf(fd) === mountId) return fd; // gone or a symlink now: skipped
  closeSync(fd);
  return undefined;
}

/**
 * Walks the directory `start` (relative to the root, "." for the root), a real path the
 * sandbox has checked: no name on the way down to it may be a symlink now.
 */
export async function walkFiles(root: string, start: string, options: WalkOptions = {}): Promise<WalkResult> {
  const maxFiles = options.maxFiles ?? DEFAULT_MAX_WALK_FILES;
  const startDir = start === "." ? "" : start;
  const files: string[] = [];
  let truncated = false;

  const rootFd = openSync(root, O_PATH | constants.O_DIRECTORY);
  const open = [rootFd];
  try {
    const mountId = mountIdOf(rootFd);
    // The rules of the start directory's ancestors apply below it too, but the start itself
    // (and the way down to it) is searched even if ignored: the caller named it.
    let ancestors: IgnoreLayer[] = [];
    const parts = startDir === "" ? [] : startDir.split("/");
    for (let depth = 0; depth < parts.length; depth += 1) {
      const layer = await loadIgnoreLayer(fdPath(open.at(-1)!), parts.slice(0, depth).join("/"));
      if (layer) ancestors.push(layer);
      ancestors = admitDirectory(ancestors, parts.slice(0, depth + 1).join("/"));
      const next = openSubdirectory(open.at(-1)!, parts[depth]!, mountId);
      if (next === undefined) throw toFsError({ code: "ELOOP" }, start);
      open.push(next);
    }

    const visit = async (fd: number, dir: string, inherited: readonly IgnoreLayer[]): Promise<void> => {
      throwIfAborted(options.signal);
      const entries = await readdir(fdPath(fd), { withFileTypes: true }).catch(
        (): Dirent[] => [], // unreadable directories are skipped, as ripgrep does
      );
      const own = await loadIgnoreLayer(fdPath(fd), dir, new Set(entries.map((entry) => entry.name)));
      const active = own ? [...inherited, own] : inherited;
      entries.sort((a, b) => compareNames(a.name, b.name));
      for (const entry of entries) {
        if (truncated) return;
        if (entry.name === ".git") continue;
        const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
        if (options.skip?.(path)) continue;
        if (entry.isDirectory()) {
          if (isIgnoredEntry(active, dir, entry.name, true)) continue;
          const child = openSubdirectory(fd, entry.name, mountId);
          if (child === undefined) continue;
          try {
            await visit(child, path, admitDirectory(active, path));
          } finally {
            closeSync(child);
          }
          continue;
        }
        if (!entry.isFile() || isIgnoredEntry(active, dir, entry.name, false)) continue;
        if (files.length >= maxFiles) {
          truncated = true;
          return;
        }
        files.push(path);
      }
    };
    await visit(open.at(-1)!, startDir, ancestors);
  } finally {
    for (const fd of open) closeSync(fd);
  }
  return { files, truncated };
}
