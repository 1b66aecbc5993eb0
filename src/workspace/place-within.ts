// Making folders and files inside a folder that must not be left (a workspace root of
// `reson serve`, a new workspace a template is copied into), through the path sandbox's walk:
// every name is opened by descriptor without following a symlink, links are followed by hand
// and only while they stay inside, and what is missing is made below an open descriptor, so a
// link planted anywhere on the way, or swapped in between the check and the mkdir, is never
// followed out.
import { closeSync, constants, fchmodSync, openSync, readlinkSync, symlinkSync, writeSync } from "node:fs";
import { throwIfAborted } from "../core/abort.js";
import { ResonError } from "../core/errors.js";
import { fdPath, makeDirectories } from "./fd-ops.js";
import { isInside, type Located, locate } from "./sandbox.js";

/** What to put at a path: a file's bytes (and mode), or a symbolic link's target, as it is. */
export type PlacedEntry = { data: Uint8Array | string; mode?: number } | { linkTo: string };

/**
 * Makes the folder `path` (relative to `root`, a real path) and the folders above it that are
 * missing, or finds it there; returns its real path. Refuses (path_outside_workspace) a path
 * that leads out of `root` by `..`, a symlink at any level or another file system.
 */
export function makeFolderWithin(root: string, path: string, signal?: AbortSignal): string {
  const located = locate(root, path, signal, "place");
  try {
    if (located.info && !located.info.isDirectory()) {
      throw new ResonError("not_a_directory", `${located.real} exists and is not a folder.`, {
        hint: "Name a folder, or a path where one can be made.",
        details: { path: located.real },
      });
    }
    const folder = located.target ?? makeDirectories(located.dir, located.rest, located.mountId);
    try {
      // Where the folder is now, by its descriptor: moved out meanwhile, it is refused.
      const real = readlinkSync(fdPath(folder));
      if (!isInside(root, real)) throw leftRoot(root, path, real);
      return real;
    } finally {
      if (folder !== located.target && folder !== located.dir) closeSync(folder);
    }
  } finally {
    located.close();
  }
}

/**
 * Puts `entry` at `path` inside `root` unless something is there already (nothing is ever
 * overwritten); makes the folders above it. True when it was put, false when the name was
 * taken. Refuses a path that leads out of `root`, as makeFolderWithin does.
 */
export function placeWithin(root: string, path: string, entry: PlacedEntry, signal?: AbortSignal): boolean {
  const located = locate(root, path, signal, "place");
  try {
    if (located.info) return false;
    throwIfAborted(signal);
    const dir = makeDirectories(located.dir, located.rest.slice(0, -1), located.mountId);
    try {
      return createIn(dir, located, entry);
    } finally {
      if (dir !== located.dir) closeSync(dir);
    }
  } finally {
    located.close();
  }
}

function createIn(dir: number, located: Located, entry: PlacedEntry): boolean {
  const name = fdPath(dir, located.rest.at(-1)!);
  try {
    if ("linkTo" in entry) {
      symlinkSync(entry.linkTo, name);
      return true;
    }
    const fd = openSync(
      name,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      entry.mode ?? 0o644,
    );
    try {
      if (entry.mode !== undefined) fchmodSync(fd, entry.mode);
      const bytes = Buffer.from(entry.data);
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (error) {
    // Made meanwhile by someone else: theirs stays.
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

function leftRoot(root: string, path: string, real: string): ResonError {
  return new ResonError(
    "path_outside_workspace",
    `Path ${JSON.stringify(path)} was moved to ${real} while being made, outside ${root}.`,
    {
      hint: "Something moved the folder while it was being made; make sure nothing else works there, and try again.",
      details: { path },
    },
  );
}
