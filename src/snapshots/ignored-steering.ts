// Files that steer later runs inside folders snapshots never list (ignored ones: build/, vendor/,
// node_modules/x, or a folder a command has just added to .gitignore). A snapshot keeps a
// steering file that is itself ignored, but it does not open an ignored folder, so a steering
// file planted in one escapes the put-back of a run that read untrusted content. For such a
// run's call, these files are copied before it and looked at again after it: what the call
// planted, changed or removed there is put back, through the same safe restore a rewind uses.
// Only these calls pay for it: a listing of the ignored folders (no stat but of steering names),
// but for the folders package managers and tools fill (node_modules, .venv, caches), which can
// hold tens of thousands of folders and where no one starts a run (the instruction files a run
// reads are those of the folders from its git root down to where it starts).
import {
  closeSync,
  constants,
  type Dirent,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  type Stats,
} from "node:fs";
import { STEERING_FILES, STEERING_FOLDERS, steeringUnit, TOOL_FOLDERS } from "../workspace/index.js";
import type { ObjectStore } from "./object-store.js";
import type { RestoreOp } from "./rewind-plan.js";
import { storeFile } from "./store-file.js";
import type { TreeEntry } from "./types.js";

/** A steering file as it was found: its entry (excluded when not copied) and its stat facts. */
export interface SteeringCopy {
  entry: TreeEntry;
  /** Size, times and inode: how a file reson could not copy is seen to change. */
  stamp: string;
}

/** Steering files inside ignored folders, by root-relative path. */
export type SteeringCopies = Map<string, SteeringCopy>;

export interface CopyOptions {
  objects: ObjectStore;
  maxFileBytes: number;
  holdsSecret?: (bytes: Buffer) => boolean;
}

const STEERING_NAMES: ReadonlySet<string> = new Set(STEERING_FILES);
/** The last names of the steering folders: only a folder with one of them can start one. */
const FOLDER_ENDS: ReadonlySet<string> = new Set(STEERING_FOLDERS.map((folder) => folder.split("/").at(-1)!));

function join(rel: string, name: string): string {
  return rel === "" ? name : `${rel}/${name}`;
}

/** The folders (and files) a snapshot's tree leaves out as ignored, at any depth. */
export function ignoredEntries(objects: ObjectStore, tree: string): string[] {
  const found: string[] = [];
  const stack: Array<[string, string]> = [["", tree]];
  while (stack.length > 0) {
    const [rel, hash] = stack.pop()!;
    for (const entry of objects.tree(hash)) {
      const path = join(rel, entry.name);
      if (entry.kind === "dir") stack.push([path, entry.hash]);
      else if (entry.kind === "excluded" && entry.reason === "ignored") found.push(path);
    }
  }
  return found;
}

/** Copies every steering file (and everything in a steering folder) found inside `folders`. */
export function copyIgnoredSteering(
  root: string,
  folders: Iterable<string>,
  options: CopyOptions,
): SteeringCopies {
  const copies: SteeringCopies = new Map();
  // [path, inside a steering folder]
  const stack: Array<[string, boolean]> = [];
  const toolFolder = (path: string) => TOOL_FOLDERS.has(path.slice(path.lastIndexOf("/") + 1));
  for (const folder of folders)
    if (!toolFolder(folder)) stack.push([folder, steeringUnit(folder) !== undefined]);
  while (stack.length > 0) {
    const [rel, inUnit] = stack.pop()!;
    for (const dirent of listFolder(`${root}/${rel}`)) {
      const path = join(rel, dirent.name);
      if (dirent.isDirectory()) {
        if (dirent.name === ".git" || TOOL_FOLDERS.has(dirent.name)) continue;
        stack.push([path, inUnit || (FOLDER_ENDS.has(dirent.name) && steeringUnit(path) === path)]);
      } else if (inUnit || STEERING_NAMES.has(dirent.name)) {
        const copy = copyOne(root, path, options);
        if (copy) copies.set(path, copy);
      }
    }
  }
  return copies;
}

/** A folder's entries, never through a link (an ignored `node_modules` may be one); none for a file. */
function listFolder(abs: string): Dirent[] {
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch {
    return []; // a file, a link, gone, or unreadable
  }
  try {
    return readdirSync(`/proc/self/fd/${fd}`, { withFileTypes: true });
  } catch {
    return [];
  } finally {
    closeSync(fd);
  }
}

function copyOne(root: string, path: string, options: CopyOptions): SteeringCopy | undefined {
  const abs = `${root}/${path}`;
  const name = path.slice(path.lastIndexOf("/") + 1);
  let stats: Stats;
  try {
    stats = lstatSync(abs);
  } catch {
    return undefined;
  }
  const stamp = `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}:${stats.mode}`;
  const excluded = (reason: TreeEntry["reason"]): SteeringCopy => ({
    entry: { name, kind: "excluded", mode: 0, hash: "", size: stats.size, reason },
    stamp,
  });
  if (stats.isSymbolicLink()) {
    // A link is kept as its target's name, as snapshots keep it.
    try {
      const { hash } = options.objects.put(Buffer.from(readlinkSync(abs)));
      return { entry: { name, kind: "link", mode: 0, hash, size: 0 }, stamp };
    } catch {
      return excluded("unreadable");
    }
  }
  if (!stats.isFile()) return excluded("special");
  const stored = storeFile(abs, options);
  if (!stored.stored) return excluded(stored.reason);
  const entry: TreeEntry = {
    name,
    kind: "file",
    mode: stats.mode & 0o7777,
    hash: stored.hash,
    size: stored.size,
  };
  return { entry, stamp };
}

/** Two copies of one path that say the same (a file not copied: by its stat facts). */
function sameCopy(a: SteeringCopy, b: SteeringCopy): boolean {
  if (a.entry.kind !== b.entry.kind) return false;
  if (a.entry.kind === "excluded") return a.stamp === b.stamp;
  return a.entry.hash === b.entry.hash && a.entry.mode === b.entry.mode;
}

export interface SteeringPutBack {
  /** The operations that put the changed steering files back (a safe restore applies them). */
  ops: RestoreOp[];
  /** The steering units (steeringUnit) the call changed that these put back. */
  putBack: string[];
  /** Those it changed that cannot be put back: reson had no copy of them (too large, a secret). */
  notPutBack: string[];
}

/**
 * What puts the steering files of `now` back as `before` had them: a file the call added is
 * removed (a steering folder that was not there goes whole), one it changed or removed is
 * written again. `before` also answers for paths it does not list from the snapshot before the
 * call (`tracked`): a folder the call made ignored held files the snapshot had copies of.
 */
export function planSteeringPutBack(
  before: SteeringCopies,
  now: SteeringCopies,
  tracked: (path: string) => TreeEntry | undefined,
): SteeringPutBack {
  const ops: RestoreOp[] = [];
  const putBack = new Set<string>();
  const notPutBack = new Set<string>();
  const beforeUnits = new Set<string>();
  const was = (path: string): SteeringCopy | undefined => {
    const copy = before.get(path);
    if (copy) return copy;
    const entry = tracked(path);
    return entry && entry.kind !== "dir" ? { entry, stamp: "" } : undefined;
  };
  for (const path of before.keys()) beforeUnits.add(steeringUnit(path) ?? path);
  const removedUnits = new Set<string>();
  for (const path of new Set([...before.keys(), ...now.keys()])) {
    const old = was(path);
    const fresh = now.get(path);
    if (old && fresh && sameCopy(old, fresh)) continue;
    const unit = steeringUnit(path) ?? path;
    if (old?.entry.kind === "excluded") {
      notPutBack.add(unit);
      continue;
    }
    putBack.add(unit);
    if (!old) {
      // A steering folder that was not there at all goes whole, with the folders made inside it.
      if (unit !== path && !beforeUnits.has(unit) && tracked(unit) === undefined) {
        if (!removedUnits.has(unit)) ops.push({ action: "remove", path: unit });
        removedUnits.add(unit);
      } else ops.push({ action: "remove", path });
      continue;
    }
    const action = old.entry.kind === "link" ? "link" : "write";
    ops.push({ action, path, entry: old.entry, ...(fresh ? {} : { missing: true as const }) });
  }
  for (const unit of notPutBack) putBack.delete(unit);
  return { ops, putBack: [...putBack].sort(), notPutBack: [...notPutBack].sort() };
}

/** The entry at the root-relative `path` in the tree `tree`; undefined when it has none. */
export function entryAt(objects: ObjectStore, tree: string, path: string): TreeEntry | undefined {
  let entry: TreeEntry | undefined = { name: "", kind: "dir", mode: 0, hash: tree, size: 0 };
  for (const name of path.split("/")) {
    if (entry?.kind !== "dir") return undefined;
    entry = objects.tree(entry.hash).find((inside) => inside.name === name);
  }
  return entry;
}
