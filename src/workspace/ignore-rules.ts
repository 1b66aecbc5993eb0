// Ignore files for walks: .gitignore, .ignore and .rgignore in each directory, the same set
// ripgrep reads, so glob, the JS grep and ripgrep agree on what is skipped. Rules in a
// deeper directory win over shallower ones; within a directory, .rgignore beats .ignore beats
// .gitignore (rules are added in that order and the last match wins).
import { closeSync, constants, openSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, posix } from "node:path";
import ignore, { type Ignore } from "ignore";

export const IGNORE_FILES = [".gitignore", ".ignore", ".rgignore"] as const;

export interface IgnoreLayer {
  /** The directory the rules belong to, relative to the root ("" for the root). */
  dir: string;
  /** The rules as text (ignore files joined), kept to derive layers from. */
  patterns: string;
  rules: Ignore;
  /**
   * Every rule names an entry by its name alone (`node_modules/`, `*.log`; no slash but a
   * trailing one): the rules decide from the name, without the path relative to the layer.
   */
  namesOnly: boolean;
  /** Every rule is one that ignores folders only (`dist/`, no negation): files pass untested. */
  foldersOnly: boolean;
}

/**
 * The rules of one directory (`dir`, relative to the root), read from `dirPath` (where it is
 * open, see walk.ts), or undefined when it has no ignore file. `names`, when the caller has
 * listed the directory already, saves trying files that are not there.
 */
export async function loadIgnoreLayer(
  dirPath: string,
  dir: string,
  names?: ReadonlySet<string>,
): Promise<IgnoreLayer | undefined> {
  const texts: string[] = [];
  for (const name of IGNORE_FILES) {
    if (names && !names.has(name)) continue;
    // O_NOFOLLOW: an ignore file that is a symlink (maybe to outside the root) is not read.
    const text = await readFile(join(dirPath, name), {
      encoding: "utf8",
      flag: constants.O_RDONLY | constants.O_NOFOLLOW,
    }).catch(() => undefined);
    if (text !== undefined) texts.push(text);
  }
  if (texts.length === 0) return undefined;
  return patternLayer(dir, texts.join("\n"));
}

/** loadIgnoreLayer without the thread pool, for a walk that stats synchronously anyway. */
export function loadIgnoreLayerSync(
  dirPath: string,
  dir: string,
  names: ReadonlySet<string>,
): IgnoreLayer | undefined {
  const texts: string[] = [];
  for (const name of IGNORE_FILES) {
    if (!names.has(name)) continue;
    let fd: number | undefined;
    try {
      fd = openSync(join(dirPath, name), constants.O_RDONLY | constants.O_NOFOLLOW);
      texts.push(readFileSync(fd, "utf8"));
    } catch {
      // unreadable, or a symlink: not read, as above
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  return texts.length === 0 ? undefined : patternLayer(dir, texts.join("\n"));
}

/** A layer of gitignore-style `patterns` that belongs to `dir` (relative to the root, "" for it). */
export function patternLayer(dir: string, patterns: string): IgnoreLayer {
  let namesOnly = true;
  let foldersOnly = true;
  for (const line of patterns.split(/\r?\n/)) {
    const rule = line.trimEnd();
    if (rule === "" || rule.startsWith("#")) continue;
    // An escaped trailing space, or a slash inside (below): decided on the whole path.
    if (rule.endsWith("\\")) namesOnly = false;
    const negated = rule.startsWith("!");
    const body = negated ? rule.slice(1) : rule;
    const folder = body.endsWith("/");
    if ((folder ? body.slice(0, -1) : body).includes("/")) namesOnly = false;
    if (negated || !folder) foldersOnly = false;
  }
  return { dir, patterns, rules: ignore().add(patterns), namesOnly, foldersOnly };
}

function relativeTo(layer: IgnoreLayer, path: string): string {
  return layer.dir === "" ? path : posix.relative(layer.dir, path);
}

/** A gitignore pattern matching exactly the directory `path`, relative to its layer. */
function exactDirectory(path: string): string {
  return `/${path.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`).replace(/ $/, "\\ ")}/`;
}

/**
 * The layers to use inside `dir`, a directory the walk enters although some layer ignores
 * it: the start of a walk the caller named explicitly (as ripgrep searches an ignored path it
 * is given), or one a deeper ignore file re-includes. Each such layer gets a rule
 * re-including exactly `dir`, so its rules still apply to what is inside (`*.log`) without
 * the whole subtree counting as ignored through its parent. Call it for each directory from
 * the top down.
 */
export function admitDirectory(layers: readonly IgnoreLayer[], dir: string): IgnoreLayer[] {
  return layers.map((layer) => {
    const own = relativeTo(layer, dir);
    const below = own !== "" && own !== ".." && !own.startsWith("../");
    if (!below || !layer.rules.test(`${own}/`).ignored) return layer;
    return patternLayer(layer.dir, `${layer.patterns}\n!${exactDirectory(own)}`);
  });
}

/** Whether `path` (relative to the root) is ignored by the layers of its ancestors. */
export function isIgnored(layers: readonly IgnoreLayer[], path: string, isDirectory: boolean): boolean {
  for (let i = layers.length - 1; i >= 0; i -= 1) {
    const layer = layers[i]!;
    const own = relativeTo(layer, path);
    const result = layer.rules.test(isDirectory ? `${own}/` : own);
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}

/**
 * isIgnored for the entry `name` of the folder `dir` (relative to the root) met by a walk that
 * entered `dir` through the same layers: a layer whose rules go by names alone is asked with
 * the name (no path built), and one that ignores folders only is skipped for a file.
 */
export function isIgnoredEntry(
  layers: readonly IgnoreLayer[],
  dir: string,
  name: string,
  isDirectory: boolean,
): boolean {
  let path: string | undefined;
  for (let i = layers.length - 1; i >= 0; i -= 1) {
    const layer = layers[i]!;
    if (layer.foldersOnly && !isDirectory) continue;
    let own = name;
    if (!layer.namesOnly) {
      path ??= dir === "" ? name : `${dir}/${name}`;
      own = relativeTo(layer, path);
    }
    const result = layer.rules.test(isDirectory ? `${own}/` : own);
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}
