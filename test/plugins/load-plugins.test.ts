// Loading plugins through the module's surface (pluginsForRun): nothing registered costs
// nothing; CommonJS entries load; setup that hangs, late registration and unknown hooks leave
// the plugin out with its name; a plugin's config section and events reach it frozen.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pluginsForRun, registryPath, writeRegistry } from "../../src/plugins/index.js";
import { type TempDir, tempDir } from "../support/cli.js";

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

/** A plugin folder with `entryFile` holding `code`, registered at user scope. */
function plugin(name: string, entryFile: string, code: string): { name: string; root: string } {
  const root = join(home.path, "src", name);
  mkdirSync(root, { recursive: true });
  writeFileSync(
    join(root, "plugin.json"),
    JSON.stringify({ name, extensions: { "dev.reson": { entry: entryFile } } }),
  );
  writeFileSync(join(root, entryFile), code);
  return { name, root };
}

async function register(plugins: { name: string; root: string }[]): Promise<void> {
  await writeRegistry(
    registryPath("user", { home: home.path, workspace: ws.path }),
    plugins.map((p) => ({ ...p, source: `path:${p.root}`, enabled: true, addedAt: "" })),
  );
}

const load = () => pluginsForRun({ home: home.path, workspace: ws.path, env: { RESON_HOME: home.path } });

describe("loading plugins", () => {
  it("gives nothing at all when no plugin is registered", async () => {
    expect(await load()).toBeUndefined();
  });

  it("loads a CommonJS entry and hands it its own frozen config section", async () => {
    writeFileSync(
      join(home.path, "config.json"),
      JSON.stringify({ plugins: { cjs: { greeting: "Hi", nested: { deep: 1 } } } }),
    );
    await register([
      plugin(
        "cjs",
        "index.cjs",
        `module.exports = (api) => {
  let frozen = false;
  try { api.config.nested.deep = 2; } catch { frozen = true; }
  api.registerTool({
    name: "cjs_tool",
    description: "says what it got",
    parameters: { type: "object" },
    execute: () => JSON.stringify({ greeting: api.config.greeting, deep: api.config.nested.deep, frozen }),
  });
};
`,
      ),
    ]);
    const loaded = await load();
    expect(loaded?.report).toEqual({
      plugins: [{ name: "cjs", scope: "user", tools: ["cjs_tool"] }],
      errors: [],
      untrusted: [],
    });
    const [tool] = loaded!.agentOptions.tools;
    expect(tool!.readOnly).toBe(false);
    const output = await tool!.execute({}, {
      signal: new AbortController().signal,
      runId: "r",
      toolCallId: "t",
      workspace: { root: ws.path },
    } as never);
    expect(JSON.parse(output.content)).toEqual({ greeting: "Hi", deep: 1, frozen: true });
  });

  it("leaves out a plugin whose setup hangs and one that names no such hook; a late registration is ignored", async () => {
    writeFileSync(join(home.path, "config.json"), JSON.stringify({ timeouts: { pluginSetupMs: 200 } }));
    await register([
      plugin("hangs", "index.mjs", "export default () => new Promise(() => {});\n"),
      plugin(
        "late",
        "index.mjs",
        `export default (api) => {
  setTimeout(() => api.registerTool({ name: "late_tool", description: "x", parameters: { type: "object" }, execute: () => "" }), 20);
};
`,
      ),
      plugin(
        "typo",
        "index.mjs",
        'export default (api) => { api.on("beforeToolcall", () => undefined); };\n',
      ),
      plugin("fine", "index.mjs", 'export default (api) => { api.on("afterToolCall", () => undefined); };\n'),
    ]);
    const loaded = await load();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(loaded!.report.plugins.map((p) => [p.name, p.tools])).toEqual([
      ["late", []],
      ["fine", []],
    ]);
    expect(loaded!.agentOptions.tools).toEqual([]);
    const errors = loaded!.report.errors.map((e) => `${e.plugin}: ${e.message}`);
    expect(errors).toEqual([
      expect.stringMatching(/^hangs: not loaded: its setup did not finish within 200 ms/),
      expect.stringMatching(/^typo: not loaded: on\("beforeToolcall"\): there is no such hook/),
    ]);
    expect(loaded!.agentOptions.hooks).toHaveLength(1);
  });

  it("applies an afterToolCall's result and ignores a malformed transformContext, reporting it into the run", async () => {
    await register([
      plugin(
        "shaper",
        "index.mjs",
        `export default (api) => {
  api.on("transformContext", () => "not a request");
  api.on("afterToolCall", (call, result) => ({ ...result, content: result.content.toUpperCase() }));
};
`,
      ),
    ]);
    const loaded = await load();
    const reported: unknown[] = [];
    loaded!.attach({
      emitInRun: (runId, event) => reported.push({ runId, ...event }) > 0,
      subscribe: () => () => {},
    });
    const [transform, after] = loaded!.agentOptions.hooks;
    const info = { runId: "run-1", step: 1, signal: new AbortController().signal };
    const request = { systemPrompt: "s", messages: [], tools: [] };
    expect(await transform!.transformContext!(request, info)).toBe(request);
    const result = { ok: true, content: "quiet", meta: { tool: "t", durationMs: 1, truncated: false } };
    const call = { id: "c", name: "t", arguments: {} };
    expect(await after!.afterToolCall!(call, result, { ...info, tool: undefined })).toMatchObject({
      content: "QUIET",
    });
    expect(reported).toEqual([
      {
        runId: "run-1",
        type: "plugin_error",
        plugin: "shaper",
        hook: "transformContext",
        message: "returned something that is not a request; ignored",
      },
    ]);
  });
});
