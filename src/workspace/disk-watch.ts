// The disk quota of one command: the file systems it can write to (the workspace's, and those of
// extra writable folders) are sampled with statfs while it runs, and the command is stopped once
// it has grown their use past its quota, or brought one near full. RLIMIT_FSIZE bounds a single
// file; this bounds many files, fallocate and sparse tricks alike, since it measures the file
// system itself, needs no privilege, and costs a statfs per sample. It counts what anything
// else writes to the same file system meanwhile, so the quota is generous by default.
import { stat, statfs } from "node:fs/promises";

/** Between two samples: at 1 GB/s a command gets about this many milliseconds' worth past its quota. */
export const DISK_SAMPLE_MS = 20;
/** Left free whatever the quota: a command that brings a file system below this is stopped. */
const MIN_FREE_BYTES = 256 * 1024 ** 2;
/** Likewise for inodes (a command making millions of empty files fills a disk too), as a share. */
const MIN_FREE_INODE_RATIO = 0.01;

interface FileSystemUse {
  path: string;
  usedBytes: number;
  usedInodes: number;
}

/** Why a command was stopped: past its quota, a file system nearly full, or nearly out of inodes. */
export type DiskLimitHit = "quota" | "full" | "inodes";

export interface DiskWatch {
  /** Why the command was stopped, once it was. */
  readonly exceeded: DiskLimitHit | undefined;
  stop(): void;
}

async function sample(path: string) {
  const info = await statfs(path);
  return {
    usedBytes: (info.blocks - info.bfree) * info.bsize,
    freeBytes: info.bavail * info.bsize,
    usedInodes: info.files - info.ffree,
    freeInodes: info.ffree,
    inodes: info.files,
  };
}

/** One path per file system among `paths` (existing ones only). */
async function distinctFileSystems(paths: readonly string[]): Promise<string[]> {
  const byDevice = new Map<number, string>();
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (info && !byDevice.has(info.dev)) byDevice.set(info.dev, path);
  }
  return [...byDevice.values()];
}

/** The use of the watched file systems before the command starts, ready to watch from. */
export interface DiskBaseline {
  /** Samples every DISK_SAMPLE_MS; `onExceeded` is called once, with the reason. */
  start(onExceeded: (reason: DiskLimitHit) => void): DiskWatch;
}

/**
 * Takes the baseline of the file systems of `paths`, so that what the command then makes them
 * grow by (together) can be held to `quotaBytes`.
 */
export async function diskBaseline(paths: readonly string[], quotaBytes: number): Promise<DiskBaseline> {
  const systems: FileSystemUse[] = [];
  for (const path of await distinctFileSystems(paths)) {
    const first = await sample(path).catch(() => undefined);
    if (first) systems.push({ path, usedBytes: first.usedBytes, usedInodes: first.usedInodes });
  }
  const check = async (): Promise<DiskLimitHit | undefined> => {
    let grownBytes = 0;
    for (const system of systems) {
      const now = await sample(system.path).catch(() => undefined);
      if (!now) continue;
      const grown = now.usedBytes - system.usedBytes;
      grownBytes += Math.max(0, grown);
      if (grown > 0 && now.freeBytes < MIN_FREE_BYTES) return "full";
      if (now.usedInodes > system.usedInodes && now.freeInodes < now.inodes * MIN_FREE_INODE_RATIO)
        return "inodes";
    }
    return grownBytes > quotaBytes ? "quota" : undefined;
  };
  return {
    start(onExceeded) {
      let exceeded: DiskLimitHit | undefined;
      let busy = false;
      const timer = setInterval(() => {
        if (busy || exceeded !== undefined) return;
        busy = true;
        void check()
          .then((reason) => {
            if (reason === undefined || exceeded !== undefined) return;
            exceeded = reason;
            onExceeded(reason);
          })
          .finally(() => {
            busy = false;
          });
      }, DISK_SAMPLE_MS);
      timer.unref();
      return {
        get exceeded() {
          return exceeded;
        },
        stop: () => clearInterval(timer),
      };
    },
  };
}
