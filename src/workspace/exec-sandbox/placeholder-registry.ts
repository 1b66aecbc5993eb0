// Which placeholders (protected-paths.ts) running commands still stand on, across every reson
// process of this user: one small file per running command, in a folder per workspace under
// the host's temporary folder (out of every sandbox's reach: commands get a private /tmp). A
// placeholder is removed only when no other live command lists it, so one process ending its
// command never pulls the placeholder from under another's. The check and the removal are
// synchronous and take microseconds; a command that registers in between starts its sandbox
// milliseconds later, when the folder is gone and bwrap makes a fresh one.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmdirSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processAlive } from "../../core/process-alive.js";

export interface PlaceholderClaim {
  /** The registration file. */
  file: string;
  paths: readonly string[];
}

let sequence = 0;

function registryFolder(root: string): string {
  const user = process.getuid?.() ?? "user";
  const key = createHash("sha256").update(root).digest("hex").slice(0, 24);
  return join(tmpdir(), `reson-placeholders-${user}`, key);
}

/** Records that a command of this process is about to stand on `paths` (placeholders in `root`). */
export function claimPlaceholders(root: string, paths: readonly string[]): PlaceholderClaim {
  const folder = registryFolder(root);
  sequence += 1;
  const file = join(folder, `${process.pid}.${sequence}`);
  if (paths.length === 0) return { file, paths };
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify(paths), { mode: 0o600 });
  return { file, paths };
}

/** Removes each of `paths` that is an empty folder, deepest first. */
function removeEmpty(paths: Iterable<string>): void {
  for (const path of [...paths].sort((a, b) => b.length - a.length)) {
    try {
      rmdirSync(path);
    } catch {
      // not there, or not empty: it stays
    }
  }
}

/**
 * The placeholders live commands stand on. A registration left by a process that died (reson
 * killed mid-command) is dropped, and its placeholders no live command stands on are removed.
 */
function claimedByOthers(folder: string): Set<string> {
  const claimed = new Set<string>();
  const orphaned: string[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(folder);
  } catch {
    return claimed;
  }
  for (const name of names) {
    const pid = Number(name.split(".")[0]);
    const file = join(folder, name);
    let paths: string[] = [];
    try {
      paths = JSON.parse(readFileSync(file, "utf8")) as string[];
    } catch {
      // being written, or removed meanwhile: its command has not started or has ended
    }
    if (Number.isInteger(pid) && processAlive(pid)) {
      for (const path of paths) claimed.add(path);
      continue;
    }
    orphaned.push(...paths);
    try {
      unlinkSync(file);
    } catch {
      // gone meanwhile
    }
  }
  removeEmpty(orphaned.filter((path) => !claimed.has(path)));
  return claimed;
}

/**
 * Ends `claim`: removes its placeholders that no other live command stands on, each only while
 * still an empty folder (whatever reson or the user put there from outside the sandbox stays).
 */
export function releasePlaceholders(claim: PlaceholderClaim): void {
  if (claim.paths.length === 0) return;
  try {
    unlinkSync(claim.file);
  } catch {
    // already released
  }
  const others = claimedByOthers(join(claim.file, ".."));
  removeEmpty(claim.paths.filter((path) => !others.has(path)));
}

/**
 * The placeholders of `root` that live commands (of any reson process) stand on now; those a
 * dead process left behind are removed on the way.
 */
export function placeholdersInUse(root: string): Set<string> {
  return claimedByOthers(registryFolder(root));
}

/** Removes the placeholders of `root` that reson processes which died mid-command left behind. */
export function clearOrphanedPlaceholders(root: string): void {
  claimedByOthers(registryFolder(root));
}
