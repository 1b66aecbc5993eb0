// Compiled Python files (.pyc) in a workspace, and which of them a call wrote or changed. Python
// runs `pkg/__pycache__/mod.cpython-3XY.pyc` in place of `pkg/mod.py` when the header's source
// time and size match, and a sourceless `mod.pyc` where `mod.py` is missing: code that no source
// file, `git diff` or snapshot shows. It also imports an extension module (`pkg/mod.so`,
// `pkg/mod.abi3.so`, `pkg/mod.cpython-311-x86_64-linux-gnu.so`) before `pkg/mod.py` beside it.
// A run that read untrusted content has what its calls left there removed (Python compiles a .pyc
// again from the source, and imports the source in place of the extension), see
// agent/compiled-python-guard.ts.
//
// Cheap on purpose: the workspace is read once (the folders and the compiled files, skipping .git
// and the tool folders, where a fooled command can change the sources themselves unseen); after
// a call only a folder whose own times or inode changed is read again (an entry added, removed
// or renamed changes them, and no command can set a ctime back), and every other folder and
// known compiled file is only stat-ed. A .pyc whose path is new or whose size, times, inode or
// mode differ from the last look is the call's. An extension module is judged against the first
// look instead, and removed only while a `mod.py` beside it is what it hides: one that hides
// nothing may be the user's build, and a later call can bring back the `mod.py` an earlier one
// moved away.
import {
  chmodSync,
  closeSync,
  constants,
  type Dirent,
  lstatSync,
  openSync,
  readdirSync,
  type Stats,
  statSync,
  unlinkSync,
} from "node:fs";
import { fdPath, O_PATH, openDirectoryNoFollow } from "./fd-ops.js";
import { TOOL_FOLDERS } from "./nested-repositories.js";

/** Folders followed at most: a larger workspace is looked at as far as this reaches, shallowest first. */
export const MAX_LOOKED_FOLDERS = 20_000;

const CACHE_FOLDER = "__pycache__";

interface FolderLook {
  stamp: string;
  /** Names of the folders inside that are followed. */
  folders: string[];
  /** Names of the .pyc and extension module files inside (files and links). */
  compiled: string[];
}

export interface CompiledRemoval {
  /** Root-relative paths of the compiled files removed: .pyc files and extension modules. */
  removed: string[];
  /** Those that could not be removed (the user should look at them). */
  failed: string[];
}

/**
 * The module an extension file is imported as: `mod` for `mod.so`, `mod.abi3.so` and
 * `mod.cpython-311-x86_64-linux-gnu.so` (one tag of any interpreter's EXTENSION_SUFFIXES, as the
 * user's python may not be reson's); undefined for any other name.
 */
function extensionModuleName(name: string): string | undefined {
  if (!name.endsWith(".so")) return undefined;
  const parts = name.slice(0, -".so".length).split(".");
  if (parts.length > 2 || parts.includes("")) return undefined;
  return parts[0];
}

function isCompiled(name: string): boolean {
  return name.endsWith(".pyc") || extensionModuleName(name) !== undefined;
}

function isFile(abs: string): boolean {
  try {
    return statSync(abs).isFile();
  } catch {
    return false;
  }
}

function join(rel: string, name: string): string {
  return rel === "" ? name : `${rel}/${name}`;
}

/** What of a folder or file changes whenever its content, its entries or the inode behind its name do. */
function stampOf(stats: Stats): string {
  return `${stats.ino}:${stats.size}:${stats.mode}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

function targetStamp(abs: string): string {
  try {
    return stampOf(statSync(abs));
  } catch {
    return "none";
  }
}

function lstatOrUndefined(abs: string): Stats | undefined {
  try {
    return lstatSync(abs);
  } catch {
    return undefined;
  }
}

export class CompiledPythonFiles {
  /** By root-relative path ("" the root), parents before their folders; undefined before the first look. */
  private folders: Map<string, FolderLook> | undefined;
  /** The stamps of the compiled files, by root-relative path. */
  private compiled = new Map<string, string>();
  /** The stamps of the extension modules at the first look, by root-relative path. */
  private firstModules = new Map<string, string>();
  private device = 0;

  /** `root`: the workspace's real path. */
  constructor(
    readonly root: string,
    private readonly maxFolders = MAX_LOOKED_FOLDERS,
  ) {}

  /** Reads the workspace the first time (the state a call's changes are measured from); later, nothing. */
  lookOnce(): void {
    if (this.folders !== undefined) return;
    this.device = lstatSync(this.root).dev;
    this.look();
  }

  /**
   * The .pyc files that are new or changed since the last look, and the extension modules new or
   * changed since the first that hide a `mod.py` beside them, removed; the look moves on to the
   * workspace as it is now.
   */
  removeChanged(): CompiledRemoval {
    if (this.folders === undefined) {
      this.lookOnce();
      return { removed: [], failed: [] };
    }
    const { compiled, modules } = this.look();
    const removed: string[] = [];
    const failed: string[] = [];
    for (const path of [...compiled, ...modules.filter((module) => this.hidesSource(module))].sort())
      (this.removeOne(path) ? removed : failed).push(path);
    return { removed, failed };
  }

  /**
   * Whether Python imports the extension module at `path` in place of a `mod.py` beside it. A
   * package (`mod/__init__.py`) comes before both; one whose `__init__` is compiled only is not
   * counted, which at worst removes an extension Python never imports.
   */
  private hidesSource(path: string): boolean {
    const slash = path.lastIndexOf("/");
    const folder = slash < 0 ? this.root : `${this.root}/${path.slice(0, slash)}`;
    const module = extensionModuleName(path.slice(slash + 1));
    return isFile(`${folder}/${module}.py`) && !isFile(`${folder}/${module}/__init__.py`);
  }

  /**
   * Looks at the workspace again; returns the .pyc paths new or changed since the last look, and
   * the extension module paths new or changed since the first.
   */
  private look(): { compiled: string[]; modules: string[] } {
    const first = this.folders === undefined;
    const before = this.folders ?? new Map<string, FolderLook>();
    const beforeCompiled = this.compiled;
    const folders = new Map<string, FolderLook>();
    const compiled = new Map<string, string>();
    const changed: string[] = [];
    const modules: string[] = [];
    const queue: string[] = [""];
    for (let next = 0; next < queue.length; next++) {
      const rel = queue[next]!;
      const abs = rel === "" ? this.root : `${this.root}/${rel}`;
      const stats = lstatOrUndefined(abs);
      if (!stats?.isDirectory() || stats.dev !== this.device) continue;
      const known = before.get(rel);
      const current = known && known.stamp === stampOf(stats) ? known : readFolder(abs, stats, !first);
      folders.set(rel, current);
      for (const name of current.compiled) {
        const path = join(rel, name);
        const file = lstatOrUndefined(`${this.root}/${path}`);
        if (!file || file.isDirectory()) continue;
        // A link is judged by what it leads to as well: Python reads through it.
        const fileStamp = file.isSymbolicLink()
          ? `${stampOf(file)}>${targetStamp(`${this.root}/${path}`)}`
          : stampOf(file);
        compiled.set(path, fileStamp);
        if (name.endsWith(".pyc")) {
          if (beforeCompiled.get(path) !== fileStamp) changed.push(path);
        } else if (first) this.firstModules.set(path, fileStamp);
        else if (this.firstModules.get(path) !== fileStamp) modules.push(path);
      }
      for (const name of current.folders) {
        if (queue.length >= this.maxFolders) break;
        queue.push(join(rel, name));
      }
    }
    this.folders = folders;
    this.compiled = compiled;
    // The first look measures from nothing: it finds, it does not judge.
    return first ? { compiled: [], modules: [] } : { compiled: changed, modules };
  }

  /** Removes the root-relative `path`, opening every folder on the way without following a link. */
  private removeOne(path: string): boolean {
    const names = path.split("/");
    const name = names.pop()!;
    const fds: number[] = [];
    try {
      let dir = openSync(this.root, O_PATH | constants.O_DIRECTORY);
      fds.push(dir);
      for (const folder of names) {
        const inner = openDirectoryNoFollow(dir, folder);
        if (inner === undefined) return false;
        fds.push(inner);
        dir = inner;
      }
      try {
        unlinkSync(fdPath(dir, name));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT") return true;
        if (code !== "EACCES" && code !== "EPERM") throw error;
        // A folder made read-only (by the call, to keep its file): writable for the removal only.
        const mode = lstatSync(fdPath(dir)).mode & 0o7777;
        chmodSync(fdPath(dir), mode | 0o300);
        try {
          unlinkSync(fdPath(dir, name));
        } finally {
          chmodSync(fdPath(dir), mode);
        }
      }
      this.forget(names.join("/"), name);
      return true;
    } catch {
      return false;
    } finally {
      for (const fd of fds) closeSync(fd);
    }
  }

  /** After a removal: the folder's new times are its own (reson's), not a change to look into. */
  private forget(rel: string, name: string): void {
    this.compiled.delete(join(rel, name));
    const folder = this.folders?.get(rel);
    const stats = lstatOrUndefined(rel === "" ? this.root : `${this.root}/${rel}`);
    if (!folder || !stats) return;
    folder.compiled = folder.compiled.filter((inside) => inside !== name);
    folder.stamp = stampOf(stats);
  }
}

/**
 * A folder's followed folders and compiled files. `repair`: a folder a call changed that its owner
 * cannot list or enter (chmod 100 hides a planted file from a listing, not from Python) is
 * given back the owner's permissions first.
 */
function readFolder(abs: string, stats: Stats, repair: boolean): FolderLook {
  let entries: Dirent[];
  try {
    entries = readdirSync(abs, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!repair || (code !== "EACCES" && code !== "EPERM"))
      return { stamp: stampOf(stats), folders: [], compiled: [] };
    try {
      chmodSync(abs, (stats.mode & 0o7777) | 0o700);
      return readFolder(abs, lstatSync(abs), false);
    } catch {
      return { stamp: stampOf(stats), folders: [], compiled: [] };
    }
  }
  const look: FolderLook = { stamp: stampOf(stats), folders: [], compiled: [] };
  for (const entry of entries) {
    const name = entry.name;
    if (entry.isDirectory()) {
      if (name === ".git" || (TOOL_FOLDERS.has(name) && name !== CACHE_FOLDER)) continue;
      look.folders.push(name);
    } else if (isCompiled(name) && (entry.isFile() || entry.isSymbolicLink())) look.compiled.push(name);
  }
  return look;
}
