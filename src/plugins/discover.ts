// Which plugins a run may load: the user's (always, when enabled) and the project's (only
// those the user trusted in exactly their present form, loaded from the copy made when they
// were trusted). A project's plugin shadows a user's of the same name. Nothing here runs a
// plugin's code.
import { realpath } from "node:fs/promises";
import { inCopy, pluginCodeAt, pluginCodeDir } from "./plugin-code.js";
import { readRegistry, registryPath } from "./registry-file.js";
import { pluginHash, pluginTrustOf } from "./trust.js";
import type { InstalledPlugin } from "./types.js";

export interface DiscoveredPlugins {
  /** Enabled, and trusted where that is needed: to be loaded, project ones first. */
  load: InstalledPlugin[];
  /** Enabled project plugins the user has not trusted in their present form (with their hash, and why). */
  untrusted: (InstalledPlugin & { hash: string; reason: string })[];
  disabled: InstalledPlugin[];
  /** Registry entries that could not be read, a missing folder, a package too big to hash. */
  problems: { name?: string; message: string }[];
}

export interface DiscoverPluginsOptions {
  home: string;
  /** The workspace's real path. */
  workspace: string;
}

export async function discoverPlugins(options: DiscoverPluginsOptions): Promise<DiscoveredPlugins> {
  const found: DiscoveredPlugins = { load: [], untrusted: [], disabled: [], problems: [] };
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
      if (scope === "user") {
        found.load.push(plugin);
        continue;
      }
      try {
        const hash = await pluginHash(root);
        const trust = await pluginTrustOf(options.home, options.workspace, plugin.name, hash);
        if ("untrusted" in trust) found.untrusted.push({ ...plugin, hash, reason: trust.untrusted });
        else {
          const dir = await pluginCodeAt(options.home, trust.code);
          if (dir) found.load.push({ ...plugin, code: { dir, root: inCopy(dir, root) } });
          else
            found.untrusted.push({
              ...plugin,
              hash,
              reason: `the copy of its code made when you trusted it (${pluginCodeDir(options.home, trust.code)}) is gone`,
            });
        }
      } catch (error) {
        found.problems.push({ name: plugin.name, message: (error as Error).message });
      }
    }
  }
  return found;
}
