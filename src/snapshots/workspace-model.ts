// The workspace as the last snapshot saw it, in memory: every tracked folder's entries with
// the stat facts (size, mtime, ctime, inode, mode) their content hash was taken at, so a new
// snapshot reads and hashes only files whose facts changed (git's index trick). It is brought
// up to date either by a walk (lstat every path) or, when the change watcher can tell, by
// looking only at the paths it reported. Folders are hashed into trees bottom-up, and a
// folder none of whose entries changed keeps its tree, so a snapshot writes objects only for
// what changed and the folders above it.
//
// Reading never follows a symbolic link: links are recorded as links, every file is opened
// O_NOFOLLOW and its real path checked through /proc/self/fd before its bytes are kept, so a
// folder swapped for a link mid-walk cannot smuggle content from outside into a snapshot.
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
import {
  admitDirectory,
  IGNORE_FILES,
  type IgnoreLayer,
  isIgnoredEntry,
  loadIgnoreLayerSync,
  patternLayer,
  STEERING_FILES,
} from "../workspace/index.js";
import type { ChangeWatcher, DirtyPaths } from "./change-watcher.js";
import type { ObjectStore } from "./object-store.js";
import { storeFile } from "./store-file.js";
import type { ExcludedReason, SnapshotSettings, TreeEntry } from "./types.js";

/** The stat facts a hash was taken at; mtimeMs -1: taken too soon after a change to trust. */
export interface StatKey {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  mode: number;
}

/** A file's or link's content hash with the facts it was taken at, in one object (walks make 10,000s). */
interface FileNode extends StatKey {
  kind: "file";
  hash: string;
}
interface LinkNode extends StatKey {
  kind: "link";
  hash: string;
}
interface ExcludedNode {
  kind: "excluded";
  reason: ExcludedReason;
  size: number;
}
interface DirNode {
  kind: "dir";
  mode: number;
  ino: number;
  entries: Map<string, Node>;
  /** The folder's tree hash; undefined when an entry changed since it was taken. */
  tree: string | undefined;
  /** The ignore layers that apply to its entries. */
  layers: readonly IgnoreLayer[];
}
type Node = FileNode | LinkNode | ExcludedNode | DirNode;

/** A file's hash as a saved index knows it, to spare a new process hashing every file again. */
export type SeedEntry = FileNode | LinkNode;

export interface ModelOptions {
  /** The workspace's real path. */
  root: string;
  settings: SnapshotSettings;
  objects: ObjectStore;
  /** Absolute folders never read (reson's own, with the snapshots in it). */
  sealed: readonly string[];
  watcher?: ChangeWatcher;
  /** Whether a file's bytes hold the value of one of the user's secrets (then it is left out). */
  holdsSecret?: (bytes: Buffer) => boolean;
  /**
   * The empty folders running commands' sandboxes stand on now (absolute paths): the sandbox's,
   * not the user's, so a snapshot (and a rewind to it) has nothing there.
   */
  placeholders?: () => ReadonlySet<string>;
}

const IGNORE_NAMES: ReadonlySet<string> = new Set(IGNORE_FILES);
const STEERING_NAMES: ReadonlySet<string> = new Set(STEERING_FILES);

/** A change within this long of the hash (ms) might share the mtime tick: hash again next time. */
const RACY_MS = 2000;

/**
 * A node for content just hashed, with the facts taken before the read. Facts taken right after
 * a change may share its mtime tick with a later one: such a node is not trusted (mtimeMs -1),
 * so the next walk hashes it again.
 */
function hashedNode<K extends "file" | "link">(
  kind: K,
  hash: string,
  stats: Stats,
): { kind: K; hash: string } & StatKey {
  const racy = Date.now() - stats.mtimeMs < RACY_MS;
  return {
    kind,
    hash,
    size: stats.size,
    mtimeMs: racy ? -1 : stats.mtimeMs,
    ctimeMs: stats.ctimeMs,
    ino: stats.ino,
    mode: stats.mode,
  };
}

function sameStat(key: StatKey, stats: Stats): boolean {
  return (
    key.mtimeMs === stats.mtimeMs &&
    key.ctimeMs === stats.ctimeMs &&
    key.size === stats.size &&
    key.ino === stats.ino &&
    key.mode === stats.mode
  );
}

function join(rel: string, name: string): string {
  return rel === "" ? name : `${rel}/${name}`;
}

export class WorkspaceModel {
  private rootNode: DirNode | undefined;
  private rootDev = -1;
  private added = 0;
  /** One object per ignore layer content, so unchanged rules compare equal by identity. */
  private readonly layerCache = new Map<string, IgnoreLayer>();
  /** The sealed folders with a slash after each, made once (every entry of a walk is checked). */
  private readonly sealedBelow: readonly string[];
  /** Hashes a saved index knows, used once by the first walk. */
  private seeds: Map<string, SeedEntry> | undefined;
  /** Files and links hashed, and trees made, since the index was last saved (what the next save adds). */
  private unsaved = { files: new Map<string, SeedEntry>(), trees: new Set<string>() };
  /** Files read and hashed by the last update. */
  hashed = 0;
  /** The sandboxes' placeholders as the current update found them. */
  private placeholders: ReadonlySet<string> = new Set();

  constructor(private readonly options: ModelOptions) {
    this.sealedBelow = options.sealed.map((dir) => `${dir}/`);
  }

  /** Whether a walk has made the model (until then, every update walks). */
  get started(): boolean {
    return this.rootNode !== undefined;
  }

  /** Hashes from a saved index, for the next walk. */
  seed(entries: Map<string, SeedEntry>): void {
    this.seeds = entries;
  }

  /** Forgets everything (objects it knew may have been swept): the next capture hashes anew. */
  forget(): void {
    this.rootNode = undefined;
    this.seeds = undefined;
    this.unsaved = { files: new Map(), trees: new Set() };
    this.options.watcher?.close();
  }

  /**
   * What was hashed since the index was last saved, and of the trees made since, those the
   * model has now (a folder changed at every step is saved once); taking it counts as saved.
   */
  takeUnsaved(): { files: Map<string, SeedEntry>; trees: Set<string> } {
    const { files, trees: made } = this.unsaved;
    this.unsaved = { files: new Map(), trees: new Set() };
    const trees = new Set<string>();
    for (const tree of this.trees()) if (made.has(tree)) trees.add(tree);
    return { files, trees };
  }

  /** Every tree of the model as it is (for a whole save of the index). */
  *trees(): Generator<string> {
    if (!this.rootNode) return;
    const stack: DirNode[] = [this.rootNode];
    while (stack.length > 0) {
      const dir = stack.pop()!;
      if (dir.tree !== undefined) yield dir.tree;
      for (const node of dir.entries.values()) if (node.kind === "dir") stack.push(node);
    }
  }

  /**
   * Brings the model up to date (looking only at `dirty` when given, else at everything) and
   * returns the root tree and the bytes of objects written for it.
   */
  update(dirty: DirtyPaths | undefined): { tree: string; addedBytes: number } {
    this.added = 0;
    this.hashed = 0;
    this.placeholders = this.options.placeholders?.() ?? new Set();
    if (!this.rootNode || !dirty) {
      const stats = lstatSync(this.options.root);
      this.rootDev = stats.dev;
      this.rootNode = this.walkDir("", this.options.root, stats, [], this.rootNode);
      this.seeds = undefined;
    } else {
      for (const folder of dirty.folders) this.refreshFolder(folder);
      const paths = [...dirty.paths].sort((a, b) => a.split("/").length - b.split("/").length);
      for (const path of paths) this.refreshPath(path);
    }
    const tree = this.treeOf(this.rootNode);
    return { tree, addedBytes: this.added };
  }

  /** Every tracked file and link with the facts its hash was taken at (for the saved index). */
  *entries(): Generator<[string, SeedEntry]> {
    if (!this.rootNode) return;
    const stack: Array<[string, DirNode]> = [["", this.rootNode]];
    while (stack.length > 0) {
      const [rel, dir] = stack.pop()!;
      for (const [name, node] of dir.entries) {
        const path = join(rel, name);
        if (node.kind === "dir") stack.push([path, node]);
        else if (node.kind !== "excluded") yield [path, node];
      }
    }
  }

  private abs(rel: string): string {
    return rel === "" ? this.options.root : `${this.options.root}/${rel}`;
  }

  private sealed(abs: string): boolean {
    const { sealed } = this.options;
    for (let i = 0; i < sealed.length; i++)
      if (abs === sealed[i] || abs.startsWith(this.sealedBelow[i]!)) return true;
    return false;
  }

  private layer(dir: string, patterns: string): IgnoreLayer {
    const key = `${dir}\u0000${patterns}`;
    let layer = this.layerCache.get(key);
    if (!layer) {
      layer = patternLayer(dir, patterns);
      this.layerCache.set(key, layer);
    }
    return layer;
  }

  /** The folder's own ignore rules (the root's with config snapshots.exclude after them). */
  private ownLayer(rel: string, abs: string, names: ReadonlySet<string>): IgnoreLayer | undefined {
    const own = loadIgnoreLayerSync(abs, rel, names)?.patterns;
    const extra = rel === "" ? this.options.settings.exclude : [];
    const patterns = [own, ...extra].filter((text) => text !== undefined && text !== "").join("\n");
    return patterns === "" ? undefined : this.layer(rel, patterns);
  }

  /** A folder's entries, read through a descriptor whose real path is checked; undefined if unreadable. */
  private list(abs: string): Listed[] | undefined {
    let fd: number;
    try {
      fd = openSync(abs, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    } catch {
      return undefined;
    }
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) !== abs) return undefined;
      // Read as bytes: a name that is not UTF-8 has no string that names it (see Listed).
      return readdirSync(`/proc/self/fd/${fd}`, { withFileTypes: true, encoding: "buffer" }).map(listed);
    } catch {
      return undefined;
    } finally {
      closeSync(fd);
    }
  }

  /** Walks the folder `rel` whole, keeping what did not change from `old`. */
  private walkDir(
    rel: string,
    abs: string,
    stats: Stats,
    inherited: readonly IgnoreLayer[],
    old: DirNode | undefined,
  ): DirNode {
    // Watched before it is read: a change after the listing is an event, never missed.
    this.options.watcher?.watch(rel, abs);
    const listing = this.list(abs) ?? [];
    // Only whether an ignore file is there matters to the rules: no set of every name.
    const ignoreFiles = new Set<string>();
    for (const entry of listing) if (IGNORE_NAMES.has(entry.name)) ignoreFiles.add(entry.name);
    const own = this.ownLayer(rel, abs, ignoreFiles);
    const layers = own ? [...inherited, own] : inherited;
    const node: DirNode = {
      kind: "dir",
      mode: stats.mode & 0o7777,
      ino: stats.ino,
      entries: new Map(),
      tree: undefined,
      layers,
    };
    for (const dirent of listing) {
      const before = old?.entries.get(dirent.name);
      const entry = dirent.utf8
        ? this.entryFor(node, rel, dirent.name, dirent.isDirectory, before)
        : excluded(before, "name_not_utf8", 0);
      if (entry) node.entries.set(dirent.name, entry);
    }
    if (old) {
      // A folder that is gone (or no longer a folder) is watched no more; one replaced by
      // another folder was let go by entryFor before the new one was watched.
      for (const [name, before] of old.entries)
        if (before.kind === "dir" && node.entries.get(name)?.kind !== "dir")
          this.unwatch(join(rel, name), before);
      if (sameNode(old, node)) return old;
    }
    return node;
  }

  /** The entry `name` of `parent` (at `rel`) as it is now; undefined when it is gone. */
  private entryFor(
    parent: DirNode,
    rel: string,
    name: string,
    looksLikeDir: boolean,
    old: Node | undefined,
  ): Node | undefined {
    const path = join(rel, name);
    const abs = this.abs(path);
    if (this.placeholders.has(abs) && isEmptyFolder(abs)) return undefined;
    if (name === ".git") return excluded(old, "git", 0);
    if (this.sealed(abs)) return excluded(old, "reson_home", 0);
    // Ignored entries cost no stat: only their names are listed (and most rules go by name).
    // Instruction files are kept even when ignored (a personal CLAUDE.md often is): they steer
    // every later run, so a change to one must be seen, shown and undone like any other.
    if (isIgnoredEntry(parent.layers, rel, name, looksLikeDir) && (looksLikeDir || !STEERING_NAMES.has(name)))
      return excluded(old, "ignored", 0);
    let stats: Stats;
    try {
      stats = lstatSync(abs);
    } catch {
      return undefined;
    }
    if (stats.isDirectory()) {
      if (looksLikeDir === false && isIgnoredEntry(parent.layers, rel, name, true))
        return excluded(old, "ignored", 0);
      if (stats.dev !== this.rootDev) return excluded(old, "other_mount", 0);
      const before = old?.kind === "dir" && old.ino === stats.ino ? old : undefined;
      if (old?.kind === "dir" && !before) this.unwatch(path, old);
      return this.walkDir(path, abs, stats, admitDirectory(parent.layers, path), before);
    }
    if (stats.isSymbolicLink()) {
      if (old?.kind === "link" && sameStat(old, stats)) return old;
      const seed = old === undefined ? this.seeds?.get(path) : undefined;
      if (seed?.kind === "link" && sameStat(seed, stats)) return seed;
      return this.remember(path, this.link(abs, stats, old));
    }
    if (!stats.isFile()) return excluded(old, "special", 0);
    if (stats.size > this.options.settings.maxFileBytes) return excluded(old, "too_large", stats.size);
    if (old?.kind === "file" && sameStat(old, stats)) return old;
    const seed = old === undefined ? this.seeds?.get(path) : undefined;
    if (seed?.kind === "file" && sameStat(seed, stats)) return seed;
    return this.remember(path, this.file(abs, old));
  }

  /** A node just hashed, noted for the next save of the index. */
  private remember(path: string, node: Node): Node {
    // Facts taken too soon after a change (mtimeMs -1) would never match: not worth saving.
    if ((node.kind === "file" || node.kind === "link") && node.mtimeMs !== -1)
      this.unsaved.files.set(path, node);
    return node;
  }

  private link(abs: string, stats: Stats, old: Node | undefined): Node {
    let target: string;
    try {
      target = readlinkSync(abs);
    } catch {
      return excluded(old, "unreadable", 0);
    }
    const { hash, added } = this.options.objects.put(Buffer.from(target));
    this.added += added;
    return hashedNode("link", hash, stats);
  }

  /** Reads and stores a file (store-file.ts). */
  private file(abs: string, old: Node | undefined): Node {
    const { objects, settings, holdsSecret } = this.options;
    const read = storeFile(abs, {
      objects,
      maxFileBytes: settings.maxFileBytes,
      ...(holdsSecret ? { holdsSecret } : {}),
    });
    if (!read.stored) return excluded(old, read.reason, read.size);
    this.added += read.added;
    this.hashed++;
    return hashedNode("file", read.hash, read.stats);
  }

  /** The folder node at `rel`, and the folders above it (root first); undefined when not a tracked folder. */
  private folderAt(rel: string): DirNode[] | undefined {
    if (!this.rootNode) return undefined;
    const chain = [this.rootNode];
    if (rel === "") return chain;
    for (const name of rel.split("/")) {
      const next = chain.at(-1)!.entries.get(name);
      if (next?.kind !== "dir") return undefined;
      chain.push(next);
    }
    return chain;
  }

  private invalidate(chain: readonly DirNode[]): void {
    for (const dir of chain) dir.tree = undefined;
  }

  /** One path the watcher reported: its entry in its folder looked at again. */
  private refreshPath(path: string): void {
    const slash = path.lastIndexOf("/");
    const rel = slash === -1 ? "" : path.slice(0, slash);
    const name = path.slice(slash + 1);
    const chain = this.folderAt(rel);
    // Inside something not tracked, or gone (its removal is its parent's event).
    if (!chain) return;
    const parent = chain.at(-1)!;
    if (IGNORE_NAMES.has(name)) {
      this.rewalk(rel, chain);
      return;
    }
    // A name that is not UTF-8 reaches us with U+FFFD in it, which names nothing on the disk:
    // only the folder's listing (read as bytes) can tell what is there.
    if (name.includes("\ufffd")) {
      this.rewalk(rel, chain);
      return;
    }
    const old = parent.entries.get(name);
    let stats: Stats | undefined;
    try {
      stats = lstatSync(this.abs(path));
    } catch {
      stats = undefined;
    }
    // A folder that is still the same one: only its own mode can have changed (its entries
    // have their own watch).
    if (stats?.isDirectory() && old?.kind === "dir" && old.ino === stats.ino) {
      const mode = stats.mode & 0o7777;
      if (mode !== old.mode) {
        old.mode = mode;
        this.invalidate(chain);
      }
      return;
    }
    const entry = stats ? this.entryFor(parent, rel, name, stats.isDirectory(), old) : undefined;
    if (entry === old) return;
    if (entry) parent.entries.set(name, entry);
    else {
      parent.entries.delete(name);
      if (old?.kind === "dir") this.unwatch(path, old);
    }
    this.invalidate(chain);
  }

  /** An event for a folder itself, without a name: its listing read again (sub-folders kept). */
  private refreshFolder(rel: string): void {
    const chain = this.folderAt(rel);
    if (!chain) return;
    const names = this.list(this.abs(rel))?.map((entry) => entry.name) ?? [];
    for (const name of new Set([...names, ...chain.at(-1)!.entries.keys()]))
      this.refreshPath(join(rel, name));
  }

  /** The folder `rel` walked again whole (its ignore rules changed). */
  private rewalk(rel: string, chain: readonly DirNode[]): void {
    const old = chain.at(-1)!;
    let stats: Stats;
    try {
      stats = lstatSync(this.abs(rel));
    } catch {
      return;
    }
    const inherited = old.layers.filter((layer) => layer.dir !== rel);
    const fresh = this.walkDir(rel, this.abs(rel), stats, inherited, old);
    if (fresh === old) return;
    this.invalidate(chain.slice(0, -1));
    if (chain.length === 1) this.rootNode = fresh;
    else chain.at(-2)!.entries.set(rel.slice(rel.lastIndexOf("/") + 1), fresh);
  }

  private unwatch(rel: string, node: DirNode): void {
    if (node.kind === "dir") this.options.watcher?.unwatch(rel);
  }

  private treeOf(dir: DirNode): string {
    if (dir.tree !== undefined) return dir.tree;
    const entries: TreeEntry[] = [];
    for (const [name, node] of dir.entries) entries.push(this.entryOf(name, node));
    const { hash, added } = this.options.objects.putTree(entries, true);
    this.added += added;
    this.unsaved.trees.add(hash);
    dir.tree = hash;
    return hash;
  }

  private entryOf(name: string, node: Node): TreeEntry {
    switch (node.kind) {
      case "dir":
        return { name, kind: "dir", mode: node.mode, hash: this.treeOf(node), size: 0 };
      case "file":
        return { name, kind: "file", mode: node.mode & 0o7777, hash: node.hash, size: node.size };
      case "link":
        return { name, kind: "link", mode: 0, hash: node.hash, size: 0 };
      default:
        return { name, kind: "excluded", mode: 0, hash: "", size: node.size, reason: node.reason };
    }
  }
}

/** Whether `abs` is a folder with nothing in it (a sandbox's placeholder, as long as it is one). */
function isEmptyFolder(abs: string): boolean {
  try {
    return lstatSync(abs).isDirectory() && readdirSync(abs).length === 0;
  } catch {
    return false;
  }
}

/** A folder's entry as listed: its name as a string, and whether that string names it exactly. */
interface Listed {
  name: string;
  isDirectory: boolean;
  /** False for a name that is not UTF-8: its string (with U+FFFD) names no file, so it is left out. */
  utf8: boolean;
}

function listed(dirent: Dirent<Buffer>): Listed {
  const name = dirent.name.toString("utf8");
  return { name, isDirectory: dirent.isDirectory(), utf8: Buffer.from(name, "utf8").equals(dirent.name) };
}

function excluded(old: Node | undefined, reason: ExcludedReason, size: number): ExcludedNode {
  if (old?.kind === "excluded" && old.reason === reason && old.size === size) return old;
  return { kind: "excluded", reason, size };
}

/** A folder's new node equals its old one: same mode and the very same entry objects. */
function sameNode(old: DirNode, fresh: DirNode): boolean {
  if (old.mode !== fresh.mode || old.entries.size !== fresh.entries.size) return false;
  if (old.layers.length !== fresh.layers.length || old.layers.some((layer, i) => layer !== fresh.layers[i]))
    return false;
  for (const [name, node] of fresh.entries) if (old.entries.get(name) !== node) return false;
  return true;
}
