// A folder's state as a test compares it: every file's bytes (as a hash) and mode, every
// folder's mode, every symbolic link's target, by relative path. Two states are equal when a
// user would see the same folder.
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";

export type FolderState = Record<string, string>;

/** The state of `root`, leaving out the names in `skip` (at any depth), e.g. `.git`. */
export function folderState(root: string, skip: readonly string[] = []): FolderState {
  const state: FolderState = {};
  const visit = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      if (skip.includes(name)) continue;
      const path = rel ? `${rel}/${name}` : name;
      const abs = join(root, path);
      const stats = lstatSync(abs);
      const mode = (stats.mode & 0o7777).toString(8);
      if (stats.isSymbolicLink()) state[path] = `link -> ${readlinkSync(abs)}`;
      else if (stats.isDirectory()) {
        state[`${path}/`] = `dir ${mode}`;
        visit(path);
      } else {
        const hash = createHash("sha256").update(readFileSync(abs)).digest("hex").slice(0, 16);
        state[path] = `file ${mode} ${hash}`;
      }
    }
  };
  visit("");
  return state;
}
