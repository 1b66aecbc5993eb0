// A snapshot's content put back at a few paths only: the tree of the workspace as it is, with
// the entries at those paths taken from an earlier tree (or removed where that tree had none).
// A folder made only to hold a removed path goes with it. Pure over the object store: the
// caller plans the restore from the two trees (planRestore) and applies it.
import type { ObjectStore } from "./object-store.js";
import type { TreeEntry } from "./types.js";

/** `current` with each of `paths` ("/"-separated, relative) as it is in `source`. */
export function graftPaths(
  objects: ObjectStore,
  current: string,
  source: string,
  paths: readonly string[],
): string {
  let tree = current;
  for (const path of paths) tree = graft(objects, tree, source, path.split("/").filter(Boolean)) ?? tree;
  return tree;
}

/** The folder `current` with `names` taken from `source`; undefined when it ends up empty and `source` has none. */
function graft(
  objects: ObjectStore,
  current: string | undefined,
  source: string | undefined,
  names: readonly string[],
): string | undefined {
  const entries = current ? objects.tree(current) : [];
  const from = source ? objects.tree(source) : [];
  const [name, ...rest] = names;
  const is = entries.find((entry) => entry.name === name);
  const was = from.find((entry) => entry.name === name);
  let replacement: TreeEntry | undefined;
  if (rest.length === 0) replacement = was;
  else {
    const folder = is?.kind === "dir" ? is : was?.kind === "dir" ? was : undefined;
    if (!folder) return current;
    const hash = graft(
      objects,
      is?.kind === "dir" ? is.hash : undefined,
      was?.kind === "dir" ? was.hash : undefined,
      rest,
    );
    replacement = hash === undefined ? undefined : { ...folder, hash };
  }
  const kept = entries.filter((entry) => entry.name !== name);
  if (replacement) kept.push(replacement);
  if (kept.length === 0 && source === undefined) return undefined;
  return objects.putTree(kept).hash;
}
