// File operations by descriptor, for the path sandbox: a name is only ever looked up inside a
// directory already open (through /proc/self/fd/<fd>/<name>), never by a path string that a
// concurrent process could re-point. Linux only: without /proc the file tools refuse to work.
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { ResonError } from "../core/errors.js";

/**
 * Linux O_PATH (not in Node's constants): a handle on an inode that opens nothing, so it has
 * no side effects on a FIFO or a device, needs no read permission, and with O_NOFOLLOW
 * yields the symlink itself rather than ELOOP. Its value on every architecture Node builds for.
 */
export const O_PATH = 0o10000000;

/** Prefix of the temporary files writes create beside their target. */
export const TEMP_PREFIX = ".reson-tmp-";

let procChecked = false;

/** Refuses file operations where /proc/self/fd is missing (not Linux, or /proc not mounted). */
export function requireProc(): void {
  if (procChecked) return;
  if (process.platform !== "linux" || !existsSync("/proc/self/fdinfo")) {
    throw new ResonError(
      "tool_failed",
      "File tools are off: they need Linux with /proc mounted, to open paths without following symbolic links.",
      {
        hint: "Run reson on Linux with /proc mounted (in a container, do not hide /proc); use execute_command meanwhile.",
      },
    );
  }
  procChecked = true;
}

/** The path that reaches `name` inside the open directory `dirFd` (or the fd's own inode). */
export function fdPath(dirFd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${dirFd}` : `/proc/self/fd/${dirFd}/${name}`;
}

/** `name` inside the folder `dirFd`, as a path; a name read as bytes stays bytes (it may not be UTF-8). */
export function entryPath(dirFd: number, name: string | Buffer): string | Buffer {
  return typeof name === "string"
    ? fdPath(dirFd, name)
    : Buffer.concat([Buffer.from(`${fdPath(dirFd)}/`), name]);
}

/** Opens `name` inside `dirFd` as an O_PATH handle without following a symlink there. */
export function openNoFollow(dirFd: number, name: string): number {
  return openSync(fdPath(dirFd, name), O_PATH | constants.O_NOFOLLOW);
}

/**
 * Opens `name` inside `dirFd` for reading without following a symlink there (O_NONBLOCK: a
 * FIFO cannot hang us), or undefined when that fails, for whatever reason: the caller then
 * looks at it through an O_PATH handle, which says why.
 */
export function openForReading(dirFd: number, name: string): number | undefined {
  try {
    return openSync(fdPath(dirFd, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
}

/**
 * Opens the directory `name` inside `dirFd` as an O_PATH handle, or undefined when it is not
 * a directory (a symlink, even to one, is not), or not there.
 */
export function openDirectoryNoFollow(dirFd: number, name: string | Buffer): number | undefined {
  try {
    return openSync(entryPath(dirFd, name), O_PATH | constants.O_NOFOLLOW | constants.O_DIRECTORY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR" || code === "ELOOP" || code === "ENOENT") return undefined;
    throw error;
  }
}

const fdinfo = Buffer.alloc(1024);

/**
 * The mount an fd lives on, from /proc/self/fdinfo. A bind mount of the same file system
 * keeps st_dev, so st_dev cannot tell a mount crossing; mnt_id can.
 */
export function mountIdOf(fd: number): number {
  const info = openSync(`/proc/self/fdinfo/${fd}`, constants.O_RDONLY);
  let length: number;
  try {
    length = readSync(info, fdinfo, 0, fdinfo.length, 0);
  } finally {
    closeSync(info);
  }
  const match = /mnt_id:\s*(\d+)/.exec(fdinfo.toString("latin1", 0, length));
  if (!match) throw new ResonError("tool_failed", `No mount id in /proc/self/fdinfo/${fd}.`);
  return Number(match[1]);
}

export function closeAll(fds: Iterable<number>): void {
  for (const fd of new Set(fds)) closeSync(fd);
}

/**
 * Reads the regular file `fd` (the caller made sure it is one, of about `expectedBytes`), to
 * its end or to one byte past `maxBytes` (so the caller can tell it is too large). An O_PATH
 * handle (`readable` false) is reopened through /proc/self/fd/<fd>, which opens the very
 * inode the sandbox checked: no name is looked up again. Synchronous on purpose: for one
 * capped file, thread-pool round trips cost more than the work.
 */
export function readRegular(
  handle: number,
  readable: boolean,
  expectedBytes: number,
  maxBytes: number,
): Buffer {
  const fd = readable ? handle : openSync(fdPath(handle), constants.O_RDONLY);
  try {
    let buffer = Buffer.allocUnsafe(Math.min(expectedBytes, maxBytes) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) break;
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return buffer.subarray(0, length);
  } finally {
    if (fd !== handle) closeSync(fd);
  }
}

/**
 * Creates the folders `names` one below the other under `dirFd`, each opened without
 * following a symlink and checked to be on `mountId`; returns the innermost, open (the
 * caller closes it), or `dirFd` itself when `names` is empty.
 */
export function makeDirectories(dirFd: number, names: readonly string[], mountId: number): number {
  let current = dirFd;
  try {
    for (const name of names) {
      try {
        mkdirSync(fdPath(current, name), 0o777);
      } catch (error) {
        // Made meanwhile by someone else: fine if it is a directory, which the open checks.
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const next = openDirectoryNoFollow(current, name);
      // A symlink or a file put there meanwhile: refused, never followed.
      if (next === undefined)
        throw Object.assign(new Error(`${name} is not a directory`), { code: "ENOTDIR" });
      if (current !== dirFd) closeSync(current);
      current = next;
      if (mountIdOf(current) !== mountId) {
        throw new ResonError(
          "path_outside_workspace",
          `The folder ${name} was replaced by a mount while being created.`,
        );
      }
    }
    return current;
  } catch (error) {
    if (current !== dirFd) closeSync(current);
    throw error;
  }
}

/**
 * Replaces or creates `name` in the open directory `dirFd`: a new temporary file there
 * (O_EXCL|O_NOFOLLOW), written and fsynced, renamed over the name. A symlink at the name is
 * replaced, not followed, and a hard link is broken: no other inode is ever written. The
 * temporary file is removed on any failure. `sync` false skips the fsync, for a caller that
 * makes many files durable at once afterwards.
 */
export function replaceFile(
  dirFd: number,
  name: string,
  data: string | Uint8Array,
  mode: number | undefined,
  sync = true,
): void {
  const temp = `${TEMP_PREFIX}${randomBytes(6).toString("hex")}`;
  const fd = openSync(
    fdPath(dirFd, temp),
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    mode ?? 0o644,
  );
  let renamed = false;
  try {
    try {
      // The creation mode passes through the umask; an existing file's mode is kept exactly.
      if (mode !== undefined) fchmodSync(fd, mode);
      const bytes = typeof data === "string" ? Buffer.from(data) : data;
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
      if (sync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(fdPath(dirFd, temp), fdPath(dirFd, name));
    renamed = true;
  } finally {
    if (!renamed) {
      try {
        unlinkSync(fdPath(dirFd, temp));
      } catch {
        // Already gone; the original error is the one to report.
      }
    }
  }
}
