// What a rewind will do, worked out before anything changes: the operations that turn the
// workspace as it is now into the snapshot wanted (folders removed whole, files written with
// their mode, links made, folders' modes set after their contents), the changes as a person
// reads them, the files someone changed since reson's last snapshot that the rewind would
// overwrite (the user is asked about those), and what is left alone because reson never
// tracked it (ignored, too large) — reson does not remove or overwrite what it has no copy of.
import type { ObjectStore } from "./object-store.js";
import { changedPaths, diffTrees } from "./tree-diff.js";
import type { PathChange, TreeEntry } from "./types.js";

export type RestoreAction = "write" | "link" | "mkdir" | "remove" | "mode";

export interface RestoreOp {
  action: RestoreAction;
  path: string;
  /** The snapshot's entry (absent for a removal). */
  entry?: TreeEntry;
  /** A write where the workspace as planned from has nothing (or what the plan removes first). */
  missing?: true;
}

export interface RewindPlan {
  /** The workspace's tree now, and the one it will have (the snapshot's where reson changed things). */
  current: string;
  target: string;
  ops: RestoreOp[];
  /** What the rewind changes, path by path (from now to the target). */
  changes: PathChange[];
  /** Of those, paths changed since reson's last snapshot (by the user or another program). */
  conflicts: string[];
  /** Paths reson saw change but does not track the content of (ignored, too large): left as they are. */
  untracked: PathChange[];
}

function join(prefix: string, name: string): string {
  return prefix === "" ? name : `${prefix}/${name}`;
}

/** Whether a folder above `path` is among the paths removed. */
function underRemoved(path: string, removed: ReadonlySet<string>): boolean {
  for (let slash = path.indexOf("/"); slash !== -1; slash = path.indexOf("/", slash + 1))
    if (removed.has(path.slice(0, slash))) return true;
  return false;
}

function same(a: TreeEntry | undefined, b: TreeEntry | undefined): boolean {
  return a !== undefined && b !== undefined && a.kind === b.kind && a.hash === b.hash && a.mode === b.mode;
}

/** reson's latest snapshot (the head), and whether every change before it was recorded. */
export interface Reference {
  tree: string;
  complete: boolean;
}

/**
 * The plan that puts back `target` wherever reson's snapshots changed since it, i.e. where it
 * differs from the reference (reson's latest snapshot, the head): what the run (and anything
 * after it) did is undone, and what changed only afterwards, by the user or another program,
 * stays. A path both changed is a conflict: the rewind would overwrite the later change. When
 * the reference is not complete (a run was killed after it), a change since may be the run's
 * own: `target` is restored whole, and every such path is a conflict to ask about. Without a
 * reference `target` is restored whole (completing an interrupted rewind).
 */
export function planRestore(
  objects: ObjectStore,
  current: string,
  target: string,
  ref: Reference | undefined,
): RewindPlan {
  const reference = ref?.tree;
  const wanted =
    reference === undefined || !ref!.complete ? target : mergeTrees(objects, current, target, reference);
  const ops: RestoreOp[] = [];
  planFolder(objects, "", current, wanted, ops);
  const removed = new Set(ops.filter((op) => op.action === "remove").map((op) => op.path));
  // An entry reson does not track is changed only by the removal of a folder above it: a
  // change of it otherwise is listed (untracked) but never shown as done.
  const changes = diffTrees(objects, current, wanted).filter(
    (change) =>
      (change.before?.kind !== "excluded" && change.after?.kind !== "excluded") ||
      (change.after === undefined && underRemoved(change.path, removed)),
  );
  // What reson's snapshots changed but never tracked the content of (ignored bulk): left alone.
  // (One in a folder the rewind removes goes with it: it is listed as removed, not as left.)
  const untracked = diffTrees(objects, reference ?? current, target).filter(
    (change) =>
      (change.before?.kind === "excluded" || change.after?.kind === "excluded") &&
      !underRemoved(change.path, removed),
  );
  const touched =
    reference && reference !== current
      ? changedPaths(diffTrees(objects, reference, current))
      : new Set<string>();
  const conflicts = changes.map((change) => change.path).filter((path) => touched.has(path));
  return { current, target: wanted, ops, changes, conflicts, untracked };
}

/**
 * The tree a rewind wants, folder by folder: `target` where it differs from `reference`,
 * `current` everywhere else (and wherever either side does not track the entry).
 */
export function mergeTrees(
  objects: ObjectStore,
  current: string,
  target: string,
  reference: string | undefined,
): string {
  if (target === reference) return current;
  if (current === reference) return target;
  const now = new Map(objects.tree(current).map((entry) => [entry.name, entry]));
  const wanted = new Map(objects.tree(target).map((entry) => [entry.name, entry]));
  const was = new Map((reference ? objects.tree(reference) : []).map((entry) => [entry.name, entry]));
  const merged: TreeEntry[] = [];
  for (const name of new Set([...now.keys(), ...wanted.keys(), ...was.keys()])) {
    const is = now.get(name);
    const want = wanted.get(name);
    const ref = was.get(name);
    let entry: TreeEntry | undefined;
    if ((want === undefined && ref === undefined) || same(want, ref)) entry = is;
    else if (want?.kind === "excluded" || ref?.kind === "excluded") entry = is;
    else if (want?.kind === "dir" && is?.kind === "dir") {
      const hash = mergeTrees(objects, is.hash, want.hash, ref?.kind === "dir" ? ref.hash : undefined);
      // The folder's own mode: the target's if reson saw it change, else as it is now.
      const mode = ref?.kind === "dir" && ref.mode === want.mode ? is.mode : want.mode;
      entry = { ...want, hash, mode };
    } else entry = want;
    if (entry) merged.push(entry);
  }
  return objects.putTree(merged).hash;
}

function planFolder(
  objects: ObjectStore,
  prefix: string,
  current: string | undefined,
  target: string,
  ops: RestoreOp[],
): void {
  if (current === target) return;
  const now = new Map((current ? objects.tree(current) : []).map((entry) => [entry.name, entry]));
  const wanted = new Map(objects.tree(target).map((entry) => [entry.name, entry]));
  const names = [...new Set([...now.keys(), ...wanted.keys()])].sort();
  for (const name of names) {
    const path = join(prefix, name);
    const is = now.get(name);
    const want = wanted.get(name);
    if (same(is, want)) continue;
    // Not tracked on one side: reson has no copy of what is there now, or none of what was.
    if (is?.kind === "excluded" || want?.kind === "excluded") continue;
    if (!want) {
      ops.push({ action: "remove", path });
      continue;
    }
    if (is && is.kind !== want.kind) ops.push({ action: "remove", path });
    const kept = is?.kind === want.kind ? is : undefined;
    switch (want.kind) {
      case "file":
        if (kept?.hash === want.hash) ops.push({ action: "mode", path, entry: want });
        else ops.push({ action: "write", path, entry: want, ...(kept ? {} : { missing: true as const }) });
        break;
      case "link":
        ops.push({ action: "link", path, entry: want });
        break;
      case "dir":
        if (!kept) ops.push({ action: "mkdir", path, entry: want });
        planFolder(objects, path, kept?.hash, want.hash, ops);
        // After its contents: a folder made read-only again is filled first.
        if (kept?.mode !== want.mode) ops.push({ action: "mode", path, entry: want });
        break;
    }
  }
}

/** The objects a plan reads: all there and whole, or the rewind must not start. */
export function planObjects(plan: RewindPlan): string[] {
  return plan.ops.filter((op) => op.action === "write" || op.action === "link").map((op) => op.entry!.hash);
}
