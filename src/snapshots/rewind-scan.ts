// The workspace as a rewind needs to see it, without walking all of it: reson's latest
// snapshot (the head), with the paths where the head and the rewind's target differ read
// from the disk. Those are the only paths a rewind can change (everywhere else the target is
// what reson last saw, so the plan keeps what is there), so they are all a plan needs to find
// what to write and what someone changed since. A folder the rewind would remove is read
// whole, so a file someone added inside it is seen. Where the disk holds something the scan
// cannot stand for as a walk would (a folder where a file was, an entry reson does not track
// or would leave out, another mount), it gives up and the caller walks.
//
// Everywhere else the tree keeps the head's entries: a file changed since by someone and not
// on those paths is not in it. Such a tree only ever stands beside the head (a rewind's
// record marks it `partial`), and every later snapshot is taken by a capture, which looks.
import { lstatSync, readdirSync, readlinkSync } from "node:fs";
import type { ObjectStore } from "./object-store.js";
import { storeFile } from "./store-file.js";
import type { TreeEntry } from "./types.js";

export interface ScanOptions {
  objects: ObjectStore;
  /** The workspace's real path. */
  root: string;
  maxFileBytes: number;
  /** Whether bytes hold one of the user's secrets (a capture would leave the file out). */
  holdsSecret: (bytes: Buffer) => boolean;
}

/** The scan met something only a walk stands for exactly. */
class NeedsWalk extends Error {}

function join(prefix: string, name: string): string {
  return prefix === "" ? name : `${prefix}/${name}`;
}

function same(a: TreeEntry | undefined, b: TreeEntry | undefined): boolean {
  return a !== undefined && b !== undefined && a.kind === b.kind && a.hash === b.hash && a.mode === b.mode;
}

/**
 * The tree of the workspace now, as far as a rewind from the head `head` to `target` can
 * tell (see above); undefined when only a walk can say.
 */
export function scanForRewind(options: ScanOptions, head: string, target: string): string | undefined {
  const scan = new Scan(options);
  try {
    const stats = lstatSync(options.root);
    scan.rootDev = stats.dev;
    return scan.folder("", head, target);
  } catch (error) {
    if (error instanceof NeedsWalk) return undefined;
    throw error;
  }
}

class Scan {
  rootDev = -1;

  constructor(private readonly options: ScanOptions) {}

  /** The folder at `path` now, where the head and the target say it differs (a tree hash). */
  folder(path: string, head: string | undefined, target: string | undefined): string {
    if (head !== undefined && head === target) return head;
    const was = new Map((head ? this.options.objects.tree(head) : []).map((entry) => [entry.name, entry]));
    const wanted = new Map((target ? this.options.objects.tree(target) : []).map((e) => [e.name, e]));
    const entries: TreeEntry[] = [];
    for (const name of new Set([...was.keys(), ...wanted.keys()])) {
      const before = was.get(name);
      const want = wanted.get(name);
      // The same on both sides: what reson last saw stands (the plan leaves it alone).
      if (same(before, want)) {
        entries.push(before!);
        continue;
      }
      // What reson does not track on one side, a walk (with the ignore rules) decides.
      if (before?.kind === "excluded" || want?.kind === "excluded") throw new NeedsWalk();
      const entry = this.entry(join(path, name), name, before, want);
      if (entry) entries.push(entry);
    }
    if (target === undefined) this.nothingElse(path, was);
    return this.options.objects.putTree(entries).hash;
  }

  /** The entry at `path` as it is now (undefined: nothing there). */
  private entry(
    path: string,
    name: string,
    before: TreeEntry | undefined,
    want: TreeEntry | undefined,
  ): TreeEntry | undefined {
    const abs = `${this.options.root}/${path}`;
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(abs);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new NeedsWalk();
    }
    if (stats.isDirectory()) {
      if (before?.kind !== "dir" && want?.kind !== "dir") throw new NeedsWalk();
      if (stats.dev !== this.rootDev) throw new NeedsWalk();
      const hash = this.folder(
        path,
        before?.kind === "dir" ? before.hash : undefined,
        want?.kind === "dir" ? want.hash : undefined,
      );
      return { name, kind: "dir", mode: stats.mode & 0o7777, hash, size: 0 };
    }
    if (stats.isSymbolicLink()) {
      let target: string;
      try {
        target = readlinkSync(abs);
      } catch {
        throw new NeedsWalk();
      }
      const { hash } = this.options.objects.put(Buffer.from(target));
      return { name, kind: "link", mode: 0, hash, size: 0 };
    }
    if (!stats.isFile()) throw new NeedsWalk();
    return this.file(abs, name);
  }

  private file(abs: string, name: string): TreeEntry {
    const { objects, maxFileBytes, holdsSecret } = this.options;
    const read = storeFile(abs, { objects, maxFileBytes, holdsSecret });
    // Left out by a capture (too large, unreadable, a secret): the walk records it as such.
    if (!read.stored) throw new NeedsWalk();
    return { name, kind: "file", mode: read.stats.mode & 0o7777, hash: read.hash, size: read.size };
  }

  /**
   * A folder the target does not have, which a rewind removes whole: anything in it the head
   * did not have (someone added it since) needs the walk, so the plan sees it.
   */
  private nothingElse(path: string, was: ReadonlyMap<string, TreeEntry>): void {
    let names: string[];
    try {
      names = readdirSync(`${this.options.root}/${path}`);
    } catch {
      throw new NeedsWalk();
    }
    for (const name of names) if (!was.has(name)) throw new NeedsWalk();
  }
}
