// Finds skills on disk: the user's folders ($RESON_HOME/skills, ~/.agents/skills) and the
// project's (.reson/skills, .agents/skills, .claude/skills in every folder from the
// workspace up to the git root). A broken skill is a warning, never a failure of the rest.
import { realpathSync, type Stats, statSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { throwIfAborted } from "../core/abort.js";
import { parseSkill } from "./parse-skill.js";
import type { CoreSkill, DiscoveredSkills, DiscoverSkillsOptions, Skill, SkillSource } from "./types.js";

/** Inside the project, each folder from the workspace to the git root is searched for these. */
export const PROJECT_SKILL_FOLDERS = [".reson/skills", ".agents/skills", ".claude/skills"] as const;

const SKILL_FILES = ["SKILL.md", "skill.md"];
const SKIPPED_DIRS = new Set([".git", "node_modules"]);
/** How deep below a skills folder a skill may be nested, and how many folders are visited. */
const MAX_DEPTH = 4;
const MAX_DIRS = 2000;
/** Files listed per skill; the rest are left out of the listing. */
const MAX_SKILL_FILES = 200;

interface SkillsFolder {
  path: string;
  source: SkillSource;
  plugin?: string;
}

export async function discoverSkills(options: DiscoverSkillsOptions): Promise<DiscoveredSkills> {
  const { signal } = options;
  const warnings: string[] = [];
  // Highest precedence first: project folders nearest the workspace, then the user's.
  const folders = dedupe([
    ...projectFolders(options.workspaceRoot),
    { path: join(options.home, "skills"), source: "user" as const },
    { path: join(options.userHome, ".agents", "skills"), source: "user" as const },
    ...(options.pluginFolders ?? []).map((folder) => ({ ...folder, source: "plugin" as const })),
  ]);
  const byName = new Map<string, Skill>();
  let core: CoreSkill | undefined;
  const present = folders.map((folder) => isDirectory(folder.path));
  for (const [index, folder] of folders.entries()) {
    throwIfAborted(signal);
    if (!present[index]) continue;
    // A plugin's skills are offered, never put in every system prompt.
    if (folder.source !== "plugin") core ??= await readCore(folder.path, warnings);
    for (const skill of await scanFolder(folder, warnings, signal)) {
      const kept = byName.get(skill.name);
      if (!kept) {
        byName.set(skill.name, skill);
        continue;
      }
      // Project over user over plugin is the intended override; a clash within one is a mistake.
      if (kept.source === skill.source) {
        warnings.push(
          `${skill.file}: skipped: a skill named "${skill.name}" was already found at ${kept.file}`,
        );
      }
    }
  }
  const skills = [...byName.values()].sort((a, b) => compareNames(a.name, b.name));
  return core ? { skills, core, warnings } : { skills, warnings };
}

export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The project's skills folders, nearest first: the workspace up to the git root, or just the workspace. */
function projectFolders(workspaceRoot: string): SkillsFolder[] {
  let start: string;
  try {
    start = realpathSync.native(resolve(workspaceRoot));
  } catch {
    start = resolve(workspaceRoot);
  }
  const upwards = [start];
  for (let dir = start; dirname(dir) !== dir; dir = dirname(dir)) upwards.push(dirname(dir));
  // The nearest .git ends the chain.
  const gitAt = upwards.findIndex((dir) => exists(join(dir, ".git")));
  const dirs = gitAt >= 0 ? upwards.slice(0, gitAt + 1) : [start];
  return dirs.flatMap((base) =>
    PROJECT_SKILL_FOLDERS.map((folder) => ({ path: join(base, folder), source: "project" as const })),
  );
}

/** The same folder reached twice (the workspace is the home folder) is searched once, at its first place. */
function dedupe(folders: SkillsFolder[]): SkillsFolder[] {
  const seen = new Set<string>();
  return folders.filter((folder) => {
    const key = resolve(folder.path);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

async function readCore(folder: string, warnings: string[]): Promise<CoreSkill | undefined> {
  const path = join(folder, "core.md");
  if (!isFile(path)) return undefined;
  try {
    return { path, text: await readFile(path, "utf8") };
  } catch (error) {
    warnings.push(`${path}: could not be read (${describe(error)})`);
    return undefined;
  }
}

/** Every skill below one skills folder; a folder holding SKILL.md is a skill and is not descended into. */
async function scanFolder(folder: SkillsFolder, warnings: string[], signal?: AbortSignal): Promise<Skill[]> {
  const found: Skill[] = [];
  let visited = 0;
  const visit = async (dir: string, depth: number): Promise<void> => {
    throwIfAborted(signal);
    visited += 1;
    if (visited > MAX_DIRS) return;
    for (const name of await childDirs(dir)) {
      const child = join(dir, name);
      const file = await skillFile(child);
      if (file) {
        const skill = await loadSkill(child, file, folder.source, warnings);
        if (skill && folder.plugin !== undefined) skill.plugin = folder.plugin;
        if (skill) found.push(skill);
      } else if (depth < MAX_DEPTH) {
        await visit(child, depth + 1);
      }
    }
  };
  await visit(folder.path, 1);
  if (visited > MAX_DIRS) {
    warnings.push(`${folder.path}: stopped looking after ${MAX_DIRS} folders; some skills may be missing`);
  }
  return found.sort((a, b) => compareNames(a.file, b.file));
}

async function loadSkill(
  folder: string,
  file: string,
  source: SkillSource,
  warnings: string[],
): Promise<Skill | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    warnings.push(`${file}: skipped: could not be read (${describe(error)})`);
    return undefined;
  }
  const files = await listFiles(folder, file);
  const parsed = parseSkill({ folder, file, text, source, files });
  for (const problem of parsed.problems) warnings.push(`${file}: ${problem}`);
  return parsed.skill;
}

async function skillFile(dir: string): Promise<string | undefined> {
  for (const name of SKILL_FILES) {
    const path = join(dir, name);
    if (isFile(path)) return path;
  }
  return undefined;
}

/** The folder's files other than SKILL.md, relative with "/" separators, sorted, bounded. */
async function listFiles(folder: string, skillMd: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => compareNames(a.name, b.name));
    for (const entry of entries) {
      if (out.length >= MAX_SKILL_FILES) return;
      const path = join(dir, entry.name);
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(path))) {
        if (!SKIPPED_DIRS.has(entry.name)) await walk(path, rel);
      } else if (path !== skillMd) {
        out.push(rel);
      }
    }
  };
  await walk(folder, "");
  return out.sort(compareNames);
}

/** Subfolder names (symlinks to folders included), sorted; hidden folders and node_modules skipped. */
async function childDirs(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const names: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith(".") || SKIPPED_DIRS.has(entry.name)) continue;
    if (entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(join(dir, entry.name)))) {
      names.push(entry.name);
    }
  }
  return names.sort(compareNames);
}

/**
 * What is at `path` (links followed), or undefined when nothing is or it cannot be read. Asked of
 * a handful of folders at every run's start, most of them absent: synchronously, as a trip
 * through the thread pool costs more than the stat itself.
 */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined; // unreadable: as if absent
  }
}

const exists = (path: string) => statOf(path) !== undefined;
const isDirectory = (path: string) => statOf(path)?.isDirectory() ?? false;
const isFile = (path: string) => statOf(path)?.isFile() ?? false;

function describe(error: unknown): string {
  if (error instanceof Error) return (error as NodeJS.ErrnoException).code ?? error.message;
  return String(error);
}
