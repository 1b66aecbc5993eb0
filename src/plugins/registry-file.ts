// Which plugins a scope has, in one small JSON file per scope: the user's in
// $RESON_HOME/plugins/plugins.json (beside the npm prefix `reson plugin add` installs into),
// a project's in <workspace>/.reson/plugins.json (its folders relative to the workspace, so the
// file can be committed). Written atomically; a broken entry is reported, never fatal.
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { writeFileAtomic } from "../core/atomic-write.js";
import { ResonError } from "../core/errors.js";
import type { PluginScope } from "./types.js";

export const PLUGINS_FILE = "plugins.json";

export interface PluginRecord {
  name: string;
  /** What `reson plugin add` was given: "npm:<spec>" or "path:<folder>". */
  source: string;
  /** The plugin's folder: absolute once read (the project file keeps it relative). */
  root: string;
  version?: string;
  enabled: boolean;
  addedAt: string;
}

export interface RegistryRead {
  records: PluginRecord[];
  /** Entries left out, and why. */
  problems: string[];
}

/** The folder `reson plugin add` installs the user's npm plugins into (an npm prefix). */
export function userPluginsDir(home: string): string {
  return join(home, "plugins");
}

/** The registry file of a scope. */
export function registryPath(scope: PluginScope, where: { home: string; workspace: string }): string {
  return scope === "user"
    ? join(userPluginsDir(where.home), PLUGINS_FILE)
    : join(where.workspace, ".reson", PLUGINS_FILE);
}

function recordProblem(entry: unknown): string | undefined {
  if (typeof entry !== "object" || entry === null) return "an entry that is not an object";
  const e = entry as Record<string, unknown>;
  if (typeof e.name !== "string" || e.name === "") return "an entry without a name";
  if (typeof e.root !== "string" || e.root === "") return `"${e.name}" has no root folder`;
  if (typeof e.source !== "string") return `"${e.name}" has no source`;
  return undefined;
}

/** The file's records with absolute roots (a relative root is taken from `base`); none when absent. */
export async function readRegistry(file: string, base = dirname(file)): Promise<RegistryRead> {
  let text: string;
  try {
    // Read at every run's start, usually absent: synchronously, as a thread-pool trip costs more.
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { records: [], problems: [] };
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ResonError("config_invalid", `${file} is not JSON (${(error as Error).message}).`, {
      hint: "Fix it, or delete it and add the plugins again with `reson plugin add`.",
      details: { file },
    });
  }
  const list = (parsed as { plugins?: unknown } | null)?.plugins;
  if (!Array.isArray(list))
    throw new ResonError("config_invalid", `${file} has no "plugins" list.`, {
      hint: 'It holds {"plugins": [...]}; delete it and add the plugins again with `reson plugin add`.',
      details: { file },
    });
  const read: RegistryRead = { records: [], problems: [] };
  for (const entry of list) {
    const problem = recordProblem(entry);
    if (problem) {
      read.problems.push(`${file}: ${problem} (left out)`);
      continue;
    }
    const e = entry as PluginRecord;
    read.records.push({
      name: e.name,
      source: e.source,
      root: isAbsolute(e.root) ? e.root : resolve(base, e.root),
      ...(typeof e.version === "string" ? { version: e.version } : {}),
      enabled: e.enabled !== false,
      addedAt: typeof e.addedAt === "string" ? e.addedAt : "",
    });
  }
  return read;
}

/** Replaces the file with these records; roots under `base` are written relative to it. */
export async function writeRegistry(
  file: string,
  records: readonly PluginRecord[],
  options: { relativeTo?: string } = {},
): Promise<void> {
  const plugins = records.map((record) => {
    const base = options.relativeTo;
    const rel = base ? relative(base, record.root) : undefined;
    const root = rel !== undefined && !rel.startsWith("..") && !isAbsolute(rel) ? rel || "." : record.root;
    return { ...record, root };
  });
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, `${JSON.stringify({ plugins }, null, 2)}\n`);
}
