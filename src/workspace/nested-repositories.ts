// The repositories below a workspace's root: reson started in ~/code, which holds several, a
// vendored repository, a test fixture. Each one's git folder runs what its hooks and config say
// at the user's next git command there, so it is protected like the workspace's own `.git`
// (protected-targets.ts). Looked for once, the first time a policy's protection is worked out
// (before the first command or file write of a run can change anything), and kept for every
// policy made from it: a repository the agent makes later is its own (README says so), and a
// fooled command cannot hide one by making the folders around it larger or ignored.
//
// Every folder is read, ignore rules or not (a fooled run could otherwise ignore a repository
// away), but what a `.git` holds and the folders tools fill with their own downloads and
// builds (packages' clones there are not the user's), up to MAX_SCANNED_FOLDERS, shallowest
// first; links are not followed, other mounts not entered. About 10 ms for 500 folders. The
// same look notes the folders of installed packages below the root (a monorepo's
// packages/app/node_modules, a virtual environment), which a run that has read untrusted
// content keeps as it keeps the root's (protected-list.ts, `installs`).
import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { INSTALL_FOLDERS } from "./protected-list.js";

/** Folders read at most: a workspace larger than this (a home folder) is protected as far as read. */
export const MAX_SCANNED_FOLDERS = 20_000;

/** Folders of package managers, toolchains and caches: not entered. */
export const TOOL_FOLDERS: ReadonlySet<string> = new Set([
  "node_modules",
  ".cache",
  ".npm",
  ".pnpm-store",
  ".yarn",
  ".cargo",
  ".rustup",
  ".gradle",
  ".m2",
  ".venv",
  "__pycache__",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
]);

/** Holds the scan's result for a policy and the policies made from it (a shared object). */
export interface NestedRepositories {
  /** The `.git` entries (folders, or `gitdir:` files) below the root, absolute; undefined until looked for. */
  found?: readonly string[];
  /**
   * The folders of installed packages below the root (node_modules, a virtual environment:
   * INSTALL_FOLDERS), absolute, by the same look; the root's own are the list's entries.
   */
  installs?: readonly string[];
  /** The root they were looked for below (a holder given another root looks again). */
  root?: string;
}

interface Scan {
  found: string[];
  installs: string[];
}

function scanned(root: string, holder: NestedRepositories): Required<NestedRepositories> {
  if (holder.found === undefined || holder.installs === undefined || holder.root !== root) {
    const result = scan(root);
    holder.found = result.found;
    holder.installs = result.installs;
    holder.root = root;
  }
  return holder as Required<NestedRepositories>;
}

/** The `.git` entries below `root` (its own excluded), looked for on the first call. */
export function nestedRepositories(root: string, holder: NestedRepositories): readonly string[] {
  return scanned(root, holder).found;
}

/** The install folders below `root` (its own excluded), from the same look. */
export function nestedInstallFolders(root: string, holder: NestedRepositories): readonly string[] {
  return scanned(root, holder).installs;
}

const INSTALL_NAMES: ReadonlySet<string> = new Set(INSTALL_FOLDERS);

function isEnvironmentMark(entry: Dirent): boolean {
  return (
    (entry.name === "pyvenv.cfg" && entry.isFile()) || (entry.name === "conda-meta" && entry.isDirectory())
  );
}

/** The Python environments directly inside `folder` (tox's .tox/py312, .tox/.pkg). */
function environmentsIn(folder: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(folder, entry.name))
    .filter((path) => {
      try {
        return readdirSync(path, { withFileTypes: true }).some(isEnvironmentMark);
      } catch {
        return false;
      }
    });
}

function scan(root: string): Scan {
  const result: Scan = { found: [], installs: [] };
  const { found, installs } = result;
  let dev: number;
  try {
    dev = lstatSync(root).dev;
  } catch {
    return result;
  }
  const queue = [root];
  let read = 0;
  // Breadth first: within the limit, the shallower repositories (the likelier the user's) first.
  for (let at = 0; at < queue.length && read < MAX_SCANNED_FOLDERS; at++) {
    const dir = queue[at]!;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    read++;
    // A Python environment of any name (a venv's pyvenv.cfg, conda's conda-meta): noted, not entered.
    if (dir !== root && entries.some(isEnvironmentMark)) {
      installs.push(dir);
      continue;
    }
    for (const entry of entries) {
      if (entry.name === ".git") {
        if (dir !== root && (entry.isDirectory() || entry.isFile())) found.push(join(dir, ".git"));
        continue;
      }
      if (!entry.isDirectory()) continue;
      if (INSTALL_NAMES.has(entry.name) && dir !== root) installs.push(join(dir, entry.name));
      // tox's environments, one folder each, which `tox` runs again as they are.
      if (entry.name === ".tox") installs.push(...environmentsIn(join(dir, entry.name)));
      if (TOOL_FOLDERS.has(entry.name)) continue;
      const path = join(dir, entry.name);
      try {
        if (lstatSync(path).dev !== dev) continue;
      } catch {
        continue;
      }
      queue.push(path);
    }
  }
  result.installs = [...new Set(installs)];
  return result;
}
