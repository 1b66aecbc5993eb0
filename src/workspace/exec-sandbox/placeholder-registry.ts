// Which placeholders (protected-paths.ts) running commands still stand on, across every reson
// process of this user: one small file per running command, in a folder per workspace under
// the host's temporary folder (out of every sandbox's reach: commands get a private /tmp). A
// placeholder is removed only when no other live command lists it, so one process ending its
// command never pulls the placeholder from under another's.
// Choosing and registering a command's placeholders, and checking and removing them after it,
// each hold the folder's lock (registry-lock.ts: its holder's pid and start time): without it, a command
// of another process could register and mount on a placeholder between this process's check
// and its removal, and removing a folder that is a mount point in another namespace detaches
// that mount (Linux 3.18+), leaving the path writable inside the other command. Removals run
// in parallel on the thread pool, off the main thread; a command of this process waits for
// them (the lock's queue) before it chooses its own.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { rmdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCK_NAME, ownStartTime, releaseLock, sameProcess, takeLock } from "./registry-lock.js";

export interface PlaceholderClaim {
  /** The registration file. */
  file: string;
  paths: readonly string[];
}

let sequence = 0;
/** Per registry folder, the end of this process's queue for its lock. */
const queues = new Map<string, Promise<void>>();

function registryFolder(root: string): string {
  const user = process.getuid?.() ?? "user";
  const key = createHash("sha256").update(root).digest("hex").slice(0, 24);
  return join(tmpdir(), `reson-placeholders-${user}`, key);
}

/**
 * Runs `work` holding the registry folder's lock: after this process's earlier holders (a
 * queue, so its commands never poll each other), then across processes by the lock file.
 */
async function withLock<T>(folder: string, work: () => Promise<T> | T): Promise<T> {
  const previous = queues.get(folder) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => {
    done = resolve;
  });
  const tail = previous.then(() => mine);
  queues.set(folder, tail);
  await previous;
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const held = await takeLock(folder);
    try {
      return await work();
    } finally {
      releaseLock(held);
    }
  } finally {
    done();
    if (queues.get(folder) === tail) queues.delete(folder);
  }
}

/** Removes each of `paths` that is an empty folder, in parallel, parents after their children. */
async function removeEmpty(paths: Iterable<string>): Promise<void> {
  const byDepth = new Map<number, string[]>();
  for (const path of new Set(paths)) {
    const depth = path.split("/").length;
    byDepth.set(depth, [...(byDepth.get(depth) ?? []), path]);
  }
  for (const depth of [...byDepth.keys()].sort((a, b) => b - a)) {
    // Not there, or not empty (something was put there from outside the sandbox): it stays.
    await Promise.all(byDepth.get(depth)!.map((path) => rmdir(path).catch(() => undefined)));
  }
}

/** Every registration in `folder`: its file, whether its process lives, the paths it names. */
function* registrations(folder: string): Generator<{ file: string; live: boolean; paths: string[] }> {
  let names: string[] = [];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(LOCK_NAME)) continue; // the lock and its claim files
    // "<pid>-<start time>.<n>" (an earlier reson wrote "<pid>.<n>").
    const [pid, start] = name.split(".")[0]!.split("-");
    const file = join(folder, name);
    let paths: string[] = [];
    try {
      paths = JSON.parse(readFileSync(file, "utf8")) as string[];
    } catch {
      // removed meanwhile (registrations are written under the lock, so never half written)
    }
    yield { file, live: sameProcess(Number(pid), start), paths };
  }
}

/**
 * The placeholders live commands stand on, and those that registrations of dead processes
 * (reson killed mid-command) named; the dead registrations are dropped. Under the lock.
 */
function readRegistry(folder: string): { claimed: Set<string>; orphaned: string[] } {
  const claimed = new Set<string>();
  const orphaned: string[] = [];
  for (const { file, live, paths } of registrations(folder)) {
    if (live) {
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
  return { claimed, orphaned: orphaned.filter((path) => !claimed.has(path)) };
}

/**
 * Registers a command of this process: `choose` gets the placeholders live commands stand on
 * now (still placeholders, though they exist) and returns those this command will stand on.
 * Dead processes' placeholders are removed first, and no other command's removal can run
 * between the choice and the registration.
 */
export async function claimPlaceholders(
  root: string,
  choose: (inUse: ReadonlySet<string>) => string[],
): Promise<PlaceholderClaim> {
  const folder = registryFolder(root);
  sequence += 1;
  const file = join(folder, `${process.pid}-${ownStartTime()}.${sequence}`);
  return withLock(folder, async () => {
    const { claimed, orphaned } = readRegistry(folder);
    await removeEmpty(orphaned);
    const paths = choose(claimed);
    if (paths.length > 0) writeFileSync(file, JSON.stringify(paths), { mode: 0o600 });
    return { file, paths };
  });
}

/**
 * Ends `claim`: removes its placeholders that no other live command stands on, each only while
 * still an empty folder (whatever reson or the user put there from outside the sandbox stays).
 */
export async function releasePlaceholders(claim: PlaceholderClaim): Promise<void> {
  if (claim.paths.length === 0) return;
  const folder = join(claim.file, "..");
  await withLock(folder, async () => {
    try {
      unlinkSync(claim.file);
    } catch {
      // already released
    }
    const { claimed, orphaned } = readRegistry(folder);
    await removeEmpty([...orphaned, ...claim.paths.filter((path) => !claimed.has(path))]);
  });
}

/**
 * The placeholders of `root` that live commands stand on now (absolute paths), read without the
 * lock and changing nothing: for a snapshot, to which they are not the user's files.
 */
export function livePlaceholders(root: string): Set<string> {
  const live = new Set<string>();
  for (const registration of registrations(registryFolder(root)))
    if (registration.live) for (const path of registration.paths) live.add(path);
  return live;
}

/** Removes the placeholders of `root` that reson processes which died mid-command left behind. */
export async function clearOrphanedPlaceholders(root: string): Promise<void> {
  const folder = registryFolder(root);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return; // no command ever ran here
  }
  if (names.every((name) => name.startsWith(LOCK_NAME))) return;
  await withLock(folder, async () => {
    await removeEmpty(readRegistry(folder).orphaned);
  });
}
