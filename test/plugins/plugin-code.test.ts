// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the plugin sources the test writes hold template literals
// A trusted project plugin runs what the user trusted, dependencies included: trusting copies
// its folder and the packages its imports reach into $RESON_HOME/plugin-code, and runs load it
// from there. What a run's commands may change afterwards (the workspace's node_modules, the
// plugin's own files between start and a late import, a package that was missing) is never
// run; an older trust without a copy asks once more; removing the plugin removes its copy.
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli, tempDir } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import { listedPlugins, pluginCopies } from "../support/user-plugins.js";

type Event = Record<string, unknown> & { type: string };

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** Code that, when run, leaves `marker` behind: what an attacker's module would do. */
const planted = (marker: string, exports: string) =>
  `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n${exports}\n`;

/**
 * A folder plugin in `<ws>/tools/shouter` whose entry imports "shout" from the workspace's
 * node_modules, reads a file of its own beside it, and imports two modules only when its tool
 * runs: one of its own, and "late-dep", which is not installed.
 */
function writeShouter(ws: string, layout: "npm" | "pnpm" = "npm"): void {
  write(join(ws, "package.json"), JSON.stringify({ name: "ws", private: true }));
  const pkg = (name: string, main: string) => {
    const dir =
      layout === "npm"
        ? join(ws, "node_modules", name)
        : join(ws, "node_modules", ".pnpm", `${name}@1.0.0`, "node_modules", name);
    write(join(dir, "package.json"), JSON.stringify({ name, version: "1.0.0", main: "index.js" }));
    write(join(dir, "index.js"), main);
  };
  if (layout === "npm") {
    pkg("shout", "module.exports = (s) => `${s.toUpperCase()}!`;\n");
  } else {
    // pnpm: each package in .pnpm, reached through links; its dependencies are links beside it.
    pkg("caps", "module.exports = (s) => s.toUpperCase();\n");
    pkg("shout", 'const caps = require("caps");\nmodule.exports = (s) => `${caps(s)}!`;\n');
    symlinkSync(".pnpm/shout@1.0.0/node_modules/shout", join(ws, "node_modules", "shout"));
    symlinkSync(
      "../../caps@1.0.0/node_modules/caps",
      join(ws, "node_modules", ".pnpm", "shout@1.0.0", "node_modules", "caps"),
    );
  }
  const root = join(ws, "tools", "shouter");
  write(
    join(root, "plugin.json"),
    JSON.stringify({
      name: "shouter",
      version: "1.0.0",
      extensions: { "dev.reson": { entry: "./dev.reson/index.mjs" } },
    }),
  );
  write(join(root, "word.txt"), "hello\n");
  write(join(root, "dev.reson", "later.mjs"), 'export const suffix = " (later)";\n');
  write(
    join(root, "dev.reson", "index.mjs"),
    [
      'import { readFileSync } from "node:fs";',
      'import shout from "shout";',
      'const word = readFileSync(new URL("../word.txt", import.meta.url), "utf8").trim();',
      "export default (api) => {",
      "  api.registerTool({",
      '    name: "shout", description: "Shouts a word.", readOnly: true, external: false,',
      '    parameters: { type: "object", properties: {} },',
      "    execute: async () => {",
      '      const { suffix } = await import("./later.mjs");',
      '      const late = await import("late-dep").then((m) => m.default, () => "no late-dep");',
      "      return `${shout(word)}${suffix}; ${late}`;",
      "    },",
      "  });",
      "};",
    ].join("\n"),
  );
}

describe("the code a trusted project plugin runs", () => {
  const f = useCliFixture();
  const ws = () => realpathSync(f.ws.path);
  const env = () => cleanEnv({ RESON_HOME: f.home.path });
  const reson = (args: string[]) => runCli(args, { cwd: f.ws.path, env: env(), timeoutMs: 60_000 });
  const run = (args: string[]) => reson(["run", ...fakeModelArgs(f.server), "--json", ...args]);
  const list = () => listedPlugins(reson);
  const copies = () => pluginCopies(f.home.path);
  /** A run calling the plugin's tool: it answers as the trusted code does, and nothing planted ran. */
  const shoutsAsTrusted = async (marker: string, runShout = () => run(["shout"])): Promise<Event[]> => {
    f.server.enqueue({ toolCalls: [{ name: "shout", arguments: {} }] }, { text: "Shouted." });
    const result = await runShout();
    expect(result.code, result.stderr).toBe(0);
    const events = parseEvents(result.stdout) as Event[];
    expect(events.find((e) => e.type === "tool_result")).toMatchObject({
      name: "shout",
      ok: true,
      content: "HELLO! (later); no late-dep",
    });
    expect(existsSync(marker)).toBe(false);
    return events;
  };

  it("is what was trusted: a workspace dependency or a late import changed afterwards is not run", async () => {
    writeShouter(ws());
    const added = await reson(["plugin", "add", "./tools/shouter", "--project", "--yes"]);
    expect(added.code, added.stderr).toBe(0);
    expect(copies()).toHaveLength(1);

    // What a fooled run's commands could do: the workspace's node_modules is not protected.
    const marker = join(ws(), "PWNED");
    write(
      join(ws(), "node_modules", "shout", "index.js"),
      planted(marker, "module.exports = () => 'tampered';"),
    );
    // It still loads, from its copy, and `reson plugin list` tells of the change.
    expect((await list()).plugins[0]).toMatchObject({
      status: "loads",
      trusted: true,
      problem: expect.stringContaining(join(ws(), "node_modules", "shout", "index.js")),
    });
    expect(existsSync(marker)).toBe(false);
    // And, once the plugin is loaded, its own module that it imports only when its tool runs.
    f.server.enqueue(
      {
        toolCalls: [
          {
            name: "write_file",
            arguments: {
              path: "tools/shouter/dev.reson/later.mjs",
              content: `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(`${marker}-later`)}, "ran");\nexport const suffix = " (tampered)";\n`,
            },
          },
        ],
      },
      { toolCalls: [{ name: "shout", arguments: {} }] },
      { text: "Shouted." },
    );
    const result = await run(["shout hello"]);
    expect(result.code, result.stderr).toBe(0);
    const events = parseEvents(result.stdout) as Event[];
    expect(events.find((e) => e.type === "plugins_loaded")).toMatchObject({
      plugins: [{ name: "shouter", scope: "project", tools: ["shout"] }],
      errors: [],
    });
    const results = events.filter((e) => e.type === "tool_result");
    expect(results[0]).toMatchObject({ name: "write_file", ok: true });
    expect(results[1]).toMatchObject({ name: "shout", ok: true, content: "HELLO! (later); no late-dep" });
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(`${marker}-later`)).toBe(false);

    // The plugin's own file changed: the next start leaves it out and says why.
    const next = await run(["hello"]).then((r) => parseEvents(r.stdout) as Event[]);
    expect(next.find((e) => e.type === "plugins_loaded")).toMatchObject({
      plugins: [],
      untrusted: [{ plugin: "shouter", command: "reson plugin trust shouter" }],
    });
    expect((await list()).plugins[0]).toMatchObject({
      status: "untrusted",
      problem: "its files changed since you trusted it: dev.reson/later.mjs",
    });
    expect(existsSync(`${marker}-later`)).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });

  it("an import that found nothing when trusted is not looked for outside the copy later", async () => {
    // The copy lies in reson's home: Node would look for a missing package in the folders
    // above it, which reson does not own.
    const outer = tempDir();
    try {
      const home = join(realpathSync(outer.path), "home");
      writeShouter(ws());
      const withHome = { cwd: f.ws.path, env: cleanEnv({ RESON_HOME: home }), timeoutMs: 60_000 };
      const added = await runCli(["plugin", "add", "./tools/shouter", "--project", "--yes"], withHome);
      expect(added.code, added.stderr).toBe(0);
      const marker = join(ws(), "PWNED");
      const lateDep = join(outer.path, "node_modules", "late-dep");
      write(join(lateDep, "package.json"), JSON.stringify({ name: "late-dep", main: "index.js" }));
      write(join(lateDep, "index.js"), planted(marker, "module.exports = 'late-dep ran';"));
      await shoutsAsTrusted(marker, () =>
        runCli(["run", ...fakeModelArgs(f.server), "--json", "shout"], withHome),
      );
    } finally {
      outer.remove();
    }
  });

  it("keeps pnpm's linked node_modules: the packages it reaches through links are copied, links and all", async () => {
    writeShouter(ws(), "pnpm");
    const added = await reson(["plugin", "add", "./tools/shouter", "--project", "--yes"]);
    expect(added.code, added.stderr).toBe(0);
    const marker = join(ws(), "PWNED");
    const caps = join(ws(), "node_modules", ".pnpm", "caps@1.0.0", "node_modules", "caps", "index.js");
    write(caps, planted(marker, "module.exports = () => 'tampered';"));
    const events = await shoutsAsTrusted(marker);
    expect(events.find((e) => e.type === "plugins_loaded")).toMatchObject({ errors: [] });
  });

  it("copies the dependencies its package.json declares, for an import esbuild cannot see", async () => {
    writeShouter(ws());
    const root = join(ws(), "tools", "shouter");
    write(join(root, "package.json"), JSON.stringify({ name: "shouter", dependencies: { shout: "1.0.0" } }));
    // The name is computed when the module runs: no bundler follows it.
    const entry = join(root, "dev.reson", "index.mjs");
    write(
      entry,
      readFileSync(entry, "utf8").replace(
        'import shout from "shout";',
        'const { default: shout } = await import(["sh", "out"].join(""));',
      ),
    );
    const added = await reson(["plugin", "add", "./tools/shouter", "--project", "--yes"]);
    expect(added.code, added.stderr).toBe(0);
    const marker = join(ws(), "PWNED");
    write(
      join(ws(), "node_modules", "shout", "index.js"),
      planted(marker, "module.exports = () => 'tampered';"),
    );
    await shoutsAsTrusted(marker);
  });

  it('copies what its MCP server imports but not what its tests do, and "reson" is the reson that loads it', async () => {
    writeShouter(ws());
    const root = join(ws(), "tools", "shouter");
    const marker = join(ws(), "PWNED");
    const pkg = (name: string, main: string) => {
      write(join(ws(), "node_modules", name, "package.json"), JSON.stringify({ name, main: "index.js" }));
      write(join(ws(), "node_modules", name, "index.js"), main);
    };
    // The workspace's own reson, which a run's commands could rewrite.
    pkg("reson", planted(marker, "exports.definePlugin = () => () => {};"));
    pkg("mcp-helper", "module.exports = 1;\n");
    pkg("test-runner", "module.exports = 1;\n");
    write(
      join(root, "mcp.json"),
      JSON.stringify({ mcpServers: { srv: { command: "node", args: ["${PLUGIN_ROOT}/server.mjs"] } } }),
    );
    write(join(root, "server.mjs"), 'import "mcp-helper";\n');
    write(join(root, "test", "shouter.test.mjs"), 'import "test-runner";\n');
    const entry = join(root, "dev.reson", "index.mjs");
    write(
      entry,
      readFileSync(entry, "utf8")
        .replace(
          "export default (api) => {",
          'import { definePlugin } from "reson";\nexport default definePlugin((api) => {',
        )
        .replace(/};\s*$/, "});\n"),
    );
    const added = await reson(["plugin", "add", "./tools/shouter", "--project", "--yes"]);
    expect(added.code, added.stderr).toBe(0);
    const [key] = copies();
    const copied = (name: string) =>
      existsSync(join(f.home.path, "plugin-code", key!, ws(), "node_modules", name, "index.js"));
    expect(copied("mcp-helper")).toBe(true);
    expect(copied("test-runner")).toBe(false);
    expect(copied("reson")).toBe(false);

    await shoutsAsTrusted(marker);
  });

  it("a trust recorded before copies were kept asks once more, and removing the plugin removes its copy", async () => {
    writeShouter(ws());
    expect((await reson(["plugin", "add", "./tools/shouter", "--project", "--yes"])).code).toBe(0);
    const trustFile = join(f.home.path, "plugin-trust.json");
    const trust = JSON.parse(readFileSync(trustFile, "utf8"));
    const entry = trust.workspaces[ws()].shouter;
    expect(entry).toMatchObject({ hash: expect.any(String), code: copies()[0] });
    delete entry.code;
    writeFileSync(trustFile, JSON.stringify(trust));
    expect((await list()).plugins[0]).toMatchObject({
      status: "untrusted",
      problem: expect.stringContaining("trusted by an earlier reson"),
    });
    const listed = await reson(["plugin", "list"]);
    expect(listed.stdout).toContain("trusted by an earlier reson");
    expect(listed.stdout).toContain("`reson plugin trust shouter`");

    const trusted = await reson(["plugin", "trust", "shouter", "--yes"]);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect((await list()).plugins[0]).toMatchObject({ status: "loads", trusted: true });
    expect(copies()).toHaveLength(1);
    const shown = await reson(["plugin", "show", "shouter"]);
    expect(shown.stdout).toContain(
      `runs from: ${join(realpathSync(f.home.path), "plugin-code", copies()[0]!, ws(), "tools", "shouter")} (the copy you trusted)`,
    );

    const removed = await reson(["plugin", "remove", "shouter", "--project"]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(copies()).toEqual([]);
    expect(existsSync(join(ws(), "tools", "shouter", "plugin.json"))).toBe(true);
  });
});
