// What differs between two snapshots, path by path: files, links and excluded entries each
// on their own (a removed folder is every file it held), folders only when their own mode
// changed. Subtrees with the same hash are never opened, so a diff costs what changed.
import type { ObjectStore } from "./object-store.js";
import type { PathChange, TreeEntry } from "./types.js";

function join(prefix: string, name: string): string {
  return prefix === "" ? name : `${prefix}/${name}`;
}

/** The changes from `before` to `after` (root trees; undefined: nothing), sorted by path. */
export function diffTrees(
  objects: ObjectStore,
  before: string | undefined,
  after: string | undefined,
): PathChange[] {
  const changes: PathChange[] = [];
  diffFolders(objects, "", before, after, changes);
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function diffFolders(
  objects: ObjectStore,
  prefix: string,
  before: string | undefined,
  after: string | undefined,
  out: PathChange[],
): void {
  if (before === after) return;
  const old = before ? objects.tree(before) : [];
  const now = after ? objects.tree(after) : [];
  if (!sortedByName(old) || !sortedByName(now)) {
    diffByMap(objects, prefix, old, now, out);
    return;
  }
  // Both lists are sorted by name (as trees are written): one pass side by side, and a path
  // made only for an entry that differs.
  let i = 0;
  let j = 0;
  while (i < old.length || j < now.length) {
    const a = old[i];
    const b = now[j];
    if (a && b && a.name === b.name) {
      if (!sameEntry(a, b)) diffEntries(objects, join(prefix, a.name), a, b, out);
      i++;
      j++;
    } else if (a && (!b || a.name < b.name)) {
      diffEntries(objects, join(prefix, a.name), a, undefined, out);
      i++;
    } else {
      diffEntries(objects, join(prefix, b!.name), undefined, b, out);
      j++;
    }
  }
}

function sortedByName(entries: readonly TreeEntry[]): boolean {
  for (let i = 1; i < entries.length; i++) if (!(entries[i - 1]!.name < entries[i]!.name)) return false;
  return true;
}

/** The same diff for trees not sorted by name (none reson writes): entries matched by name. */
function diffByMap(
  objects: ObjectStore,
  prefix: string,
  before: readonly TreeEntry[],
  after: readonly TreeEntry[],
  out: PathChange[],
): void {
  const old = new Map(before.map((entry) => [entry.name, entry]));
  const now = new Map(after.map((entry) => [entry.name, entry]));
  for (const name of new Set([...old.keys(), ...now.keys()])) {
    diffEntries(objects, join(prefix, name), old.get(name), now.get(name), out);
  }
}

/** Two entries that say the same (nothing to report, nothing to open). */
function sameEntry(before: TreeEntry, after: TreeEntry): boolean {
  return before.kind === after.kind && before.hash === after.hash && before.mode === after.mode;
}

function diffEntries(
  objects: ObjectStore,
  path: string,
  before: TreeEntry | undefined,
  after: TreeEntry | undefined,
  out: PathChange[],
): void {
  if (before && after && sameEntry(before, after)) {
    // Two excluded entries say nothing about content: unchanged as far as anyone knows.
    return;
  }
  if (before?.kind === "dir" && after?.kind === "dir") {
    if (before.mode !== after.mode) out.push({ path, change: "mode", before, after });
    diffFolders(objects, path, before.hash, after.hash, out);
    return;
  }
  if (before?.kind === "excluded" && after?.kind === "excluded") return;
  // A folder that became a file (or the reverse) is, as git shows it, one side's files
  // deleted and the other's added.
  if (before?.kind === "dir") {
    const count = out.length;
    diffFolders(objects, path, before.hash, undefined, out);
    if (after) out.push({ path, change: "added", after });
    // An empty folder has no files to stand for it.
    else if (out.length === count) out.push({ path, change: "deleted", before });
    return;
  }
  if (after?.kind === "dir") {
    if (before) out.push({ path, change: "deleted", before });
    const count = out.length;
    diffFolders(objects, path, undefined, after.hash, out);
    if (!before && out.length === count) out.push({ path, change: "added", after });
    return;
  }
  if (!before) {
    out.push({ path, change: "added", after: after! });
    return;
  }
  if (!after) {
    out.push({ path, change: "deleted", before });
    return;
  }
  if (before.kind !== after.kind) out.push({ path, change: "type", before, after });
  else if (before.hash !== after.hash) out.push({ path, change: "modified", before, after });
  else out.push({ path, change: "mode", before, after });
}

/** The paths a list of changes names, a folder's own entry aside. */
export function changedPaths(changes: readonly PathChange[]): Set<string> {
  return new Set(changes.map((change) => change.path));
}
