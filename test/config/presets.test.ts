// Presets: the built-in agent types, changed field by field and extended by the user's and
// then the project's presets.json, with errors that name the file and the field.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUILTIN_PRESETS, loadPresets, pickPreset } from "../../src/config/index.js";
import { type TempDir, tempDir } from "../support/cli.js";

describe("presets", () => {
  let home: TempDir;
  let ws: TempDir;
  beforeEach(() => {
    home = tempDir();
    ws = tempDir();
  });
  afterEach(() => {
    home.remove();
    ws.remove();
  });

  it("has the built-in agent types, the read-only ones without write tools", async () => {
    const presets = await loadPresets({ home: home.path, workspace: ws.path });
    expect([...presets.keys()]).toEqual(["default", "explore", "plan", "analyst", "evaluate"]);
    for (const name of ["explore", "plan", "analyst", "evaluate"]) {
      const preset = presets.get(name)!;
      expect(preset.readOnly).toBe(true);
      expect(preset.tools).not.toContain("write_file");
      expect(preset.tools).not.toContain("edit_file");
      expect(preset.tools).not.toContain("subagent");
    }
    expect(presets.get("default")).toEqual(BUILTIN_PRESETS.default);
  });

  it("lets the user change a field and the project add a preset, project last", async () => {
    writeFileSync(
      join(home.path, "presets.json"),
      JSON.stringify({
        explore: { model: "small-model" },
        reviewer: { description: "mine", readOnly: true },
      }),
    );
    mkdirSync(join(ws.path, ".reson"));
    writeFileSync(
      join(ws.path, ".reson", "presets.json"),
      JSON.stringify({ reviewer: { instructions: "Review the diff.", tools: ["read_file", "grep"] } }),
    );
    const presets = await loadPresets({ home: home.path, workspace: ws.path });
    expect(presets.get("explore")).toMatchObject({
      model: "small-model",
      readOnly: true,
      tools: BUILTIN_PRESETS.explore!.tools,
      source: join(home.path, "presets.json"),
    });
    expect(presets.get("reviewer")).toMatchObject({
      description: "mine",
      readOnly: true,
      instructions: "Review the diff.",
      tools: ["read_file", "grep"],
      source: join(ws.path, ".reson", "presets.json"),
    });
  });

  it("names the file and the field of a bad preset, and lists the presets for an unknown name", async () => {
    writeFileSync(
      join(home.path, "presets.json"),
      JSON.stringify({ explore: { readOnly: "yes", colour: 1 } }),
    );
    await expect(loadPresets({ home: home.path, workspace: ws.path })).rejects.toMatchObject({
      code: "config_invalid",
      message: expect.stringContaining(`${join(home.path, "presets.json")}: explore`),
    });
    writeFileSync(join(home.path, "presets.json"), "{ not json");
    await expect(loadPresets({ home: home.path, workspace: ws.path })).rejects.toMatchObject({
      code: "config_invalid",
    });
    const presets = await loadPresets({ home: ws.path, workspace: ws.path });
    expect(() => pickPreset(presets, "nope")).toThrow(/no preset named "nope"/);
    try {
      pickPreset(presets, "nope");
    } catch (error) {
      expect((error as { hint: string }).hint).toContain("default, explore, plan, analyst, evaluate");
    }
  });
});
