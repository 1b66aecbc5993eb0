// What a trusted project plugin runs: a copy, in reson's home, of its folder and of every
// package and file its code reaches (what its package.json depends on, and what esbuild finds
// it imports, following imports as Node resolves them), each kept at its real path under the
// copy so that Node resolves inside the copy as it did in the workspace. A run's commands may
// change the workspace (its node_modules too), never the copy; the copy's key is a hash of all
// of it, so trust names exactly the code that runs. Links in node_modules to copied packages
// (pnpm's layout) are links in the copy too.
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, realpath, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { basename, dirname, join, normalize, parse, relative, sep } from "node:path";
import { ResonError } from "../core/errors.js";
import { isWithin } from "../core/path-within.js";
import { reachedFiles, ScriptImportError } from "../core/script-imports.js";
import { readPluginManifest } from "./manifest.js";
import { MAX_PLUGIN_BYTES, MAX_PLUGIN_FILES, packageFiles, pluginHash, tooBig } from "./trust.js";

export const PLUGIN_CODE_DIR = "plugin-code";

/** Partial copies older than this are a crashed copy's leftovers, removed with unused copies. */
const STALE_PARTIAL_MS = 24 * 60 * 60 * 1000;

const SCRIPT = /\.(?:[cm]?js|[cm]?ts)$/;
// What a plugin's mcp.json writes for its folder (a literal, not a template string).
const ROOT_PLACEHOLDER = ["$", "{PLUGIN_ROOT}"].join("");

/** The folder of the copy with this key. */
export function pluginCodeDir(home: string, key: string): string {
  return join(home, PLUGIN_CODE_DIR, key);
}

/** Where a file of the original (absolute, real path) lies in a copy. */
export function inCopy(copyDir: string, path: string): string {
  return join(copyDir, relative(parse(path).root, path));
}

/** The package folder a file in some node_modules belongs to, or undefined. */
function packageRootOf(file: string): string | undefined {
  const parts = file.split(sep);
  const at = parts.lastIndexOf("node_modules");
  if (at < 0 || at + 1 >= parts.length - 1) return undefined;
  const scoped = parts[at + 1]!.startsWith("@");
  const end = at + (scoped ? 3 : 2);
  return end < parts.length ? parts.slice(0, end).join(sep) : undefined;
}

const RESON = "reson";
const DEPENDENCY_FIELDS = ["dependencies", "optionalDependencies", "peerDependencies"] as const;
const PACKAGE_NAME = /^(?:@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/i;

/** Where Node finds the package `name` from `dir`: the first node_modules/<name> on the way up (real path). */
async function findPackage(dir: string, name: string): Promise<string | undefined> {
  for (let at = dir; ; at = dirname(at)) {
    if (basename(at) !== "node_modules") {
      const candidate = join(at, "node_modules", name);
      if ((await stat(candidate).catch(() => undefined))?.isDirectory()) return realpath(candidate);
    }
    if (dirname(at) === at) return undefined;
  }
}

/**
 * The packages the plugin's package.json depends on, and theirs, as Node would find them: what
 * it may import by a name esbuild cannot see (computed at run time), or all of it without esbuild.
 */
async function declaredPackages(root: string): Promise<Set<string>> {
  const found = new Set<string>();
  const queue = [root];
  for (let dir = queue.pop(); dir !== undefined; dir = queue.pop()) {
    const text = await readFile(join(dir, "package.json"), "utf8").catch(() => undefined);
    let manifest: unknown;
    try {
      manifest = text === undefined ? undefined : JSON.parse(text);
    } catch {
      continue;
    }
    for (const field of DEPENDENCY_FIELDS) {
      const deps = (manifest as Record<string, unknown> | undefined)?.[field];
      if (typeof deps !== "object" || deps === null) continue;
      for (const name of Object.keys(deps)) {
        if (!PACKAGE_NAME.test(name) || name === RESON) continue;
        const pkg = await findPackage(dir, name);
        if (!pkg || found.has(pkg) || pkg === root) continue;
        found.add(pkg);
        queue.push(pkg);
        if (found.size > MAX_PLUGIN_FILES)
          throw tooBig(root, `depends on more than ${MAX_PLUGIN_FILES} packages`);
      }
    }
  }
  return found;
}

/**
 * Every file the plugin's scripts (its entry, the servers its mcp.json starts) reach through
 * imports and require()s (absolute, real paths). Its other files (tests, build scripts) are
 * copied but not followed: what they import is not what reson runs. Without esbuild the copy
 * holds the plugin's files and its declared dependencies only.
 */
async function pluginReachedFiles(root: string, entryPoints: string[]): Promise<Set<string>> {
  try {
    // "reson" is the reson that loads the plugin (reson-specifier.ts), never a copy.
    return (await reachedFiles(root, entryPoints, { external: (path) => path === RESON })) ?? new Set();
  } catch (error) {
    if (!(error instanceof ScriptImportError)) throw error;
    const where = error.file ? ` (${error.file})` : "";
    throw new ResonError(
      "plugin_invalid",
      `The plugin in ${root} could not be read to find what it imports: ${error.message}${where}.`,
      { hint: "Fix the file, or add the plugin at user scope if you trust it as it is." },
    );
  }
}

/** What a copy holds: files (absolute, real paths), and links (path -> real target) to copied packages. */
interface CopyList {
  files: string[];
  links: Map<string, string>;
}

/** The node_modules entries in `dir` that are links to one of `packages` (as pnpm lays them out). */
async function linksIn(
  dir: string,
  packages: ReadonlySet<string>,
  links: Map<string, string>,
): Promise<void> {
  const folder = join(dir, "node_modules");
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(folder, entry.name);
    const names =
      entry.name.startsWith("@") && entry.isDirectory()
        ? (await readdir(path, { withFileTypes: true }).catch(() => [])).map((inner) => ({
            path: join(path, inner.name),
            link: inner.isSymbolicLink(),
          }))
        : [{ path, link: entry.isSymbolicLink() }];
    for (const name of names) {
      if (!name.link) continue;
      const target = await realpath(name.path).catch(() => undefined);
      if (target && packages.has(target)) links.set(name.path, target);
    }
  }
}

/** The plugin's own scripts its mcp.json runs (`${PLUGIN_ROOT}/…` in a server's command or args). */
async function mcpScripts(file: string, root: string, own: readonly string[]): Promise<string[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch {
    return [];
  }
  const servers = (parsed as { mcpServers?: unknown; servers?: unknown } | null) ?? {};
  const words = JSON.stringify(servers.mcpServers ?? servers.servers ?? {}).match(/"[^"]*"/g) ?? [];
  const named = words.map((word) =>
    normalize((JSON.parse(word) as string).replaceAll(ROOT_PLACEHOLDER, root)),
  );
  return own.filter((path) => SCRIPT.test(path) && named.includes(path));
}

/**
 * What to copy: the plugin's own files, the packages and files its scripts reach, the
 * package.json files that say how Node reads them, and the node_modules links Node follows to
 * reach those packages.
 */
async function copyList(root: string): Promise<CopyList> {
  const manifest = await readPluginManifest(root);
  const own = (await packageFiles(root)).map((file) => join(root, file));
  const scripts = [
    ...(manifest.entry ? [manifest.entry] : []),
    ...(manifest.mcpFile ? await mcpScripts(manifest.mcpFile, root, own) : []),
  ];
  const files = new Set(own);
  const packages = await declaredPackages(root);
  for (const file of await pluginReachedFiles(root, scripts)) {
    if (isWithin(file, root) && !file.slice(root.length).split(sep).includes("node_modules")) continue;
    const pkg = packageRootOf(file);
    if (pkg) packages.add(pkg);
    else files.add(file);
  }
  for (const pkg of packages) for (const file of await packageFiles(pkg)) files.add(join(pkg, file));
  // The nearest package.json above a file says whether its .js is an ES module, and maps "#"
  // imports; a node_modules beside any folder on the way may hold the link to a package.
  const seen = new Set<string>();
  const links = new Map<string, string>();
  for (const file of [...files]) {
    for (let dir = dirname(file); !seen.has(dir); dir = dirname(dir)) {
      seen.add(dir);
      const manifestFile = join(dir, "package.json");
      if (!files.has(manifestFile) && (await stat(manifestFile).catch(() => undefined))?.isFile())
        files.add(manifestFile);
      if (packages.size > 0) await linksIn(dir, packages, links);
      if (dirname(dir) === dir) break;
    }
  }
  if (files.size > MAX_PLUGIN_FILES)
    throw tooBig(root, `runs more than ${MAX_PLUGIN_FILES} files (with what it imports)`);
  return { files: [...files].sort(), links };
}

export interface PluginCode {
  /** The copy's key: a hash of every file in it, paths and contents. */
  key: string;
  /** The hash of the plugin's own files, as copied (pluginHash of the copy). */
  hash: string;
  /** The copy's folder (real path). */
  dir: string;
  /** The plugin's folder inside the copy: where it loads from. */
  root: string;
}

/**
 * Copies what the plugin at `root` (a real path) runs into $RESON_HOME/plugin-code/<key>. The
 * key and hash are of the bytes written, read once: a file changed meanwhile is either in the
 * copy as read or not at all, never hashed in one form and run in another.
 */
export async function copyPluginCode(home: string, root: string): Promise<PluginCode> {
  const { files, links } = await copyList(root);
  const base = join(home, PLUGIN_CODE_DIR);
  await mkdir(base, { recursive: true, mode: 0o700 });
  const partial = join(base, `.partial-${randomBytes(6).toString("hex")}`);
  const hash = createHash("sha256");
  let bytes = 0;
  try {
    for (const file of files) {
      const content = await readFile(file).catch(() => undefined);
      if (!content) continue;
      bytes += content.length;
      if (bytes > MAX_PLUGIN_BYTES)
        throw tooBig(root, `runs more than ${MAX_PLUGIN_BYTES >> 20} MiB of code (with what it imports)`);
      const target = inCopy(partial, file);
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      const mode = ((await stat(file).catch(() => undefined))?.mode ?? 0o644) & 0o755;
      await writeFile(target, content, { mode: mode | 0o600 });
      const name = relative(partial, target);
      hash.update(`${name}\0${mode}\0${content.length}\0`).update(content);
    }
    for (const [link, target] of [...links].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const at = inCopy(partial, link);
      const to = relative(dirname(at), inCopy(partial, target));
      await mkdir(dirname(at), { recursive: true, mode: 0o700 });
      await symlink(to, at);
      hash.update(`${relative(partial, at)}\0->\0${to}\0`);
    }
    const key = hash.digest("hex").slice(0, 32);
    const ownHash = await pluginHash(inCopy(partial, root));
    const final = pluginCodeDir(home, key);
    if (await stat(final).catch(() => undefined)) await rm(partial, { recursive: true, force: true });
    else
      await rename(partial, final).catch(async (error: NodeJS.ErrnoException) => {
        // Another reson made the same copy meanwhile: theirs is byte for byte this one.
        if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
        await rm(partial, { recursive: true, force: true });
      });
    const dir = await realpath(final);
    return { key, hash: ownHash, dir, root: inCopy(dir, root) };
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
}

/** The copy with this key (real path), unless it is gone (a user may delete $RESON_HOME/plugin-code). */
export async function pluginCodeAt(home: string, key: string): Promise<string | undefined> {
  const dir = pluginCodeDir(home, key);
  if (!(await stat(dir).catch(() => undefined))?.isDirectory()) return undefined;
  return realpath(dir);
}

/**
 * The files of a copy that differ from where they came from (a dependency updated, or
 * tampered with, since it was trusted), as their original paths; the plugin's own folder is
 * left to its hash. The copy still runs as trusted: this only tells the user.
 */
export async function changedSinceCopied(dir: string, pluginRoot: string): Promise<string[]> {
  const changed: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true }).catch(() => [])) {
      const path = join(folder, entry.name);
      const original = join(sep, relative(dir, path));
      if (entry.isDirectory()) await walk(path);
      if (!entry.isFile()) continue;
      const own =
        isWithin(original, pluginRoot) && !relative(pluginRoot, original).split(sep).includes("node_modules");
      if (own) continue;
      const [was, now] = await Promise.all([readFile(path), readFile(original).catch(() => undefined)]);
      if (!now?.equals(was)) changed.push(original);
    }
  };
  await walk(dir);
  return changed.sort();
}

/**
 * The plugin's own files (relative to its folder) that differ between the copy it was trusted
 * with (`copied`, its folder in the copy) and its folder now: added, changed or removed since.
 */
export async function ownFilesChanged(copied: string, root: string): Promise<string[]> {
  const [wasList, nowList] = await Promise.all([packageFiles(copied), packageFiles(root)]);
  const was = new Set(wasList);
  const now = new Set(nowList);
  const changed = new Set([...was, ...now].filter((file) => !was.has(file) || !now.has(file)));
  for (const file of now) {
    if (changed.has(file)) continue;
    const [before, after] = await Promise.all([
      readFile(join(copied, file)).catch(() => undefined),
      readFile(join(root, file)).catch(() => undefined),
    ]);
    if (!before || !after?.equals(before)) changed.add(file);
  }
  return [...changed].sort();
}

/** Removes the copies no trust names any more (and partial copies a crash left behind). */
export async function prunePluginCode(
  home: string,
  inUse: ReadonlySet<string>,
  now = Date.now(),
): Promise<void> {
  const base = join(home, PLUGIN_CODE_DIR);
  const names = await readdir(base).catch(() => [] as string[]);
  for (const name of names) {
    if (inUse.has(name)) continue;
    const path = join(base, name);
    if (name.startsWith(".")) {
      const info = await stat(path).catch(() => undefined);
      if (!info || now - info.mtimeMs < STALE_PARTIAL_MS) continue;
    }
    await rm(path, { recursive: true, force: true });
  }
}
