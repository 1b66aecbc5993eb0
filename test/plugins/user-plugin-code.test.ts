// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the plugin sources the test writes hold template literals
// A user plugin added from a folder outside $RESON_HOME (a plugin author's checkout, often
// inside a workspace reson runs in) runs from a copy made when it was added: a fooled run's
// sandboxed command that rewrites the plugin's dependency or its own file changes nothing a later
// start runs, in any workspace; a change to its files is left out (and said why) until
// `reson plugin trust <name>` takes it; a folder plugin an earlier reson added asks once.
import { existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { registryPath, writeRegistry } from "../../src/plugins/index.js";
import { cleanEnv, parseEvents, runCli, tempDir } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import { skipWithout } from "../support/requirements.js";
import { listedPlugins, pluginCopies } from "../support/user-plugins.js";

const noSandbox = await skipWithout("sandbox", "a run's sandboxed command changing a user plugin's folder");

type Event = Record<string, unknown> & { type: string };

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** `<ws>/my-plugin`: a tool "shout" that uppercases with "shout" from the plugin's own node_modules. */
function writeMyPlugin(ws: string): string {
  const root = join(ws, "my-plugin");
  write(
    join(root, "plugin.json"),
    JSON.stringify({ name: "my-plugin", extensions: { "dev.reson": { entry: "./dev.reson/index.mjs" } } }),
  );
  write(join(root, "package.json"), JSON.stringify({ name: "my-plugin", dependencies: { shout: "1.0.0" } }));
  const shout = join(root, "node_modules", "shout");
  write(join(shout, "package.json"), JSON.stringify({ name: "shout", version: "1.0.0", main: "index.js" }));
  write(join(shout, "index.js"), "module.exports = (s) => `${s.toUpperCase()}!`;\n");
  write(join(root, "dev.reson", "index.mjs"), entry("shout"));
  return root;
}

/** The plugin's entry: a tool "shout" returning what `shout("hello")` gives, after `prelude` ran. */
function entry(dep: string, prelude = ""): string {
  return [
    `import shout from ${JSON.stringify(dep)};`,
    prelude,
    "export default (api) => {",
    "  api.registerTool({",
    '    name: "shout", description: "Shouts.", readOnly: true, external: false,',
    '    parameters: { type: "object", properties: {} },',
    '    execute: async () => shout("hello"),',
    "  });",
    "};",
    "",
  ].join("\n");
}

/** A shell command writing `text` to `path` (relative to the workspace). */
const writeCommand = (path: string, text: string) =>
  `printf '%s' ${JSON.stringify(Buffer.from(text).toString("base64"))} | base64 -d > ${path}`;

describe.skipIf(noSandbox)("a user plugin added from a folder", () => {
  const f = useCliFixture();
  const ws = () => realpathSync(f.ws.path);
  const env = () => cleanEnv({ RESON_HOME: f.home.path });
  const reson = (args: string[], cwd = f.ws.path) => runCli(args, { cwd, env: env(), timeoutMs: 60_000 });
  const run = async (task: string, cwd = f.ws.path): Promise<Event[]> => {
    const result = await reson(
      ["run", ...fakeModelArgs(f.server), "--json", "--allow", "execute_command", task],
      cwd,
    );
    expect(result.code, result.stderr).toBe(0);
    return parseEvents(result.stdout) as Event[];
  };
  const loaded = (events: Event[]) => events.find((e) => e.type === "plugins_loaded");
  const shouted = (events: Event[]) => events.find((e) => e.type === "tool_result" && e.name === "shout");
  const list = () => listedPlugins(reson);
  const copies = () => pluginCopies(f.home.path);

  it("runs what was added: a run's command that rewrites its dependency or its file changes nothing a later start runs, until trusted", async () => {
    writeMyPlugin(ws());
    const added = await reson(["plugin", "add", "./my-plugin"]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('Trusted "my-plugin" as you added it');
    expect(copies()).toHaveLength(1);
    const marker = join(ws(), "PWNED");
    const planted = `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\nmodule.exports = () => "tampered";\n`;

    // A fooled run's sandboxed command rewrites the plugin's dependency.
    f.server.enqueue(
      {
        toolCalls: [
          {
            name: "execute_command",
            arguments: { command: writeCommand("my-plugin/node_modules/shout/index.js", planted) },
          },
        ],
      },
      { toolCalls: [{ name: "shout", arguments: {} }] },
      { text: "Done." },
    );
    const first = await run("tidy up");
    expect(first.find((e) => e.type === "tool_result" && e.name === "execute_command")).toMatchObject({
      ok: true,
    });
    expect(shouted(first)).toMatchObject({ ok: true, content: "HELLO!" });
    // The next start runs the copy made when it was added: not the rewritten dependency.
    f.server.enqueue({ toolCalls: [{ name: "shout", arguments: {} }] }, { text: "Done." });
    const second = await run("shout");
    expect(loaded(second)).toMatchObject({ plugins: [{ name: "my-plugin", scope: "user" }], errors: [] });
    expect(shouted(second)).toMatchObject({ ok: true, content: "HELLO!" });
    expect(existsSync(marker)).toBe(false);
    expect((await list()).plugins[0]).toMatchObject({
      status: "loads",
      trusted: true,
      problem: expect.stringContaining(join(ws(), "my-plugin", "node_modules", "shout", "index.js")),
    });

    // Its own entry rewritten the same way: left out at the next start, here and in any workspace.
    const tampered = entry(
      "shout",
      `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");`,
    );
    f.server.enqueue(
      {
        toolCalls: [
          {
            name: "execute_command",
            arguments: { command: writeCommand("my-plugin/dev.reson/index.mjs", tampered) },
          },
        ],
      },
      { text: "Done." },
    );
    await run("tidy up again");
    const elsewhere = tempDir();
    try {
      for (const cwd of [f.ws.path, elsewhere.path]) {
        f.server.enqueue({ text: "Done." });
        const next = await run("hello", cwd);
        expect(loaded(next)).toMatchObject({
          plugins: [],
          untrusted: [
            {
              plugin: "my-plugin",
              scope: "user",
              command: "reson plugin trust my-plugin",
              reason: "its files changed since you trusted it: dev.reson/index.mjs",
            },
          ],
        });
        expect(existsSync(marker)).toBe(false);
      }
    } finally {
      elsewhere.remove();
    }
    expect((await list()).plugins[0]).toMatchObject({
      scope: "user",
      status: "untrusted",
      trusted: false,
      problem: "its files changed since you trusted it: dev.reson/index.mjs",
    });

    // `reson plugin trust` at user scope takes the change (here: the user's to regret).
    const trusted = await reson(["plugin", "trust", "my-plugin", "--yes"]);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain('Trusted "my-plugin" (user) in every workspace');
    expect(copies()).toHaveLength(1);
    f.server.enqueue({ toolCalls: [{ name: "shout", arguments: {} }] }, { text: "Done." });
    const after = await run("shout");
    expect(loaded(after)).toMatchObject({ plugins: [{ name: "my-plugin" }], untrusted: [] });
    // Its dependency as it is now was copied with it.
    expect(shouted(after)).toMatchObject({ ok: true, content: "tampered" });
    expect(existsSync(marker)).toBe(true);

    const removed = await reson(["plugin", "remove", "my-plugin"]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(copies()).toEqual([]);
  });

  it("one whose entry does not parse is added, says it is not trusted, and is trusted once fixed", async () => {
    const root = writeMyPlugin(ws());
    const file = join(root, "dev.reson", "index.mjs");
    write(file, "export default (api) => {\n");
    const added = await reson(["plugin", "add", "./my-plugin"]);
    expect(added.code).not.toBe(0);
    expect(added.stderr).toContain('Added plugin "my-plugin" (user), but it is not trusted');
    expect(added.stderr).toContain("`reson plugin trust my-plugin`");
    expect((await list()).plugins[0]).toMatchObject({ status: "untrusted", trusted: false });
    write(file, entry("shout"));
    const trusted = await reson(["plugin", "trust", "my-plugin", "--yes"]);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect((await list()).plugins[0]).toMatchObject({ status: "loads", trusted: true });
  });

  it("reson doctor writes out what a changed file's name would do to the terminal", async () => {
    const root = writeMyPlugin(ws());
    expect((await reson(["plugin", "add", "./my-plugin"])).code).toBe(0);
    // A name a run's command chose: it would clear the screen where doctor names it.
    write(join(root, "notes\u001b[2J.md"), "x\n");
    const doctor = await reson(["doctor"]);
    expect(doctor.stdout).toContain("my-plugin (user): not loaded: not trusted in its present form");
    expect(doctor.stdout).toContain("notes\\x1b[2J.md");
    expect(doctor.stdout).not.toContain("\u001b");
  });

  it("one an earlier reson added is asked about once; one npm installed into $RESON_HOME is not", async () => {
    const root = writeMyPlugin(ws());
    await writeRegistry(registryPath("user", { home: f.home.path, workspace: ws() }), [
      { name: "my-plugin", root, source: `path:${root}`, enabled: true, addedAt: "" },
    ]);
    expect((await list()).plugins[0]).toMatchObject({
      status: "untrusted",
      trusted: false,
      problem: expect.stringContaining("an earlier reson added it"),
    });
    const trustProject = await reson(["plugin", "trust", "my-plugin", "--project", "--yes"]);
    expect(trustProject.code).not.toBe(0);
    const trusted = await reson(["plugin", "trust", "my-plugin", "--user", "--yes"]);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect((await list()).plugins[0]).toMatchObject({ status: "loads", trusted: true });

    const installed = writeMyPlugin(join(f.home.path, "plugins", "node_modules"));
    await writeRegistry(registryPath("user", { home: f.home.path, workspace: ws() }), [
      { name: "my-plugin", root: installed, source: "npm:my-plugin", enabled: true, addedAt: "" },
    ]);
    const listed = (await list()).plugins[0];
    expect(listed).toMatchObject({ status: "loads" });
    expect(listed?.trusted).toBeUndefined();
    const refused = await reson(["plugin", "trust", "my-plugin", "--yes"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("loads without trust");
  });
});
