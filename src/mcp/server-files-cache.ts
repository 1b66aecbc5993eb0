// The last answer of serverFiles (server-files.ts) for a definition, kept in
// $RESON_HOME/cache/mcp-server-files/ with stamps of everything that answer depended on, so a project
// server's next start skips esbuild's scan and the hashing when nothing changed (a server on the
// MCP SDK and zod reaches 118 files: ~200-300 ms at each start otherwise, ~3 ms reused).
//
// Why reusing it is sound. The answer is a function of (1) the definition as expanded now, the
// workspace, esbuild's version and SCHEME (the file's name); (2) the outcome of every path
// serverFiles looked up itself (the script named, the launcher's files, Python's candidate
// modules, each file's package.json): each is looked up again, exactly; (3) the bytes of every
// file it read or esbuild reached, in the workspace or not; (4) what esbuild's resolver saw,
// which it does not tell, so the stamps cover every name it can read: in every folder above a
// reached file, node_modules (and each @scope in it), package.json, tsconfig.json, jsconfig.json
// and Yarn's .pnp files, present or absent (a package planted where Node would now look first);
// each node_modules/<name> Node looks in for a bare import before the one it found, all of them
// when none; every folder of each package a file was reached in, and of each such
// node_modules/<name> that is there but did not resolve (a file planted or a symlink
// retargeted in it); each
// name on the way of a relative import, and the names beside its last one that share its stem
// (lib.js planted beside lib/, x.ts beside x.js). A folder's own mtime is not stamped outside
// packages: a sandboxed command's placeholders come and go in the workspace's folder, and no name
// there but those counts. A stamp is lstat's device, inode, mode, size, mtime and ctime to the
// nanosecond; for a symlink also each link it leads through and stat of its end. A file
// rewritten in place keeps its inode but gets a new ctime, which user code cannot set (utimes
// sets mtime and moves ctime to now); a file or folder replaced gets a new inode or ctime.
// What the stamps cannot see is not kept: an import esbuild resolved by a bare name to a file
// outside a package (self-reference, "#" imports), an unresolved "#" import or one naming its
// own package, a tsconfig.json or jsconfig.json with paths, baseUrl or extends outside
// node_modules, a package of more than MAX_PACKAGE_FOLDERS folders, a file esbuild could not
// parse. A change within one tick of the file system's clock keeps ctime (racy, as git calls
// it): nothing is kept when a stamp's ctime is less than RACY_MS older than the computation's
// start; stamps are taken after the computation, so a change during it is caught the same way.
// $RESON_HOME is out of a run's commands' reach. (A process a run left behind, writing through
// a shared memory map, can change a file without a new ctime; it could as well change the file
// between the check and the server's start, which no check covers.)
import { createHash } from "node:crypto";
import {
  type BigIntStats,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
} from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, join, parse, resolve, sep } from "node:path";
import { writeFileAtomic } from "../core/atomic-write.js";
import { isWithin } from "../core/path-within.js";
import type { ImportEdge } from "../core/script-imports.js";

/** Starts the key of a stamp of names in a folder (paths are absolute, so none starts so). */
const ENTRIES = "*";
/** Bumped when what serverFiles computes changes, so answers kept by an older reson are not reused. */
const SCHEME = 1;
/** A stamp's ctime must be this much older than the computation's start for the answer to be kept. */
const RACY_MS = 2000;
/** Folders of one reached package stamped at most; a bigger one is not cached. */
const MAX_PACKAGE_FOLDERS = 2000;
/** Names esbuild's resolver reads in each folder above a file. */
const MARKERS = [
  "node_modules",
  "package.json",
  "tsconfig.json",
  "jsconfig.json",
  ".pnp.cjs",
  ".pnp.js",
  ".pnp.data.json",
];

/** What serverFiles looked at while computing its answer. */
export class ServerInputs {
  /** Path looked up -> the real path of the workspace file found there, or null. */
  readonly lookups = new Map<string, string | null>();
  /** Every file esbuild reached, real paths, in the workspace or not. */
  readonly reached = new Set<string>();
  readonly imports: ImportEdge[] = [];
  /** Why the answer cannot be kept (esbuild absent). */
  notKept: string | undefined;
}

interface Kept<T> {
  scheme: number;
  answer: T;
  lookups: [string, string | null][];
  stamps: [string, string][];
}

function esbuildVersion(): string {
  try {
    return (createRequire(import.meta.url)("esbuild") as { version: string }).version;
  } catch {
    return "none";
  }
}

/** Where the answer for this definition (expanded) in this workspace is kept. */
export function keptFile(home: string, workspace: string, definition: unknown): string {
  const key = createHash("sha256")
    .update(JSON.stringify([SCHEME, esbuildVersion(), workspace, definition]))
    .digest("hex")
    .slice(0, 32);
  return join(home, "cache", "mcp-server-files", `${key}.json`);
}

function statText(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}:${stats.mode}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

class Stamper {
  readonly stamps = new Map<string, string>();
  newestCtimeNs = 0n;

  private lstat(path: string): BigIntStats | string {
    try {
      const stats = lstatSync(path, { bigint: true });
      if (stats.ctimeNs > this.newestCtimeNs) this.newestCtimeNs = stats.ctimeNs;
      return stats;
    } catch (error) {
      return `!${(error as NodeJS.ErrnoException).code ?? "error"}`;
    }
  }

  /** What each stamped path is (a symlink's end), or undefined when it is not there. */
  private readonly found = new Map<string, BigIntStats | undefined>();

  /** Stamps `path` (once): its lstat, and for a symlink each link it leads through and its end. */
  stamp(path: string): BigIntStats | undefined {
    if (this.found.has(path)) return this.found.get(path);
    const [text, stats] = this.measure(path);
    this.stamps.set(path, text);
    this.found.set(path, stats);
    return stats;
  }

  private measure(path: string): [string, BigIntStats | undefined] {
    const own = this.lstat(path);
    if (typeof own === "string") return [own, undefined];
    if (!own.isSymbolicLink()) return [statText(own), own];
    let text = statText(own);
    let at = path;
    for (let hop = 0; hop < 16; hop++) {
      let next: string;
      try {
        next = resolve(dirname(at), readlinkSync(at));
      } catch {
        break;
      }
      const link = this.lstat(next);
      text += `>${typeof link === "string" ? link : statText(link)}`;
      if (typeof link === "string" || !link.isSymbolicLink()) break;
      at = next;
    }
    try {
      const end = statSync(path, { bigint: true });
      if (end.ctimeNs > this.newestCtimeNs) this.newestCtimeNs = end.ctimeNs;
      return [`${text}=${statText(end)}`, end];
    } catch (error) {
      return [`${text}=!${(error as NodeJS.ErrnoException).code ?? "error"}`, undefined];
    }
  }

  private readonly listings = new Map<string, string[] | string>();

  /** The names in `dir`, sorted (read once), or why not. */
  private list(dir: string): string[] | string {
    let listed = this.listings.get(dir);
    if (listed === undefined) {
      try {
        listed = readdirSync(dir).sort();
      } catch (error) {
        listed = `!${(error as NodeJS.ErrnoException).code ?? "error"}`;
      }
      this.listings.set(dir, listed);
    }
    return listed;
  }

  /** Stamps the names in `dir` that start as `name` does (up to its first dot), and each of them. */
  entries(dir: string, name: string): void {
    const stem = name.split(".")[0]!;
    if (stem === "") {
      this.stamp(dir);
      return;
    }
    const key = `${ENTRIES}${join(dir, stem)}`;
    if (this.stamps.has(key)) return;
    const listed = this.list(dir);
    if (typeof listed === "string") {
      this.stamps.set(key, listed);
      return;
    }
    const names = listed.filter((entry) => entry.startsWith(stem));
    this.stamps.set(key, names.join("/"));
    for (const entry of names) this.stamp(join(dir, entry));
  }
}

/** The folders above `path` (absolute), nearest first, up to the root. */
function ancestors(path: string): string[] {
  const found: string[] = [];
  const { root } = parse(path);
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    found.push(dir);
    if (dir === root) return found;
  }
}

/** A reached file's package folder (node_modules/name or node_modules/@scope/name), if in one. */
function packageFolder(file: string): string | undefined {
  const at = file.lastIndexOf(`${sep}node_modules${sep}`);
  if (at < 0) return undefined;
  const parts = file.slice(at + 14).split(sep);
  const depth = parts[0]?.startsWith("@") ? 2 : 1;
  if (parts.length <= depth) return undefined;
  return join(file.slice(0, at + 13), ...parts.slice(0, depth));
}

/** The package name of a bare specifier ("@scope/name/sub" -> "@scope/name"). */
function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return (specifier.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
}

const RELATIVE = /^(?:\.{1,2}(?:\/|$)|\/)/;
const TS_RESOLUTION = /"(?:paths|baseUrl|extends)"\s*:/;

/** Stamps what the answer depended on; a string when it cannot be kept (why). */
function stampInputs(inputs: ServerInputs): Stamper | string {
  const stamper = new Stamper();
  // Every file read (each was found by a lookup).
  for (const real of inputs.lookups.values()) if (real) stamper.stamp(real);

  const markersDone = new Set<string>();
  const names = new Map<string, string | undefined>();
  const markers = (dir: string): string | undefined => {
    if (markersDone.has(dir)) return undefined;
    markersDone.add(dir);
    for (const name of MARKERS) {
      const path = join(dir, name);
      const stats = stamper.stamp(path);
      if (!stats) continue;
      if (name === "node_modules" && stats.isDirectory()) {
        for (const entry of readdirSync(path)) if (entry.startsWith("@")) stamper.stamp(join(path, entry));
      } else if (name === "package.json") {
        try {
          const manifest = JSON.parse(readFileSync(path, "utf8")) as { name?: unknown };
          names.set(dir, typeof manifest.name === "string" ? manifest.name : undefined);
        } catch {
          names.set(dir, undefined);
        }
      } else if (
        (name === "tsconfig.json" || name === "jsconfig.json") &&
        !dir.split(sep).includes("node_modules")
      ) {
        if (TS_RESOLUTION.test(readFileSync(path, "utf8")))
          return `${path} maps imports (paths, baseUrl or extends)`;
      }
    }
    return undefined;
  };

  const packages = new Set<string>();
  for (const file of inputs.reached) {
    stamper.stamp(file);
    for (const dir of ancestors(file)) {
      const why = markers(dir);
      if (why) return why;
    }
    const folder = packageFolder(file);
    if (folder) packages.add(folder);
  }
  for (const edge of inputs.imports) {
    if (RELATIVE.test(edge.specifier) || (edge.path === undefined && !edge.unresolved)) continue;
    if (edge.path !== undefined && packageFolder(edge.path) === undefined)
      return `${edge.specifier} resolved to ${edge.path}, outside a package`;
    if (edge.unresolved && edge.specifier.startsWith("#")) return `${edge.specifier} did not resolve`;
    const name = packageName(edge.specifier);
    // Each node_modules/<name> Node looks in before the one it found (all of them when none):
    // one there that did not resolve now (empty, or missing the file its package.json names)
    // is walked like a package, so a file planted in it later is seen.
    for (const dir of ancestors(join(edge.resolveDir, "x"))) {
      if (edge.unresolved && names.get(dir) === name)
        return `${edge.specifier} names its own package and did not resolve`;
      const candidate = join(dir, "node_modules", name);
      if (!stamper.stamp(candidate)?.isDirectory()) continue;
      packages.add(candidate);
      if (edge.path !== undefined && isWithin(edge.path, realpathSync(candidate))) break;
    }
  }
  for (const folder of packages) {
    // Every folder of the package, symlinked ones followed (a retargeted link changes its folder).
    const queue = [folder];
    const seen = new Set<string>();
    while (queue.length > 0) {
      const dir = queue.pop()!;
      const stats = stamper.stamp(dir);
      if (!stats?.isDirectory() || seen.has(`${stats.dev}:${stats.ino}`)) continue;
      seen.add(`${stats.dev}:${stats.ino}`);
      if (seen.size > MAX_PACKAGE_FOLDERS) return `${folder} has more than ${MAX_PACKAGE_FOLDERS} folders`;
      for (const entry of readdirSync(dir, { withFileTypes: true }))
        if ((entry.isDirectory() || entry.isSymbolicLink()) && entry.name !== "node_modules")
          queue.push(join(dir, entry.name));
    }
  }

  for (const edge of inputs.imports) {
    if (!RELATIVE.test(edge.specifier)) continue;
    // Each name on the way from the importer's folder, a symlink's included.
    const target = resolve(edge.resolveDir, edge.specifier.replace(/[?#].*$/, ""));
    // Within one package every folder is stamped already, its own entries included.
    const folder = packageFolder(join(edge.resolveDir, "x"));
    if (folder && packages.has(folder) && isWithin(target, folder)) continue;
    let common = edge.resolveDir;
    while (!isWithin(target, common)) common = dirname(common);
    for (let at = target; at !== common; at = dirname(at)) stamper.stamp(at);
    // The names esbuild tries for the last one (with extensions, .ts for .js), not the whole
    // folder: a sandboxed command's placeholders come and go in the workspace's folder.
    if (target !== common) stamper.entries(dirname(target), basename(target));
  }
  return stamper;
}

/** The kept answer if nothing it depended on changed, else undefined. */
export async function keptAnswer<T>(
  file: string,
  lookup: (path: string) => Promise<string | undefined>,
): Promise<T | undefined> {
  let kept: Kept<T>;
  try {
    kept = JSON.parse(await readFile(file, "utf8")) as Kept<T>;
  } catch {
    return undefined;
  }
  if (kept.scheme !== SCHEME || !Array.isArray(kept.lookups) || !Array.isArray(kept.stamps)) return undefined;
  const stamper = new Stamper();
  for (const [path, stamp] of kept.stamps) {
    if (path.startsWith(ENTRIES)) stamper.entries(dirname(path.slice(1)), basename(path));
    else stamper.stamp(path);
    if (stamper.stamps.get(path) !== stamp) return undefined;
  }
  const now = await Promise.all(kept.lookups.map(([path]) => lookup(path)));
  if (kept.lookups.some(([, real], i) => (now[i] ?? null) !== real)) return undefined;
  return kept.answer;
}

/**
 * Keeps `answer` with the stamps of what it depended on, unless something can't be stamped or
 * changed too recently (then the next start computes again). `startedMs`: the computation's start.
 */
export async function keepAnswer<T>(
  file: string,
  answer: T,
  inputs: ServerInputs,
  startedMs: number,
): Promise<void> {
  if (inputs.notKept) return;
  let stamper: Stamper | string;
  try {
    stamper = stampInputs(inputs);
  } catch {
    // A file or folder gone or unreadable while being stamped: nothing to rely on, keep nothing.
    return;
  }
  if (typeof stamper === "string") return;
  if (stamper.newestCtimeNs >= BigInt(Math.floor(startedMs - RACY_MS)) * 1_000_000n) return;
  const kept: Kept<T> = { scheme: SCHEME, answer, lookups: [...inputs.lookups], stamps: [...stamper.stamps] };
  try {
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    await writeFileAtomic(file, JSON.stringify(kept), { mode: 0o600 });
  } catch {
    // Only a cache: a home that cannot be written to means the next start computes again.
  }
}
