// The lock of a placeholder registry folder, shared by every reson process of the user. The
// lock is the name `lock`, a hard link to its holder's claim file `lock.<pid>-<start>-<nonce>`:
// the pid and the process's start time (from /proc/<pid>/stat), so a pid the kernel gave to
// another process since is not taken for the holder. Taking it is link(claim, lock), which one
// process wins. A holder that died (or whose pid now names another process) is replaced by
// renaming its claim file to the taker's: a rename of one name succeeds once, so of several
// processes that see the same stale lock exactly one takes it, and the lock itself is never
// removed by anyone but its holder.
import { randomBytes } from "node:crypto";
import {
  linkSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { processAlive } from "../../core/process-alive.js";

/** The lock's name; its holder's claim files start with it too (a registry skips them all). */
export const LOCK_NAME = "lock";
const CLAIM_PREFIX = `${LOCK_NAME}.`;

export interface HeldLock {
  folder: string;
  /** This holder's claim file (the lock is a second name of it). */
  claim: string;
}

/**
 * A process's start time in clock ticks since boot, as /proc/<pid>/stat gives it; undefined
 * when the process is gone or a zombie, "" where there is no /proc to tell.
 */
export function processStart(pid: number | "self"): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && existsProc()) return undefined;
    return pid === "self" || processAlive(pid) ? "" : undefined;
  }
  // "pid (comm) state ppid ... starttime(22nd) ..."; comm may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  if (fields[0] === "Z" || fields[0] === "X") return undefined;
  return fields[19] ?? "";
}

let procMounted: boolean | undefined;
function existsProc(): boolean {
  if (procMounted === undefined) {
    try {
      lstatSync("/proc/self/stat");
      procMounted = true;
    } catch {
      procMounted = false;
    }
  }
  return procMounted;
}

let ownStart: string | undefined;
/** This process's start time (as `processStart` gives it). */
export function ownStartTime(): string {
  ownStart ??= processStart("self") ?? "";
  return ownStart;
}

/**
 * A new claim on the lock of `folder` for this process (named for its pid, its start time and a
 * part no other claim shares); `tryTakeLock` makes it the lock.
 */
export function newClaim(folder: string): HeldLock {
  const name = `${CLAIM_PREFIX}${process.pid}-${ownStartTime()}-${randomBytes(6).toString("hex")}`;
  return { folder, claim: join(folder, name) };
}

/**
 * Whether `pid` still names the process that started at `start` (a zombie does not count);
 * without a start time, or without /proc, only whether the pid runs.
 */
export function sameProcess(pid: number, start: string | undefined): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const now = processStart(pid);
  if (now === undefined) return false;
  return now === "" || !start || now === start;
}

/** Whether the process a claim names is still the one that made it. */
function claimantAlive(name: string): boolean {
  const [pid, start] = name.slice(CLAIM_PREFIX.length).split("-");
  return sameProcess(Number(pid), start);
}

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/**
 * The claim file the lock is a name of, or undefined when there is no lock (or it changed
 * meanwhile). Claim files of dead processes that are not the lock (a waiter killed while
 * waiting, a holder killed while letting go) are removed on the way.
 */
function lockClaim(folder: string, lockIno: number): string | undefined {
  let found: string | undefined;
  for (const name of readdirSync(folder)) {
    if (!name.startsWith(CLAIM_PREFIX)) continue;
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(join(folder, name));
    } catch {
      continue; // renamed or removed meanwhile
    }
    if (stat.ino === lockIno) found = name;
    // One name only: not the lock, and its maker is gone so it never will be.
    else if (stat.nlink === 1 && !claimantAlive(name)) {
      try {
        unlinkSync(join(folder, name));
      } catch {
        // removed meanwhile
      }
    }
  }
  return found;
}

/**
 * One attempt at the lock with the claim file `claim` (made here if missing, kept for the next
 * attempt when this one fails): true when this process holds the lock.
 */
export function tryTakeLock({ folder, claim }: HeldLock): boolean {
  const lock = join(folder, LOCK_NAME);
  try {
    writeFileSync(claim, "", { flag: "wx", mode: 0o600 });
  } catch (error) {
    if (code(error) !== "EEXIST") throw error;
  }
  try {
    linkSync(claim, lock);
    return true;
  } catch (error) {
    if (code(error) !== "EEXIST") throw error;
  }
  let lockStat: ReturnType<typeof lstatSync>;
  try {
    lockStat = lstatSync(lock);
  } catch {
    return false; // let go meanwhile: try again
  }
  if (lockStat.isSymbolicLink()) return breakLegacyLock(lock);
  const holder = lockClaim(folder, lockStat.ino);
  if (holder === undefined || claimantAlive(holder)) return false;
  // Its holder is gone: take its claim over. Of several takers one rename succeeds.
  try {
    renameSync(join(folder, holder), claim);
  } catch (error) {
    if (code(error) === "ENOENT") return false;
    throw error;
  }
  // The claim taken was still the lock (not one its holder let go of just before dying).
  try {
    return lstatSync(lock).ino === lstatSync(claim).ino;
  } catch {
    return false;
  }
}

/**
 * A lock of an earlier reson (a symbolic link naming the holder's pid): removed when that pid
 * no longer runs, as that version did.
 */
function breakLegacyLock(lock: string): false {
  let holder: number;
  try {
    holder = Number(readlinkSync(lock));
  } catch {
    return false; // let go meanwhile
  }
  if (Number.isInteger(holder) && holder > 0 && processAlive(holder)) return false;
  try {
    unlinkSync(lock);
  } catch {
    // removed meanwhile
  }
  return false;
}

/** How long to wait before looking at another process's lock again. */
const RETRY_MS = 2;

/** Takes the lock of `folder` (an existing folder), waiting while a live process holds it. */
export async function takeLock(folder: string): Promise<HeldLock> {
  const held = newClaim(folder);
  try {
    while (!tryTakeLock(held)) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  } catch (error) {
    removeQuietly(held.claim);
    throw error;
  }
  return held;
}

/**
 * Lets go of `held`: the lock is removed only while it is still this holder's (true then);
 * the claim file goes either way.
 */
export function releaseLock(held: HeldLock): boolean {
  const lock = join(held.folder, LOCK_NAME);
  let mine = false;
  try {
    mine = lstatSync(lock).ino === lstatSync(held.claim).ino;
  } catch {
    // no lock, or no claim: nothing of this holder's to remove
  }
  // Only this holder removes its lock, so nothing can replace it between the check and here.
  if (mine) unlinkSync(lock);
  removeQuietly(held.claim);
  return mine;
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
