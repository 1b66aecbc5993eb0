// README "Plugins": the `reson plugin` commands as written in a user's shell (npm specs from an
// npm registry of the test's own on loopback, named in the user's ~/.npmrc), and the plugin of
// "Writing a plugin" built exactly from README's tree, plugin.json and entry module, added as a
// folder and as an `npm pack` tarball, and used by runs.
//
// Harness variables: RESON_PROVIDER=openai-compatible, RESON_BASE_URL and RESON_MODEL point at
// the fake model server, beside cleanEnv's (test/support/cli.ts).
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, onTestFinished } from "vitest";
import { parseEvents } from "../support/cli.js";
import { npmPack, npmRegistry } from "../support/npm-registry.js";
import { blockByKey } from "./readme-blocks.js";
import { localModel, type ReadmeUser } from "./readme-user.js";
import { reson, scenario, useModel, useShell, useUser } from "./scenario.js";

/** A plugin package of the test's own: a manifest and nothing else. */
function writePlugin(dir: string, pkg: string, plugin: string, version: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "plugin.json"),
    JSON.stringify({ name: plugin, version, description: `${plugin} for a test` }),
  );
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: pkg, version, files: ["plugin.json"] }));
  return dir;
}

interface PluginList {
  plugins: Array<{
    name: string;
    scope: string;
    version: string;
    enabled: boolean;
    trusted: boolean;
    status: string;
    source: string;
  }>;
}

describe("README: Installing plugins", () => {
  scenario("reson plugin add ./my-plugin", async (block) => {
    const user = useUser();
    writePlugin(join(user.work, "my-plugin"), "my-plugin", "my-plugin", "1.0.0");
    npmPack(join(user.work, "my-plugin"), user.work);
    const lint = writePlugin(join(user.scratch, "reson-lint"), "@acme/reson-lint", "reson-lint", "1.2.0");
    const registry = await npmRegistry("@acme/reson-lint", { "1.2.0": npmPack(lint, user.scratch) });
    onTestFinished(() => void registry.server.close());
    writeFileSync(
      join(user.home, ".npmrc"),
      `registry=${registry.url}\nupdate-notifier=false\naudit=false\nfund=false\n`,
    );
    const shell = useShell(block, user);
    const list = async () => JSON.parse((await shell.probe("reson plugin list --json")).stdout) as PluginList;

    const folder = await shell.run("reson plugin add ./my-plugin");
    // Registered where it lies, and run from a copy made as it is added.
    expect(folder.stdout).toContain('Trusted "my-plugin" as you added it');
    expect((await list()).plugins).toEqual([
      expect.objectContaining({ name: "my-plugin", source: expect.stringContaining("my-plugin") }),
    ]);
    const tarball = await shell.run("reson plugin add my-plugin-1.0.0.tgz");
    expect(tarball.stdout).toContain("my-plugin");
    await shell.run("reson plugin add @acme/reson-lint@1.2.0");
    const project = await shell.run("reson plugin add @acme/reson-lint --project");
    expect(project.stdout).toContain("reson-lint");
    const listed = await shell.runBoth("reson plugin list [--json]");
    expect(listed.without.stdout).toContain("reson-lint");
    expect((JSON.parse(listed.with.stdout) as PluginList).plugins).toEqual([
      expect.objectContaining({
        name: "reson-lint",
        scope: "project",
        version: "1.2.0",
        trusted: true,
        status: "loads",
      }),
      expect.objectContaining({
        name: "my-plugin",
        scope: "user",
        version: "1.0.0",
        source: expect.stringMatching(/my-plugin-1\.0\.0\.tgz$/),
      }),
      expect.objectContaining({
        name: "reson-lint",
        scope: "user",
        source: "npm:@acme/reson-lint@1.2.0",
        status: "shadowed",
      }),
    ]);
    const shown = await shell.run("reson plugin show reson-lint");
    expect(shown.stdout).toContain("reson-lint");
    await shell.run("reson plugin disable reson-lint");
    const userLint = async () =>
      (await list()).plugins.find((p) => p.name === "reson-lint" && p.scope === "user");
    expect(await userLint()).toMatchObject({ enabled: false });
    await shell.run("reson plugin trust reson-lint");
    const updated = await shell.runBoth("reson plugin update [reson-lint]");
    expect(updated.without.stdout).toContain('Updated plugin "reson-lint" (user)');
    expect(updated.with.stdout).toContain('Updated plugin "reson-lint" (user)');
    expect(await userLint()).toMatchObject({ enabled: false, version: "1.2.0" });
    const removed = await shell.runBoth("reson plugin remove reson-lint [--project]");
    expect(removed.without.stdout).toContain('Removed plugin "reson-lint" (user)');
    expect(removed.with.stdout).toContain('Removed plugin "reson-lint" (project)');
    shell.end();
    expect((await list()).plugins.map((p) => p.name)).toEqual(["my-plugin"]);
  });
});

const TREE = "reson-plugin-greeter/";
const MANIFEST = '{ "name": "greeter", "version": "1.2.3", "description": "Greets people.",';
const ENTRY = 'import { definePlugin } from "reson";';

/** README's tree: the package's folder, and each file under it with what the tree says of it. */
function treeOf(body: string): { root: string; files: Map<string, string> } {
  const [first = "", ...lines] = body.split("\n");
  const files = new Map<string, string>();
  let last = "";
  for (const line of lines) {
    const entry = /^ {2}(\S+)\s*(.*)$/.exec(line);
    if (entry) {
      last = entry[1]!;
      files.set(last, entry[2]!);
    } else files.set(last, `${files.get(last)} ${line.trim()}`); // A continued description.
  }
  return { root: first.replace(/\/$/, ""), files };
}

/**
 * The greeter package exactly as README's blocks write it, in `parent`: package.json from the
 * tree, plugin.json and the entry module from their blocks. The tree gives no skill text, so
 * the skill is a short one of the test's own; mcp.json is optional and left out (offline).
 */
function buildGreeter(parent: string): string {
  const tree = treeOf(blockByKey(TREE).body);
  expect([...tree.files.keys()]).toEqual([
    "package.json",
    "plugin.json",
    "dev.reson/index.js",
    "skills/greeting-etiquette/SKILL.md",
    "mcp.json",
  ]);
  const root = join(parent, tree.root);
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write("package.json", tree.files.get("package.json")!);
  write("plugin.json", blockByKey(MANIFEST).body);
  write("dev.reson/index.js", blockByKey(ENTRY).body);
  write(
    "skills/greeting-etiquette/SKILL.md",
    "---\nname: greeting-etiquette\ndescription: How to greet people politely.\n---\nGreet people by name.\n",
  );
  return root;
}

/** A run whose model greets Ada and Mallory: what the greet tool answered each, and stderr. */
async function greetRun(user: ReadmeUser) {
  const result = await reson(user, ["run", "--json", "greet Ada and Mallory"]);
  expect(result.code, result.stderr).toBe(0);
  const events = parseEvents(result.stdout);
  const greets = events.filter((e) => e.type === "tool_result" && e.name === "greet");
  return { events, greets, stderr: result.stderr };
}

const greetModel = () =>
  useModel({
    respond: (request) =>
      JSON.stringify(request.body).includes('"role":"tool"')
        ? { text: "Greeted Ada; Mallory is not greeted." }
        : {
            toolCalls: [
              { id: "call_ada", name: "greet", arguments: { name: "Ada" } },
              { id: "call_mallory", name: "greet", arguments: { name: "Mallory" } },
            ],
          },
  });

function expectGreeted(run: Awaited<ReturnType<typeof greetRun>>) {
  expect(run.events.find((e) => e.type === "plugins_loaded")).toMatchObject({
    plugins: [expect.objectContaining({ name: "greeter", version: "1.2.3", tools: ["greet"] })],
  });
  expect(run.greets.sort((a, b) => String(a.toolCallId).localeCompare(String(b.toolCallId)))).toEqual([
    expect.objectContaining({ toolCallId: "call_ada", ok: true, content: "Hello, Ada!" }),
    expect.objectContaining({
      toolCallId: "call_mallory",
      ok: false,
      error: expect.objectContaining({ message: expect.stringContaining("greeter does not greet Mallory") }),
    }),
  ]);
  // The plugin's event listener wrote the run's status at its end.
  expect(run.stderr).toMatch(/^completed$/m);
}

describe("README: Writing a plugin", () => {
  scenario("reson-plugin-greeter/", async () => {
    const model = await greetModel();
    const user = useUser(localModel(model));
    const folder = buildGreeter(user.scratch);
    const packed = npmPack(folder, user.scratch);
    // The package holds what its "files" name (no mcp.json here: it is optional).
    const listing = execFileSync("tar", ["-tzf", packed.file], { encoding: "utf8" })
      .trim()
      .split("\n")
      .sort();
    expect(listing).toEqual([
      "package/dev.reson/index.js",
      "package/package.json",
      "package/plugin.json",
      "package/skills/greeting-etiquette/SKILL.md",
    ]);
    const added = await reson(user, ["plugin", "add", packed.file]);
    expect(added.code, added.stderr).toBe(0);
    expectGreeted(await greetRun(user));
    const skills = await reson(user, ["skills", "--json"]);
    expect(skills.stdout).toContain("greeting-etiquette");
  });

  scenario('{ "name": "greeter", "version": "1.2.3", "description": "Greets people.",', async () => {
    const user = useUser();
    const folder = buildGreeter(user.scratch);
    const added = await reson(user, ["plugin", "add", folder]);
    expect(added.code, added.stderr).toBe(0);
    const shown = await reson(user, ["plugin", "show", "greeter"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("greeter 1.2.3 (user, enabled)");
    expect(shown.stdout).toContain("Greets people.");
    expect(shown.stdout).toContain(`reson entry: ${join(folder, "dev.reson/index.js")}`);
    expect(shown.stdout).toContain(`skills: ${join(folder, "skills")}`);
  });

  scenario('import { definePlugin } from "reson";', async () => {
    const model = await greetModel();
    const user = useUser(localModel(model));
    const added = await reson(user, ["plugin", "add", buildGreeter(user.scratch)]);
    expect(added.code, added.stderr).toBe(0);
    expectGreeted(await greetRun(user));
  });
});
