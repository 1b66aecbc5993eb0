// Which plugins a run may load: the project's and the user's folder plugins only those the user
// trusted in exactly their present form, loaded from the copy made when they were trusted; the
// user's installed into $RESON_HOME (npm packages, tarballs) as they are. A project's plugin
// shadows a user's of the same name. Nothing here runs a plugin's code.
import { realpath } from "node:fs/promises";
import { namedList } from "../core/named-list.js";
import { inCopy, ownFilesChanged, pluginCodeAt, pluginCodeDir } from "./plugin-code.js";
import { readRegistry, registryPath } from "./registry-file.js";
import { needsTrust, pluginHash, pluginTrustOf, trustKey } from "./trust.js";
import type { InstalledPlugin } from "./types.js";

/** A plugin that loads only once trusted and is not, in its present form: with its hash, and why. */
export type UntrustedPlugin = InstalledPlugin & { hash: string; reason: string };

export interface DiscoveredPlugins {
  /** Enabled, and trusted where that is needed: to be loaded, project ones first. */
  load: InstalledPlugin[];
  /** Enabled plugins that need trust (see needsTrust) the user has not given to their present form. */
  untrusted: UntrustedPlugin[];
  disabled: InstalledPlugin[];
  /** Registry entries that could not be read, a missing folder, a package too big to hash. */
  problems: { name?: string; message: string }[];
}

export interface DiscoverPluginsOptions {
  home: string;
  /** The workspace's real path. */
  workspace: string;
}

/** At most this many changed files are named in why a plugin is not trusted. */
const NAMED_CHANGES = 5;

/** Why the plugin's files are not the ones trusted, naming what changed when the trusted copy is there. */
async function changedReason(home: string, plugin: InstalledPlugin, reason: string, key?: string) {
  const dir = key ? await pluginCodeAt(home, key) : undefined;
  if (!dir) return reason;
  const changed = await ownFilesChanged(inCopy(dir, plugin.root), plugin.root).catch(() => []);
  if (changed.length === 0) return reason;
  return `${reason}: ${namedList(changed, NAMED_CHANGES)}`;
}

/** Where the plugin loads from if it is trusted in its present form, else it as untrusted. */
async function trustedForm(
  plugin: InstalledPlugin,
  options: DiscoverPluginsOptions,
): Promise<InstalledPlugin | UntrustedPlugin> {
  const hash = await pluginHash(plugin.root);
  const key = trustKey(plugin.scope, options.workspace);
  const trust = await pluginTrustOf(options.home, key, plugin.name, hash);
  if ("untrusted" in trust)
    return {
      ...plugin,
      hash,
      reason: await changedReason(options.home, plugin, trust.untrusted, trust.trustedCode),
    };
  const dir = await pluginCodeAt(options.home, trust.code);
  if (dir) return { ...plugin, code: { dir, root: inCopy(dir, plugin.root) } };
  return {
    ...plugin,
    hash,
    reason: `the copy of its code made when you trusted it (${pluginCodeDir(options.home, trust.code)}) is gone`,
  };
}

export async function discoverPlugins(options: DiscoverPluginsOptions): Promise<DiscoveredPlugins> {
  const found: DiscoveredPlugins = { load: [], untrusted: [], disabled: [], problems: [] };
  // Looked up at the first plugin only: a run with none touches no file it does not need.
  let realHome: string | undefined;
  const seen = new Set<string>();
  for (const scope of ["project", "user"] as const) {
    const file = registryPath(scope, options);
    let read: Awaited<ReturnType<typeof readRegistry>>;
    try {
      read = await readRegistry(file, scope === "project" ? options.workspace : undefined);
    } catch (error) {
      found.problems.push({ message: (error as Error).message });
      continue;
    }
    for (const message of read.problems) found.problems.push({ message });
    for (const record of read.records) {
      if (seen.has(record.name)) continue;
      seen.add(record.name);
      const root = await realpath(record.root).catch(() => undefined);
      if (!root) {
        found.problems.push({
          name: record.name,
          message: `The plugin "${record.name}" (${scope}) is registered at ${record.root}, which does not exist; remove it with \`reson plugin remove ${record.name}\` or add it again.`,
        });
        continue;
      }
      const plugin: InstalledPlugin = {
        name: record.name,
        scope,
        root,
        source: record.source,
        enabled: record.enabled,
        ...(record.version ? { version: record.version } : {}),
      };
      if (!plugin.enabled) {
        found.disabled.push(plugin);
        continue;
      }
      realHome ??= await realpath(options.home).catch(() => options.home);
      if (!needsTrust(scope, root, realHome)) {
        found.load.push(plugin);
        continue;
      }
      try {
        const form = await trustedForm(plugin, options);
        if ("reason" in form) found.untrusted.push(form);
        else found.load.push(form);
      } catch (error) {
        found.problems.push({ name: plugin.name, message: (error as Error).message });
      }
    }
  }
  return found;
}
