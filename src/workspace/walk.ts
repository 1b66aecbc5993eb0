// The file walk behind glob and the JS grep: depth first, names sorted, ignore files
// respected (see ignore-rules.ts), `.git` always skipped, symlinks never followed (as
// ripgrep does without -L), and a cap on the files returned.
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { throwIfAborted } from "../core/abort.js";
import { admitDirectory, type IgnoreLayer, isIgnored, loadIgnoreLayer } from "./ignore-rules.js";

export interface WalkOptions {
  /** Stop after this many files (default 20,000). */
  maxFiles?: number;
  signal?: AbortSignal;
}

export interface WalkResult {
  /** Files found, relative to the root with "/" separators, in walk order. */
  files: string[];
  /** True when the walk stopped at `maxFiles` with more files left. */
  truncated: boolean;
}

export const DEFAULT_MAX_WALK_FILES = 20_000;

export function compareNames(a: string, b: string): number {
  if (a < b) return -1;
  return a > b ? 1 : 0;
}

/** Walks the directory `start` (relative to the root, "." for the root). */
export async function walkFiles(root: string, start: string, options: WalkOptions = {}): Promise<WalkResult> {
  const maxFiles = options.maxFiles ?? DEFAULT_MAX_WALK_FILES;
  const startDir = start === "." ? "" : start;
  const files: string[] = [];
  let truncated = false;

  // The rules of the start directory's ancestors apply below it too, but the start itself
  // (and the way down to it) is searched even if ignored: the caller named it.
  let ancestors: IgnoreLayer[] = [];
  const parts = startDir === "" ? [] : startDir.split("/");
  for (let depth = 0; depth < parts.length; depth += 1) {
    const layer = await loadIgnoreLayer(root, parts.slice(0, depth).join("/"));
    if (layer) ancestors.push(layer);
    ancestors = admitDirectory(ancestors, parts.slice(0, depth + 1).join("/"));
  }

  const visit = async (dir: string, inherited: readonly IgnoreLayer[]): Promise<void> => {
    throwIfAborted(options.signal);
    const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(
      (): Dirent[] => [], // unreadable directories are skipped, as ripgrep does
    );
    const own = await loadIgnoreLayer(root, dir, new Set(entries.map((entry) => entry.name)));
    const active = own ? [...inherited, own] : inherited;
    entries.sort((a, b) => compareNames(a.name, b.name));
    for (const entry of entries) {
      if (truncated) return;
      if (entry.name === ".git") continue;
      const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!isIgnored(active, path, true)) await visit(path, admitDirectory(active, path));
        continue;
      }
      if (!entry.isFile() || isIgnored(active, path, false)) continue;
      if (files.length >= maxFiles) {
        truncated = true;
        return;
      }
      files.push(path);
    }
  };
  await visit(startDir, ancestors);
  return { files, truncated };
}
