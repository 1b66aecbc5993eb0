// The writes that put a workspace back as a snapshot had it (reson rewind): files with their
// bytes and mode, symbolic links, folders, removals. Stricter than the file tools' sandbox:
// no symbolic link is followed anywhere on the way, not even one that stays inside the root,
// since a link where the snapshot had a folder is itself a change to undo. Every name is
// opened inside its parent's descriptor (fd-ops.ts) and every folder must be on the root's
// mount. Paths are the snapshot's own: relative, "/"-separated, already normalised.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  closeSync,
  constants,
  openSync,
  readdirSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
} from "node:fs";
import { ResonError } from "../core/errors.js";
import {
  fdPath,
  makeDirectories,
  mountIdOf,
  O_PATH,
  openDirectoryNoFollow,
  replaceFile,
  requireProc,
} from "./fd-ops.js";

function split(path: string): { parents: string[]; name: string } {
  const names = path.split("/");
  if (names.some((name) => name === "" || name === "." || name === ".."))
    throw new ResonError("path_invalid", `Invalid path ${JSON.stringify(path)} in a snapshot.`);
  const name = names.pop()!;
  return { parents: names, name };
}

/** Runs `use` with the parent folder of `path` open, made (with its own parents) if missing. */
function inParent<T>(root: string, path: string, use: (dirFd: number, name: string) => T): T {
  requireProc();
  const { parents, name } = split(path);
  const rootFd = openSync(root, O_PATH | constants.O_DIRECTORY);
  try {
    const dir = makeDirectories(rootFd, parents, mountIdOf(rootFd));
    try {
      return use(dir, name);
    } finally {
      if (dir !== rootFd) closeSync(dir);
    }
  } finally {
    closeSync(rootFd);
  }
}

/** Runs `use` with the parent of `path` open if every folder on the way is there (else nothing). */
function inExistingParent(root: string, path: string, use: (dirFd: number, name: string) => void): void {
  requireProc();
  const { parents, name } = split(path);
  let dir = openSync(root, O_PATH | constants.O_DIRECTORY);
  try {
    for (const parent of parents) {
      const next = openDirectoryNoFollow(dir, parent);
      if (next === undefined) return;
      closeSync(dir);
      dir = next;
    }
    use(dir, name);
  } finally {
    closeSync(dir);
  }
}

/**
 * Writes `path` with exactly these bytes and permission bits (a new inode, renamed into place),
 * not synced: the caller makes the rewind durable as a whole (flushFileSystem).
 */
export function restoreFile(root: string, path: string, bytes: Uint8Array, mode: number): void {
  inParent(root, path, (dir, name) => replaceFile(dir, name, bytes, mode & 0o7777, false));
}

/**
 * Makes everything written on the file system of `root` durable, with one syncfs (coreutils'
 * `sync -f`) instead of one fsync per file; where that is missing, nothing is done.
 */
export function flushFileSystem(root: string): void {
  spawnSync("sync", ["-f", root], { stdio: "ignore", timeout: 60_000 });
}

/** Makes `path` a symbolic link to `target` (the link is made, never followed). */
export function restoreSymlink(root: string, path: string, target: string): void {
  inParent(root, path, (dir, name) => {
    removeIn(dir, name);
    symlinkSync(target, fdPath(dir, name));
  });
}

/** Makes the folder `path` (and its parents) if missing. */
export function restoreDirectory(root: string, path: string): void {
  inParent(root, path, (dir, name) => closeSync(makeDirectories(dir, [name], mountIdOf(dir))));
}

/** Sets the permission bits of the file or folder `path` (a symbolic link is left alone). */
export function restoreMode(root: string, path: string, mode: number): void {
  inExistingParent(root, path, (dir, name) => {
    let fd: number;
    try {
      fd = openSync(fdPath(dir, name), O_PATH | constants.O_NOFOLLOW);
    } catch {
      return;
    }
    try {
      // Through the descriptor's own link: the very inode opened, never a symlink's target.
      chmodSync(fdPath(fd), mode & 0o7777);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOOP") throw error;
    } finally {
      closeSync(fd);
    }
  });
}

/** Removes `path`: a file, a link, or a folder with everything in it. Missing is fine. */
export function removeEntry(root: string, path: string): void {
  inExistingParent(root, path, removeIn);
}

function removeIn(dir: number, name: string): void {
  const sub = openDirectoryNoFollow(dir, name);
  if (sub === undefined) {
    try {
      unlinkSync(fdPath(dir, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    return;
  }
  try {
    // A folder made read-only still loses its entries: its owner may always change its mode.
    chmodSync(fdPath(sub), 0o700);
    for (const child of readdirSync(fdPath(sub))) removeIn(sub, child);
  } finally {
    closeSync(sub);
  }
  rmdirSync(fdPath(dir, name));
}
