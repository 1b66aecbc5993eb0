// The integrity check around a sandboxed command. Existing protected paths are read-only
// inside the sandbox, but a bind cannot cover a path that does not exist yet (a fresh
// .git/hooks, a .reson folder): such paths are watched instead. Before the command the state
// of every protected path is recorded; afterwards anything new under a protected path is
// deleted and anything changed is put back (when its content was small enough to keep).
// The sandbox's PID namespace ends every process of the command before this runs, so
// nothing can write after the check. Symbolic links are never followed.
import { createHash } from "node:crypto";
import { chmod, lstat, mkdir, readdir, readFile, readlink, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { WorkspacePolicy } from "../policy.js";

/** A protected folder with more entries is not checked (its bind keeps it read-only anyway). */
const MAX_ENTRIES = 2_000;
/** Files up to this size are hashed and kept for restoring; larger ones are compared by metadata. */
const MAX_KEPT_FILE_BYTES = 64 * 1024;
const MAX_KEPT_TOTAL_BYTES = 1024 * 1024;

type Node =
  | { kind: "dir"; mode: number }
  | { kind: "file"; mode: number; size: number; hash: string; content?: Buffer }
  | { kind: "symlink"; target: string }
  | { kind: "other" };

type Watch =
  /** The folder holding it does not exist (or is a link): not watched, see `snapshotProtected`. */
  | { state: "unwatched" }
  | { state: "absent" }
  | { state: "present"; nodes: Map<string, Node>; complete: boolean };

export interface ProtectedSnapshot {
  /** By protected path, relative to the root. */
  watches: Map<string, Watch>;
}

interface Budget {
  keptBytes: number;
}

async function lstatOrUndefined(path: string) {
  return lstat(path).catch(() => undefined);
}

async function describe(path: string, budget: Budget): Promise<Node> {
  const info = await lstat(path);
  if (info.isSymbolicLink()) return { kind: "symlink", target: await readlink(path) };
  if (info.isDirectory()) return { kind: "dir", mode: info.mode & 0o7777 };
  if (!info.isFile()) return { kind: "other" };
  const mode = info.mode & 0o7777;
  if (info.size > MAX_KEPT_FILE_BYTES) {
    return { kind: "file", mode, size: info.size, hash: `inode:${info.ino}:${info.size}:${info.mtimeMs}` };
  }
  const content = await readFile(path);
  const hash = createHash("sha256").update(content).digest("hex");
  const node: Node = { kind: "file", mode, size: content.length, hash };
  if (budget.keptBytes + content.length <= MAX_KEPT_TOTAL_BYTES) {
    budget.keptBytes += content.length;
    node.content = content;
  }
  return node;
}

/** Every entry under `path` (itself included), keyed by path relative to the root. */
async function walk(root: string, relative: string, budget: Budget): Promise<Watch> {
  const nodes = new Map<string, Node>();
  const pending = [relative];
  while (pending.length > 0) {
    if (nodes.size >= MAX_ENTRIES) return { state: "present", nodes, complete: false };
    const current = pending.shift()!;
    const node = await describe(join(root, current), budget).catch(() => undefined);
    if (!node) continue;
    nodes.set(current, node);
    if (node.kind !== "dir") continue;
    const names = await readdir(join(root, current)).catch(() => [] as string[]);
    for (const name of names.sort()) pending.push(`${current}/${name}`);
  }
  return { state: "present", nodes, complete: true };
}

/**
 * A protected path is watched once the folder holding it exists as a real folder: `.git/hooks`
 * once there is a `.git`. A command that creates the holding folder itself (`git init`) makes
 * the whole thing at once, and its hooks start being protected from the next command on.
 */
async function watch(root: string, relative: string, budget: Budget): Promise<Watch> {
  const parts = relative.split("/");
  for (let depth = 1; depth < parts.length; depth += 1) {
    const info = await lstatOrUndefined(join(root, ...parts.slice(0, depth)));
    if (!info?.isDirectory()) return { state: "unwatched" };
  }
  const info = await lstatOrUndefined(join(root, relative));
  if (!info) return { state: "absent" };
  return walk(root, relative, budget);
}

/** Records the protected paths of `policy` as they are before a command. */
export async function snapshotProtected(policy: WorkspacePolicy): Promise<ProtectedSnapshot> {
  const budget: Budget = { keptBytes: 0 };
  const watches = new Map<string, Watch>();
  for (const entry of policy.protected) watches.set(entry, await watch(policy.root, entry, budget));
  return { watches };
}

function same(a: Node, b: Node): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "file" && b.kind === "file") return a.hash === b.hash && a.mode === b.mode;
  if (a.kind === "symlink" && b.kind === "symlink") return a.target === b.target;
  if (a.kind === "dir" && b.kind === "dir") return a.mode === b.mode;
  return true;
}

/** Puts `node` back at `path` (whatever is there now is removed first); false when it cannot. */
async function restore(path: string, node: Node): Promise<boolean> {
  if (node.kind === "other" || (node.kind === "file" && !node.content)) return false;
  const now = await lstatOrUndefined(path);
  if (node.kind === "dir") {
    if (now?.isDirectory() && !now.isSymbolicLink()) {
      await chmod(path, node.mode);
      return true;
    }
    if (now) await rm(path, { recursive: true, force: true });
    await mkdir(path, { mode: node.mode });
    await chmod(path, node.mode);
    return true;
  }
  if (now) await rm(path, { recursive: true, force: true });
  if (node.kind === "symlink") await symlink(node.target, path);
  else {
    await writeFile(path, node.content!, { mode: node.mode });
    await chmod(path, node.mode);
  }
  return true;
}

/**
 * Compares the protected paths with `before`: deletes what the command created under them and
 * restores what it changed. Returns one warning per path it had to act on (or could not fix).
 */
export async function enforceProtected(
  policy: WorkspacePolicy,
  before: ProtectedSnapshot,
): Promise<string[]> {
  const warnings: string[] = [];
  const budget: Budget = { keptBytes: 0 };
  for (const [entry, was] of before.watches) {
    if (was.state === "unwatched") continue;
    const now = await watch(policy.root, entry, budget);
    if (was.state === "absent") {
      if (now.state !== "present") continue;
      await rm(join(policy.root, entry), { recursive: true, force: true });
      warnings.push(`removed ${entry}: the command created it, but ${entry} is protected`);
      continue;
    }
    if (!was.complete || (now.state === "present" && !now.complete)) {
      warnings.push(`${entry} has more than ${MAX_ENTRIES} entries and was not checked`);
      continue;
    }
    const after = now.state === "present" ? now.nodes : new Map<string, Node>();
    // Created entries: remove the topmost of each new subtree, outermost first.
    const removed: string[] = [];
    for (const path of [...after.keys()].sort((a, b) => a.length - b.length)) {
      if (was.nodes.has(path) || removed.some((dir) => path.startsWith(`${dir}/`))) continue;
      await rm(join(policy.root, path), { recursive: true, force: true });
      removed.push(path);
      warnings.push(`removed ${path}: the command created it under the protected ${entry}`);
    }
    // Changed or deleted entries, parents before children.
    for (const [path, node] of [...was.nodes].sort(([a], [b]) => a.length - b.length)) {
      const current = after.get(path);
      if (current && same(current, node)) continue;
      const fixed = await restore(join(policy.root, path), node).catch(() => false);
      warnings.push(
        fixed
          ? `restored ${path}: the command changed it, but it is protected`
          : `${path} is protected but the command changed it, and it could not be restored`,
      );
    }
  }
  return warnings;
}
