// The paths git runs or follows beyond the `.git` entry of the protected list, found from the
// repository the workspace is in: the real git folder of a `gitdir:` file (a linked worktree, a
// submodule, a bare repository beside its worktrees) and its `commondir`, the config files it
// includes, the hooks folder `core.hooksPath` names (husky's `.husky/_`, a `.githooks`), the
// programs its config names by path (core.fsmonitor, filters, diff drivers, aliases…), and the
// `.git` of every submodule. Whatever of these lies inside the workspace is protected like
// `.git` itself. Read with plain, synchronous fs: a handful of small files per command.
import { lstatSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { type GitConfigValue, parseGitConfig } from "./git-config-file.js";

export interface GitTrustOptions {
  /** The user's home folder, for ~/.gitconfig and `~/` in values. */
  home: string;
  /**
   * Config files already read and parsed, by path: one per call over many repositories (the
   * workspace's and those below it), so the user's and the system's are read once.
   */
  parsed?: Map<string, readonly GitConfigValue[] | undefined>;
  /** For XDG_CONFIG_HOME; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** How far up from the workspace a repository is looked for, and how deep includes go. */
const MAX_LEVELS = 64;
const MAX_INCLUDE_DEPTH = 5;
const MAX_CONFIG_BYTES = 1024 * 1024;

/** Keys whose value is a command git runs; `*` stands for a subsection. */
const PROGRAM_KEYS = [
  "core.fsmonitor",
  "core.sshcommand",
  "core.pager",
  "core.editor",
  "core.askpass",
  "core.alternaterefscommand",
  "sequence.editor",
  "gpg.program",
  "gpg.*.program",
  "diff.external",
  "diff.*.textconv",
  "diff.*.command",
  "difftool.*.cmd",
  "mergetool.*.cmd",
  "merge.*.driver",
  "filter.*.clean",
  "filter.*.smudge",
  "filter.*.process",
  "credential.helper",
  "credential.*.helper",
  "interactive.difffilter",
  "uploadpack.packobjectshook",
  "alias.*",
  "pager.*",
].map((key) => new RegExp(`^${key.replaceAll(".", "\\.").replaceAll("*", ".+")}$`));

const INCLUDE_KEY = /^(include|includeif\..+)\.path$/;

function kindOf(path: string): "dir" | "file" | "other" | undefined {
  try {
    const info = lstatSync(path);
    return info.isDirectory() ? "dir" : info.isFile() ? "file" : "other";
  } catch {
    return undefined;
  }
}

function readSmall(path: string): string | undefined {
  try {
    const text = readFileSync(path, "utf8");
    return text.length > MAX_CONFIG_BYTES ? undefined : text;
  } catch {
    return undefined;
  }
}

function expandHome(path: string, home: string): string {
  return path === "~" || path.startsWith("~/") ? home + path.slice(1) : path;
}

/** The folder holding the repository's `.git` (the work tree) and its git folder, from `root` up. */
function findRepository(root: string): { worktree: string; dotGit: string; gitDir: string } | undefined {
  let dir = root;
  for (let level = 0; level < MAX_LEVELS; level += 1) {
    const dotGit = join(dir, ".git");
    const kind = kindOf(dotGit);
    if (kind === "dir") return { worktree: dir, dotGit, gitDir: dotGit };
    if (kind === "file") {
      const named = /^gitdir:\s*(.+?)\s*$/m.exec(readSmall(dotGit) ?? "")?.[1];
      if (named) return { worktree: dir, dotGit, gitDir: resolve(dir, named) };
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}

/** The path a command's first word names, when it names one by path (a bare name is found on PATH). */
function programPath(command: string, base: string, home: string): string | undefined {
  const text = command.trim().replace(/^!\s*/, "");
  const first = /^(?:"([^"]*)"|'([^']*)'|(\S+))/.exec(text);
  const word = first?.[1] ?? first?.[2] ?? first?.[3];
  if (!word?.includes("/") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) return undefined;
  return resolve(base, expandHome(word, home));
}

interface ConfigWalk {
  worktree: string;
  home: string;
  found: Set<string>;
  parsed: Map<string, readonly GitConfigValue[] | undefined>;
}

function parsedConfig(file: string, walk: ConfigWalk): readonly GitConfigValue[] | undefined {
  if (walk.parsed.has(file)) return walk.parsed.get(file);
  const text = readSmall(file);
  const values = text === undefined ? undefined : parseGitConfig(text);
  walk.parsed.set(file, values);
  return values;
}

/** The paths one config file (and what it includes) names, added to `walk.found`. */
function readConfig(file: string, walk: ConfigWalk, depth: number): void {
  const values = parsedConfig(file, walk);
  if (values === undefined) return;
  for (const { name, value } of values) {
    if (value === undefined || value === "") continue;
    if (INCLUDE_KEY.test(name)) {
      const included = resolve(dirname(file), expandHome(value, walk.home));
      walk.found.add(included);
      if (depth < MAX_INCLUDE_DEPTH) readConfig(included, walk, depth + 1);
      continue;
    }
    if (name === "core.hookspath") {
      walk.found.add(resolve(walk.worktree, expandHome(value, walk.home)));
      continue;
    }
    if (name === "core.fsmonitor" && /^(true|false|yes|no|on|off|0|1)$/i.test(value)) continue;
    if (!PROGRAM_KEYS.some((key) => key.test(name))) continue;
    const program = programPath(value, walk.worktree, walk.home);
    if (program) walk.found.add(program);
  }
}

/**
 * Absolute paths git trusts for the repository holding `root` (none outside a repository):
 * git folders, config files, hooks folders and programs named by path, and submodules' `.git`.
 * Paths may not exist; the caller keeps those inside what commands can write.
 */
export function gitTrustedPaths(root: string, options: GitTrustOptions): string[] {
  const repository = findRepository(root);
  if (!repository) return [];
  const { worktree, dotGit, gitDir } = repository;
  const found = new Set<string>([dotGit, gitDir]);
  const commonName = readSmall(join(gitDir, "commondir"))?.trim();
  const commonDir = commonName ? resolve(gitDir, commonName) : gitDir;
  found.add(commonDir);
  const env = options.env ?? process.env;
  const xdg =
    env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : join(options.home, ".config");
  const walk: ConfigWalk = { worktree, home: options.home, found, parsed: options.parsed ?? new Map() };
  for (const file of [
    "/etc/gitconfig",
    join(xdg, "git", "config"),
    join(options.home, ".gitconfig"),
    join(commonDir, "config"),
    join(gitDir, "config.worktree"),
  ])
    readConfig(file, walk, 0);
  for (const { name, value } of parseGitConfig(readSmall(join(worktree, ".gitmodules")) ?? "")) {
    if (value && /^submodule\..+\.path$/.test(name)) found.add(join(resolve(worktree, value), ".git"));
  }
  return [...found];
}
