// Ignore files for walks: .gitignore, .ignore and .rgignore in each directory, the same set
// ripgrep reads, so glob, the JS grep and ripgrep agree on what is skipped. Rules in a
// deeper directory win over shallower ones; within a directory, .rgignore beats .ignore beats
// .gitignore (rules are added in that order and the last match wins).
import { constants } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, posix } from "node:path";
import ignore, { type Ignore } from "ignore";

const IGNORE_FILES = [".gitignore", ".ignore", ".rgignore"] as const;

export interface IgnoreLayer {
  /** The directory the rules belong to, relative to the root ("" for the root). */
  dir: string;
  rules: Ignore;
}

/** The rules of one directory, or undefined when it has no ignore file. */
export async function loadIgnoreLayer(root: string, dir: string): Promise<IgnoreLayer | undefined> {
  const texts: string[] = [];
  for (const name of IGNORE_FILES) {
    // O_NOFOLLOW: an ignore file that is a symlink (maybe to outside the root) is not read.
    const text = await readFile(join(root, dir, name), {
      encoding: "utf8",
      flag: constants.O_RDONLY | constants.O_NOFOLLOW,
    }).catch(() => undefined);
    if (text !== undefined) texts.push(text);
  }
  if (texts.length === 0) return undefined;
  return { dir, rules: ignore().add(texts.join("\n")) };
}

/** Whether `path` (relative to the root) is ignored by the layers of its ancestors. */
export function isIgnored(layers: readonly IgnoreLayer[], path: string, isDirectory: boolean): boolean {
  for (let i = layers.length - 1; i >= 0; i -= 1) {
    const layer = layers[i]!;
    const own = layer.dir === "" ? path : posix.relative(layer.dir, path);
    const result = layer.rules.test(isDirectory ? `${own}/` : own);
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}
