import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readPluginManifest } from "../../src/plugins/index.js";

function pluginFolder(manifest: unknown, files: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), "reson-plugin-"));
  writeFileSync(
    join(root, "plugin.json"),
    typeof manifest === "string" ? manifest : JSON.stringify(manifest),
  );
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return realpathSync(root);
}

describe("readPluginManifest", () => {
  it("reads the name, metadata, reson's entry, skills and mcp.json", async () => {
    const root = pluginFolder(
      {
        $schema: "https://agentplugins.dev/schema/1.0.0/plugin.json",
        name: "lint-helper",
        version: "1.2.0",
        description: "Lints",
        extensions: { "dev.reson": { entry: "./dev.reson/index.js" }, "com.other": { x: 1 } },
      },
      {
        "dev.reson/index.js": "export default () => {}",
        "skills/lint/SKILL.md": "---\nname: lint\n---\n",
        "mcp.json": "{}",
      },
    );
    const manifest = await readPluginManifest(root);
    expect(manifest).toMatchObject({
      name: "lint-helper",
      version: "1.2.0",
      description: "Lints",
      root,
      entry: join(root, "dev.reson/index.js"),
      skillsDir: join(root, "skills"),
      mcpFile: join(root, "mcp.json"),
      warnings: [],
    });
  });

  it("refuses a bad name, a missing plugin.json and bad JSON with plugin_invalid", async () => {
    await expect(readPluginManifest(pluginFolder({ name: "Bad Name" }))).rejects.toMatchObject({
      code: "plugin_invalid",
    });
    await expect(readPluginManifest(pluginFolder("{not json"))).rejects.toMatchObject({
      code: "plugin_invalid",
    });
    await expect(readPluginManifest(mkdtempSync(join(tmpdir(), "reson-empty-")))).rejects.toThrow(
      /no plugin\.json/,
    );
  });

  it("refuses an entry outside the plugin's folder, also through a symlink", async () => {
    await expect(
      readPluginManifest(pluginFolder({ name: "p", extensions: { "dev.reson": { entry: "../evil.js" } } })),
    ).rejects.toThrow(/outside the plugin's folder|does not exist/);
    const outside = mkdtempSync(join(tmpdir(), "reson-outside-"));
    writeFileSync(join(outside, "evil.js"), "export default () => {}");
    const root = pluginFolder({ name: "p", extensions: { "dev.reson": { entry: "./link.js" } } });
    symlinkSync(join(outside, "evil.js"), join(root, "link.js"));
    await expect(readPluginManifest(root)).rejects.toThrow(/outside the plugin's folder/);
  });

  it("warns about keys the format does not define, without refusing the plugin", async () => {
    const manifest = await readPluginManifest(pluginFolder({ name: "p", hooks: {} }));
    expect(manifest.warnings).toEqual([expect.stringContaining('"hooks"')]);
  });
});
