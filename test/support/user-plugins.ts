// Plugins in a test's home: folders registered in the user registry as `reson plugin add
// <folder>` does (a folder outside $RESON_HOME is trusted as it is now, and runs from a copy of
// it), the copies there are, and what `reson plugin list` says.
import { existsSync, readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import {
  type PluginList,
  registryPath,
  trustRegisteredPlugin,
  writeRegistry,
} from "../../src/plugins/index.js";
import type { CliResult } from "./cli.js";

export async function addUserPlugins(
  home: string,
  plugins: { name: string; root: string; source?: string; version?: string }[],
): Promise<void> {
  // The workspace does not matter to the user's registry or trust.
  const places = { home, workspace: home };
  await writeRegistry(
    registryPath("user", places),
    plugins.map((plugin) => ({
      name: plugin.name,
      root: realpathSync(plugin.root),
      source: plugin.source ?? `path:${plugin.root}`,
      enabled: true,
      addedAt: new Date().toISOString(),
      ...(plugin.version ? { version: plugin.version } : {}),
    })),
  );
  for (const plugin of plugins)
    await trustRegisteredPlugin({
      ...places,
      scope: "user",
      name: plugin.name,
      signal: AbortSignal.timeout(30_000),
    });
}

/** The copies of trusted plugins' code in a home ($RESON_HOME/plugin-code), by key. */
export function pluginCopies(home: string): string[] {
  const dir = join(home, "plugin-code");
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** `reson plugin list --json`, read with `reson` (a CLI run in the test's places). */
export async function listedPlugins(reson: (args: string[]) => Promise<CliResult>): Promise<PluginList> {
  const result = await reson(["plugin", "list", "--json"]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as PluginList;
}
