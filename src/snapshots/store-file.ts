// Reading one workspace file into the object store, as every snapshot reads it: opened
// O_NOFOLLOW, its real path checked through /proc/self/fd (a folder swapped for a link cannot
// smuggle content from outside), its facts taken before the read (a change during it shows
// next time), and left out when it is not a regular file, too large, unreadable or holds one
// of the user's secrets. Used by the capture (workspace-model.ts) and a rewind's scan.
import { closeSync, constants, fstatSync, openSync, readlinkSync, type Stats } from "node:fs";
import { readRegular } from "../workspace/index.js";
import type { ObjectStore } from "./object-store.js";
import type { ExcludedReason } from "./types.js";

const O_READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export interface StoreFileOptions {
  objects: ObjectStore;
  maxFileBytes: number;
  holdsSecret?: (bytes: Buffer) => boolean;
}

export type StoredFile =
  | { stored: true; hash: string; added: number; size: number; stats: Stats }
  | { stored: false; reason: ExcludedReason; size: number };

/** Stores the file at `abs` (an absolute path), or says why a snapshot leaves it out. */
export function storeFile(abs: string, options: StoreFileOptions): StoredFile {
  let fd: number;
  try {
    fd = openSync(abs, O_READ);
  } catch {
    return { stored: false, reason: "unreadable", size: 0 };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { stored: false, reason: "special", size: 0 };
    const max = options.maxFileBytes;
    if (stats.size > max) return { stored: false, reason: "too_large", size: stats.size };
    if (readlinkSync(`/proc/self/fd/${fd}`) !== abs) return { stored: false, reason: "unreadable", size: 0 };
    const bytes = readRegular(fd, true, stats.size, max);
    if (bytes.length > max) return { stored: false, reason: "too_large", size: bytes.length };
    if (options.holdsSecret?.(bytes)) return { stored: false, reason: "secret", size: bytes.length };
    const { hash, added } = options.objects.put(bytes);
    return { stored: true, hash, added, size: bytes.length, stats };
  } catch {
    return { stored: false, reason: "unreadable", size: 0 };
  } finally {
    closeSync(fd);
  }
}
