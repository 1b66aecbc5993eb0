// What `reson plugin list` shows: every registered plugin of both scopes with what a run would
// do with it (load it, or not and why), from the same discovery a run uses, and the plugins a
// run would load loaded as a run loads them: one whose code fails says so, and why.

import { join, relative, sep } from "node:path";
import { toResonError } from "../core/errors.js";
import { namedList } from "../core/named-list.js";
import { type DiscoveredPlugins, discoverPlugins } from "./discover.js";
import { type PluginPlaces, pluginNeedsTrust } from "./install.js";
import { changedSinceCopied } from "./plugin-code.js";
import { readRegistry, registryPath } from "./registry-file.js";
import { loadDiscovered } from "./run-plugins.js";
import { isPluginTrusted, pluginHash, trustKey } from "./trust.js";
import type { PluginScope } from "./types.js";

/** "fails": a run would try it and leave it out (its code or manifest fails to load). */
export type PluginStatus = "loads" | "fails" | "disabled" | "untrusted" | "shadowed" | "broken";

export interface ListedPlugin {
  name: string;
  scope: PluginScope;
  version?: string;
  source: string;
  root: string;
  enabled: boolean;
  /** Plugins that load only once trusted (a project's, a user's folder outside $RESON_HOME): trusted in their present form. */
  trusted?: boolean;
  status: PluginStatus;
  /** Why it does not load, when it does not. */
  problem?: string;
}

export interface PluginList {
  plugins: ListedPlugin[];
  /** Registry entries or files that could not be read at all. */
  problems: string[];
}

export async function listPlugins(places: PluginPlaces): Promise<PluginList> {
  const found = await discoverPlugins(places);
  const list: PluginList = { plugins: [], problems: [] };
  const problemOf = new Map<string, string>();
  for (const problem of found.problems) {
    if (problem.name) problemOf.set(problem.name, problem.message);
    else list.problems.push(problem.message);
  }
  const status = new Map<string, { status: PluginStatus; trusted?: boolean }>();
  const failures = await loadFailures(found, places);
  for (const p of found.load) {
    const failure = failures.get(p.name);
    // A trusted copy whose originals changed still loads, as trusted: the user is told.
    const problem = failure ?? (p.code ? await changedDependencies(p.name, p.code) : undefined);
    if (problem) problemOf.set(p.name, problem);
    status.set(`${p.scope}:${p.name}`, {
      status: failure ? "fails" : "loads",
      ...(p.code ? { trusted: true } : {}),
    });
  }
  for (const p of found.untrusted) {
    problemOf.set(p.name, p.reason);
    status.set(`${p.scope}:${p.name}`, { status: "untrusted", trusted: false });
  }
  for (const p of found.disabled) status.set(`${p.scope}:${p.name}`, { status: "disabled" });
  const projectNames = new Set<string>();
  for (const scope of ["project", "user"] as const) {
    const read = await readRegistry(
      registryPath(scope, places),
      scope === "project" ? places.workspace : undefined,
    ).catch(() => ({ records: [], problems: [] }));
    for (const record of read.records) {
      const known = status.get(`${scope}:${record.name}`);
      const shadowed = scope === "user" && projectNames.has(record.name);
      if (scope === "project") projectNames.add(record.name);
      const problem = shadowed ? undefined : problemOf.get(record.name);
      const row: ListedPlugin = {
        name: record.name,
        scope,
        ...(record.version ? { version: record.version } : {}),
        source: record.source,
        root: record.root,
        enabled: record.enabled,
        status: shadowed ? "shadowed" : (known?.status ?? "broken"),
      };
      if (known?.trusted !== undefined) row.trusted = known.trusted;
      else if (await pluginNeedsTrust(record, scope, places))
        row.trusted = await trustedNow(places, scope, record.name, record.root);
      if (shadowed) row.problem = `A project plugin of the same name is used instead.`;
      else if (problem) row.problem = problem;
      list.plugins.push(row);
    }
  }
  return list;
}

/** Why each plugin a run would load fails to, by name: loaded exactly as a run loads them. */
async function loadFailures(found: DiscoveredPlugins, places: PluginPlaces): Promise<Map<string, string>> {
  const failures = new Map<string, string>();
  if (found.load.length === 0) return failures;
  try {
    const loaded = await loadDiscovered(found, places);
    const names = new Set(loaded.plugins.map((plugin) => plugin.name));
    for (const error of loaded.errors)
      if (!names.has(error.plugin) && !failures.has(error.plugin)) failures.set(error.plugin, error.message);
  } catch (error) {
    // Nothing loads (a configuration that does not), and a run would say the same.
    for (const plugin of found.load) failures.set(plugin.name, toResonError(error).message);
  }
  return failures;
}

/** What a trusted copy runs that has changed where it came from, in a sentence; undefined when nothing did. */
async function changedDependencies(
  name: string,
  code: { dir: string; root: string },
): Promise<string | undefined> {
  const root = join(sep, relative(code.dir, code.root));
  const changed = await changedSinceCopied(code.dir, root);
  if (changed.length === 0) return undefined;
  return `runs the copy you trusted; ${changed.length === 1 ? "a file" : `${changed.length} files`} of what it imports changed where it lies since (${namedList(changed, 3)}): look at the change, then \`reson plugin trust ${name}\` takes it`;
}

/** Trust of a plugin discovery did not hash (a disabled one): false when it cannot be hashed. */
async function trustedNow(
  places: PluginPlaces,
  scope: PluginScope,
  name: string,
  root: string,
): Promise<boolean> {
  try {
    const key = trustKey(scope, places.workspace);
    return await isPluginTrusted(places.home, key, name, await pluginHash(root));
  } catch {
    return false;
  }
}
