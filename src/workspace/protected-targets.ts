// The protected list made concrete for one workspace: its entries of the kinds the policy
// enforces, as absolute paths, plus what git trusts beyond `.git` (git-trusted.ts) wherever it
// lands in what commands can write. Both enforcers take their paths from here: the workspace's
// file tools (refusal) and the sandbox (read-only mounts and placeholders).
import { lstatSync, readdirSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { isWithin } from "../core/path-within.js";
import { gitTrustedPaths } from "./git-trusted.js";
import { type NestedRepositories, nestedInstallFolders, nestedRepositories } from "./nested-repositories.js";
import type { WorkspacePolicy } from "./policy.js";
import {
  coversPath,
  entriesOfKinds,
  installFolderEntries,
  type ProtectedEntry,
  protectedEntryOf,
} from "./protected-list.js";

export interface ProtectedTarget {
  /** Absolute, as named (links not resolved). */
  path: string;
  /** Relative to the workspace root ("/"-separated), when inside it. */
  relative?: string;
  entry: ProtectedEntry;
}

/** What a path git trusts counts as: part of git, changed only by the user. */
function gitEntry(path: string): ProtectedEntry {
  return { path, kind: "executes", edits: "never", reader: "git runs or follows it, as its config says" };
}

function toRelative(root: string, path: string): string | undefined {
  if (!isWithin(path, root)) return undefined;
  return relative(root, path).split(sep).join("/") || ".";
}

function namesIn(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

/**
 * The root-relative paths an entry stands for: its path, or for a pattern the names it lists
 * and those of the files it matches now, in the root or its `.config` (where mise looks).
 */
function pathsOf(entry: ProtectedEntry, root: string): string[] {
  // An entry that matters only beside a file: no placeholder without it (one there is kept).
  if (
    entry.whereFileExists !== undefined &&
    !exists(join(root, entry.whereFileExists)) &&
    !exists(join(root, entry.path))
  )
    return [];
  if (!entry.pattern)
    return entry.whereFolderExists === undefined || isFolder(join(root, entry.whereFolderExists))
      ? [entry.path]
      : [];
  const present = [
    ...namesIn(root),
    ...namesIn(join(root, ".config")).map((name) => `.config/${name}`),
  ].filter((path) => entry.pattern?.test(path));
  const hasConfig = isFolder(join(root, ".config"));
  return [...new Set([...(entry.named ?? []).filter((path) => hasConfig || !inConfig(path)), ...present])];
}

/**
 * A name a pattern entry lists in the workspace's `.config`, which many tools share (dotnet's
 * tool manifest, nextest): kept only where the folder exists, as the list's own `.config` entries
 * are (`whereFolderExists`), so that commands are not given a read-only empty `.config` in its
 * place (a protected path that does not exist stands on a placeholder at its topmost missing
 * folder). Where there is none, a config a command makes there is new, and mise loads a new
 * config only once you trust its path.
 */
function inConfig(path: string): boolean {
  return path.startsWith(".config/");
}

function isFolder(path: string): boolean {
  try {
    // Without an error for a missing path: a check per entry per repository, most of them missing.
    return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** The enforced entries of `policy` and the paths git trusts, inside the root or an extra writable folder. */
export function protectedTargets(policy: WorkspacePolicy): ProtectedTarget[] {
  const targets: ProtectedTarget[] = entriesOfKinds(policy.protectedKinds, policy.protected).flatMap(
    (entry) =>
      pathsOf(entry, policy.root).map((path) => ({
        path: join(policy.root, path),
        relative: path,
        entry,
      })),
  );
  // One look below the root for this call, when no holder shares one across calls.
  const holder = policy.nested ?? {};
  targets.push(...installsBelow(policy, targets, holder));
  // What git trusts beyond its folder extends the list's `.git` entry (a custom list may have none).
  if (!targets.some((target) => target.relative === ".git")) return targets;
  const writable = [policy.root, ...policy.writeExtra];
  const add = (path: string) => {
    if (!writable.some((dir) => isWithin(path, dir))) return;
    const inside = toRelative(policy.root, path);
    if (inside === ".") return; // a repository whose git folder is the workspace itself: nothing to single out
    if (inside !== undefined && targets.some((target) => coversPath(target.relative ?? "", inside))) return;
    targets.push({ path, ...(inside ? { relative: inside } : {}), entry: gitEntry(inside ?? path) });
  };
  // The user's and the system's config files are read once for every repository.
  const trust = { home: policy.home, parsed: new Map() };
  for (const path of gitTrustedPaths(policy.root, trust)) add(path);
  // The repositories below the root: each one's git folder, what its config names, and the
  // list's other entries that are there (a hook manager's config, mise's, an editor's tasks).
  for (const dotGit of nestedRepositories(policy.root, holder)) {
    add(dotGit);
    for (const path of gitTrustedPaths(dirname(dotGit), trust)) add(path);
    targets.push(...presentIn(policy, dirname(dotGit), targets));
  }
  return targets;
}

function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/**
 * The enforced entries of `policy` as they stand in the repository `repo` below the root: only
 * those there now. The user works in such a repository as in the root (commits there, opens it
 * in an editor, enters it with mise), so what is there is kept as at the root; a placeholder
 * for each missing one, in every repository, would cost every command a mount apiece.
 */
function presentIn(
  policy: WorkspacePolicy,
  repo: string,
  known: readonly ProtectedTarget[],
): ProtectedTarget[] {
  const base = toRelative(policy.root, repo);
  if (base === undefined || base === ".") return [];
  const found: ProtectedTarget[] = [];
  for (const entry of entriesOfKinds(policy.protectedKinds, policy.protected)) {
    if (entry.path === ".git") continue;
    for (const path of pathsOf(entry, repo)) {
      const abs = `${repo}/${path}`;
      if (!exists(abs)) continue;
      const inside = `${base}/${path}`;
      if (known.some((target) => coversPath(target.relative ?? "", inside))) continue;
      found.push({ path: abs, relative: inside, entry: { ...entry, path: inside } });
    }
  }
  return found;
}

/**
 * The folders of installed packages below the root (a monorepo's packages/app/node_modules),
 * kept as the root's are when the policy enforces `installs` (and its list has such entries):
 * those there now, no placeholders.
 */
function installsBelow(
  policy: WorkspacePolicy,
  known: readonly ProtectedTarget[],
  holder: NestedRepositories,
): ProtectedTarget[] {
  if (!policy.protectedKinds.includes("installs")) return [];
  if (!policy.protected.some((entry) => entry.kind === "installs")) return [];
  const found: ProtectedTarget[] = [];
  const covered = (path: string) =>
    [known, found].some((targets) => targets.some((target) => coversPath(target.relative ?? "", path)));
  for (const entry of foundInstallEntries(policy.root, holder)) {
    for (const path of pathsOf(entry, policy.root)) {
      const abs = join(policy.root, path);
      if (exists(abs) && !covered(path)) found.push({ path: abs, relative: path, entry });
    }
  }
  return found;
}

/** The `installs` entries of the install folders the look below the root found (root-relative). */
function foundInstallEntries(root: string, holder: NestedRepositories): ProtectedEntry[] {
  return nestedInstallFolders(root, holder).flatMap((folder) => {
    const base = toRelative(root, dirname(folder));
    if (base === undefined) return [];
    return installFolderEntries(base === "." ? "" : `${base}/`, basename(folder));
  });
}

/** The target covering the root-relative `path`, if any. */
export function targetCovering(
  targets: readonly ProtectedTarget[],
  path: string,
): ProtectedTarget | undefined {
  return targets.find((target) => target.relative !== undefined && coversPath(target.relative, path));
}

/** Whether the root-relative `path` is an ancestor of a target (renaming it would move one). */
export function holdsTarget(targets: readonly ProtectedTarget[], path: string): boolean {
  if (path === ".") return true;
  return targets.some((target) => target.relative?.startsWith(`${path}/`));
}

/**
 * The protected list's entry covering the root-relative `path` as part of a repository below
 * the root (its own `lefthook.yml`, `.vscode`, `mise.toml`…), looked up as at that repository's
 * root, or as part of an install folder the look found (a monorepo package's node_modules, a
 * virtual environment of any name); for the permission guard, which asks before a file tool
 * writes one (an `installs` entry only once the run is untrusted).
 */
export function nestedProtectedEntry(
  root: string,
  holder: NestedRepositories,
  path: string,
): ProtectedEntry | undefined {
  for (const dotGit of nestedRepositories(root, holder)) {
    const repo = toRelative(root, dirname(dotGit));
    if (repo === undefined || repo === "." || !path.startsWith(`${repo}/`)) continue;
    const entry = protectedEntryOf(path.slice(repo.length + 1));
    if (entry) return entry;
  }
  return foundInstallEntries(root, holder).find((entry) => coversPath(entry.path, path));
}
