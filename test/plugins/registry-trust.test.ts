import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  isPluginTrusted,
  pluginHash,
  readRegistry,
  registryPath,
  trustPlugin,
  trustRegisteredPlugin,
  writeRegistry,
} from "../../src/plugins/index.js";

const temp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

describe("plugin registry files", () => {
  it("keeps a project's roots relative to the workspace and reads them back absolute", async () => {
    const workspace = temp("reson-ws-");
    const file = registryPath("project", { home: "/unused", workspace });
    const root = join(workspace, "tools", "my-plugin");
    await writeRegistry(
      file,
      [{ name: "my-plugin", source: "path:tools/my-plugin", root, enabled: true, addedAt: "t" }],
      {
        relativeTo: workspace,
      },
    );
    expect(JSON.parse(readFileSync(file, "utf8")).plugins[0].root).toBe("tools/my-plugin");
    const read = await readRegistry(file, workspace);
    expect(read.records).toEqual([
      { name: "my-plugin", source: "path:tools/my-plugin", root, enabled: true, addedAt: "t" },
    ]);
  });

  it("reads an absent file as no plugins, and leaves out broken entries saying why", async () => {
    const home = temp("reson-home-");
    expect(await readRegistry(registryPath("user", { home, workspace: "/x" }))).toEqual({
      records: [],
      problems: [],
    });
    const file = join(home, "plugins.json");
    writeFileSync(
      file,
      JSON.stringify({ plugins: [{ name: "ok", root: "/p", source: "path:/p" }, { root: "/q" }] }),
    );
    const read = await readRegistry(file);
    expect(read.records.map((r) => r.name)).toEqual(["ok"]);
    expect(read.problems).toEqual([expect.stringContaining("without a name")]);
    writeFileSync(file, "{oops");
    await expect(readRegistry(file)).rejects.toMatchObject({ code: "config_invalid" });
  });
});

describe("plugin trust", () => {
  it("trusts the exact package once per workspace; a changed file asks again", async () => {
    const home = temp("reson-home-");
    const root = temp("reson-plugin-");
    writeFileSync(join(root, "plugin.json"), '{"name":"p"}');
    mkdirSync(join(root, "node_modules", "dep"), { recursive: true });
    writeFileSync(join(root, "node_modules", "dep", "index.js"), "1");
    const hash = await pluginHash(root);
    expect(await isPluginTrusted(home, "/ws", "p", hash)).toBe(false);
    await trustPlugin(home, "/ws", "p", { hash, code: "copy-key" });
    expect(await isPluginTrusted(home, "/ws", "p", hash)).toBe(true);
    expect(await isPluginTrusted(home, "/other", "p", hash)).toBe(false);
    expect(statSync(join(home, "plugin-trust.json")).mode & 0o777).toBe(0o600);
    // Installed dependencies do not count (they are copied when trusted); the plugin's own files do.
    writeFileSync(join(root, "node_modules", "dep", "index.js"), "2");
    expect(await pluginHash(root)).toBe(hash);
    writeFileSync(join(root, "plugin.json"), '{"name":"p","version":"2"}');
    expect(await isPluginTrusted(home, "/ws", "p", await pluginHash(root))).toBe(false);
  });
});

describe("discoverPlugins", () => {
  it("loads the user's installed plugins, a project's and a user's folder only once trusted, and reports missing folders", async () => {
    const { discoverPlugins } = await import("../../src/plugins/index.js");
    const home = temp("reson-home-");
    const workspace = temp("reson-ws-");
    const userPlugin = temp("reson-plugin-");
    writeFileSync(join(userPlugin, "plugin.json"), '{"name":"mine"}');
    const projectPlugin = join(workspace, "plugins", "proj");
    // What npm installed into $RESON_HOME/plugins: out of reach of runs' commands.
    const installed = join(home, "plugins", "node_modules", "installed");
    mkdirSync(installed, { recursive: true });
    writeFileSync(join(installed, "plugin.json"), '{"name":"installed"}');
    mkdirSync(projectPlugin, { recursive: true });
    writeFileSync(join(projectPlugin, "plugin.json"), '{"name":"proj"}');
    const record = (name: string, root: string, enabled = true) => ({
      name,
      root,
      source: `path:${root}`,
      enabled,
      addedAt: "t",
    });
    await writeRegistry(registryPath("user", { home, workspace }), [
      record("mine", userPlugin),
      record("installed", installed),
      record("off", userPlugin, false),
      record("gone", join(home, "nowhere")),
    ]);
    await writeRegistry(registryPath("project", { home, workspace }), [record("proj", projectPlugin)], {
      relativeTo: workspace,
    });
    let found = await discoverPlugins({ home, workspace });
    expect(found.load.map((p) => p.name)).toEqual(["installed"]);
    expect(found.disabled.map((p) => p.name)).toEqual(["off"]);
    expect(found.untrusted.map((p) => p.name)).toEqual(["proj", "mine"]);
    expect(found.problems).toEqual([expect.objectContaining({ name: "gone" })]);
    const signal = AbortSignal.timeout(30_000);
    await trustRegisteredPlugin({ home, workspace, scope: "project", name: "proj", signal });
    await trustRegisteredPlugin({ home, workspace, scope: "user", name: "mine", signal });
    found = await discoverPlugins({ home, workspace });
    expect(found.load.map((p) => [p.name, p.scope])).toEqual([
      ["proj", "project"],
      ["mine", "user"],
      ["installed", "user"],
    ]);
    // The user's trust holds in every workspace.
    const elsewhere = await discoverPlugins({ home, workspace: temp("reson-ws-") });
    expect(elsewhere.load.map((p) => p.name)).toEqual(["mine", "installed"]);
  });
});
