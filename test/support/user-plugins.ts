// Registers plugin folders in a home's user registry as `reson plugin add <folder>` does: a
// folder outside $RESON_HOME is trusted as it is now (it then runs from a copy of it).
import { realpathSync } from "node:fs";
import { registryPath, trustRegisteredPlugin, writeRegistry } from "../../src/plugins/index.js";

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
    }).catch(() => {
      // One that cannot be copied (it does not parse) is left untrusted, as `add` leaves it.
    });
}
