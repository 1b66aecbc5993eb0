// The writes that put a workspace back as a snapshot had it (reson rewind): files with their
// bytes and mode, symbolic links, folders, removals. Stricter than the file tools' sandbox:
// no symbolic link is followed anywhere on the way, not even one that stays inside the root,
// since a link where the snapshot had a folder is itself a change to undo. Every name is
// opened inside its parent's descriptor (fd-ops.ts) and every folder must be on the root's
// mount. A restorer keeps the folders it opened, so a rewind of a thousand files in fifty
// folders opens each folder once. Paths are the snapshot's own: relative, "/"-separated.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { ResonError } from "../core/errors.js";
import {
  entryPath,
  fdPath,
  mountIdOf,
  O_PATH,
  openDirectoryNoFollow,
  replaceFile,
  requireProc,
} from "./fd-ops.js";

function split(path: string): { parent: string; name: string } {
  const names = path.split("/");
  if (names.some((name) => name === "" || name === "." || name === ".."))
    throw new ResonError("path_invalid", `Invalid path ${JSON.stringify(path)} in a snapshot.`);
  const name = names.pop()!;
  return { parent: names.join("/"), name };
}

export class WorkspaceRestorer {
  private readonly rootFd: number;
  private readonly mountId: number;
  /** Folders opened so far (O_PATH, never through a link), by path. */
  private readonly folders = new Map<string, number>();

  constructor(root: string) {
    requireProc();
    this.rootFd = openSync(root, O_PATH | constants.O_DIRECTORY);
    try {
      this.mountId = mountIdOf(this.rootFd);
    } catch (error) {
      closeSync(this.rootFd);
      throw error;
    }
  }

  /** The folder `path`, open; made (with its parents) when `make`, else undefined if missing. */
  private folder(path: string, make: boolean): number | undefined {
    if (path === "") return this.rootFd;
    const open = this.folders.get(path);
    if (open !== undefined) return open;
    const { parent, name } = split(path);
    const above = this.folder(parent, make);
    if (above === undefined) return undefined;
    if (make) {
      try {
        mkdirSync(fdPath(above, name), 0o777);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
    }
    const fd = openDirectoryNoFollow(above, name);
    if (fd === undefined) {
      if (!make) return undefined;
      throw new ResonError("not_a_directory", `${path} is not a folder (a file or a link is in the way).`);
    }
    if (mountIdOf(fd) !== this.mountId) {
      closeSync(fd);
      throw new ResonError("path_outside_workspace", `${path} is on another file system.`);
    }
    this.folders.set(path, fd);
    return fd;
  }

  /**
   * Writes `path` with exactly these bytes and permission bits (a new inode, renamed into
   * place), not synced: the caller makes the rewind durable as a whole (flush). `missing`:
   * the plan expects nothing there, so the file is made in place (no temporary name, no
   * rename); if something is there after all, it is replaced. A write a crash cuts short leaves
   * a partial file, which the rewind completing this one hashes, finds different, and writes again.
   */
  writeFile(path: string, bytes: Uint8Array, mode: number, missing = false): void {
    const { parent, name } = split(path);
    const dir = this.folder(parent, true)!;
    if (!missing || !createFile(dir, name, bytes, mode & 0o7777))
      replaceFile(dir, name, bytes, mode & 0o7777, false);
  }

  /** Makes `path` a symbolic link to `target` (the link is made, never followed). */
  symlink(path: string, target: string): void {
    const { parent, name } = split(path);
    const dir = this.folder(parent, true)!;
    this.removeIn(dir, path, name);
    symlinkSync(target, fdPath(dir, name));
  }

  /** Makes the folder `path` (and its parents) if missing. */
  makeFolder(path: string): void {
    this.folder(path, true);
  }

  /** Sets the permission bits of the file or folder `path` (a symbolic link is left alone). */
  setMode(path: string, mode: number): void {
    const { parent, name } = split(path);
    const dir = this.folder(parent, false);
    if (dir === undefined) return;
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
  }

  /** Removes `path`: a file, a link, or a folder with everything in it. Missing is fine. */
  remove(path: string): void {
    const { parent, name } = split(path);
    const dir = this.folder(parent, false);
    if (dir !== undefined) this.removeIn(dir, path, name);
  }

  private removeIn(dir: number, path: string, name: string): void {
    for (const [open, fd] of this.folders) {
      if (open !== path && !open.startsWith(`${path}/`)) continue;
      closeSync(fd);
      this.folders.delete(open);
    }
    removeEntry(dir, name);
  }

  /** Lets go of the folders it opened. */
  close(): void {
    for (const fd of this.folders.values()) closeSync(fd);
    this.folders.clear();
    closeSync(this.rootFd);
  }
}

/** Makes the file `name` with these bytes and exact mode, not synced; false if something is there. */
function createFile(dir: number, name: string, bytes: Uint8Array, mode: number): boolean {
  let fd: number;
  try {
    fd = openSync(
      fdPath(dir, name),
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      mode,
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  let done = false;
  try {
    // The creation mode went through the umask.
    fchmodSync(fd, mode);
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    done = true;
  } finally {
    closeSync(fd);
    // Nothing was there: a write that failed (a full disk) leaves nothing either.
    if (!done) {
      try {
        unlinkSync(fdPath(dir, name));
      } catch {
        // Already gone; the write's error is the one to report.
      }
    }
  }
  return true;
}

function removeEntry(dir: number, name: string | Buffer): void {
  const sub = openDirectoryNoFollow(dir, name);
  if (sub === undefined) {
    try {
      unlinkSync(entryPath(dir, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    return;
  }
  try {
    // A folder made read-only still loses its entries: its owner may always change its mode.
    chmodSync(fdPath(sub), 0o700);
    // Names as bytes: one that is not UTF-8 is removed too, not left to make rmdir fail.
    for (const child of readdirSync(fdPath(sub), { encoding: "buffer" })) removeEntry(sub, child);
  } finally {
    closeSync(sub);
  }
  rmdirSync(entryPath(dir, name));
}

/**
 * Makes everything written on the file system of `root` durable, with one syncfs (coreutils'
 * `sync -f`) instead of one fsync per file; where that is missing, nothing is done.
 */
export function flushFileSystem(root: string): void {
  spawnSync("sync", ["-f", root], { stdio: "ignore", timeout: 60_000 });
}
