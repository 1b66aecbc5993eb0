// End to end: `reson plugin` installs a plugin package packed with `npm pack` (from the tarball,
// and by name from an npm registry served on loopback), lists, disables, enables and removes
// it; registers a folder where it lies; trusts a project's plugin once and asks again when a
// file changes; refuses a package without plugin.json; keeps both of two adds racing.
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { discoverPlugins, type PluginList } from "../../src/plugins/index.js";
import { cleanEnv, runCli, type TempDir, tempDir } from "../support/cli.js";
import { npmPack, npmRegistry, type Packed } from "../support/npm-registry.js";

const FIXTURE = resolve(import.meta.dirname, "../fixtures/plugins/hello-plugin");
const PACKAGE = "@reson-test/hello-plugin";

/** A copy of the fixture with another name or version in plugin.json and package.json. */
function variant(into: string, change: { plugin?: string; pkg?: string; version?: string }): string {
  cpSync(FIXTURE, into, { recursive: true });
  for (const file of ["plugin.json", "package.json"]) {
    const json = JSON.parse(readFileSync(join(into, file), "utf8")) as Record<string, unknown>;
    const name = file === "plugin.json" ? change.plugin : change.pkg;
    if (name) json.name = name;
    if (change.version) json.version = change.version;
    writeFileSync(join(into, file), JSON.stringify(json));
  }
  return into;
}

describe("reson plugin", () => {
  let work: TempDir;
  let ws: string;
  let packs: string;
  let hello: Packed;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    work = tempDir("reson-plugin-cli-");
    packs = join(work.path, "packs");
    mkdirSync(packs);
    hello = npmPack(FIXTURE, packs);
  });
  afterAll(() => work.remove());

  beforeEach(() => {
    const run = tempDir("reson-plugin-run-");
    ws = realpathSync(run.path);
    mkdirSync(join(ws, ".git"));
    const npmrc = join(run.path, ".npm-userconfig");
    const globalNpmrc = join(run.path, ".npm-globalconfig");
    writeFileSync(npmrc, "");
    writeFileSync(globalNpmrc, "");
    // npm stays offline with a cache of its own and none of the developer's settings: a
    // tarball needs nothing from the network, and a registry test points npm at its own.
    env = cleanEnv({
      RESON_HOME: run.home,
      npm_config_cache: join(run.path, ".npm-cache"),
      npm_config_userconfig: npmrc,
      npm_config_globalconfig: globalNpmrc,
      npm_config_offline: "true",
      npm_config_update_notifier: "false",
    });
    cleanup.push(run);
  });
  const cleanup: TempDir[] = [];
  afterEach(() => {
    for (const dir of cleanup.splice(0)) dir.remove();
  });

  const reson = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
    runCli(["plugin", ...args], { cwd: ws, env: { ...env, ...extraEnv }, timeoutMs: 60_000 });
  const list = async (): Promise<PluginList> => {
    const result = await reson(["list", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as PluginList;
  };
  const home = () => env.RESON_HOME as string;

  it("installs a packed plugin from its tarball without running its scripts, then disables, enables and removes it", async () => {
    const added = await reson(["add", hello.file]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`Added plugin "hello-plugin" 1.0.0 (user)`);
    const installed = join(home(), "plugins", "node_modules", PACKAGE);
    expect(existsSync(join(installed, "plugin.json"))).toBe(true);
    expect(existsSync(join(installed, "POSTINSTALL-RAN"))).toBe(false);
    expect((await list()).plugins).toEqual([
      expect.objectContaining({
        name: "hello-plugin",
        version: "1.0.0",
        scope: "user",
        source: `npm:${hello.file}`,
        enabled: true,
        status: "loads",
      }),
    ]);

    const shown = await reson(["show", "hello-plugin", "--json"]);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      name: "hello-plugin",
      entry: join(realpathSync(installed), "dev.reson", "index.js"),
      skills: join(realpathSync(installed), "skills"),
    });

    expect((await reson(["disable", "hello-plugin"])).stdout).toContain("now disabled");
    expect((await list()).plugins[0]).toMatchObject({ enabled: false, status: "disabled" });
    expect((await discoverPlugins({ home: home(), workspace: ws })).load).toEqual([]);
    expect((await reson(["enable", "hello-plugin"])).code).toBe(0);
    expect((await discoverPlugins({ home: home(), workspace: ws })).load.map((p) => p.name)).toEqual([
      "hello-plugin",
    ]);

    const removed = await reson(["remove", "hello-plugin"]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`npm uninstalled ${PACKAGE}`);
    expect(existsSync(installed)).toBe(false);
    expect((await list()).plugins).toEqual([]);
    expect((await reson(["remove", "hello-plugin"])).code).toBe(2);
  });

  it("installs by name and version from an npm registry, and an add of a newer version is an update", async () => {
    const v2 = npmPack(variant(join(work.path, "v2"), { version: "1.1.0" }), join(work.path, "v2"));
    const registry = await npmRegistry(PACKAGE, { "1.0.0": hello, "1.1.0": v2 });
    try {
      const online = { npm_config_offline: "false", npm_config_registry: registry.url };
      const first = await reson(["add", `${PACKAGE}@1.0.0`], online);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain(`from npm:${PACKAGE}@1.0.0`);
      const second = await reson(["add", `${PACKAGE}@1.1.0`], online);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toContain(`Updated plugin "hello-plugin" (user): 1.0.0 → 1.1.0`);
      expect((await list()).plugins).toEqual([
        expect.objectContaining({ name: "hello-plugin", version: "1.1.0", source: `npm:${PACKAGE}@1.1.0` }),
      ]);
    } finally {
      registry.server.close();
    }
  });

  it("update installs the newest version of a plugin added by name, keeping it disabled", async () => {
    const v2 = npmPack(variant(join(work.path, "v2b"), { version: "1.1.0" }), join(work.path, "v2b"));
    const versions: Record<string, Packed> = { "1.0.0": hello };
    const registry = await npmRegistry(PACKAGE, versions);
    try {
      const online = { npm_config_offline: "false", npm_config_registry: registry.url };
      expect((await reson(["add", PACKAGE], online)).stdout).toContain('"hello-plugin" 1.0.0');
      expect((await reson(["disable", "hello-plugin"])).code).toBe(0);
      versions["1.1.0"] = v2;
      const updated = await reson(["update"], online);
      expect(updated.code, updated.stderr).toBe(0);
      expect(updated.stdout).toContain("1.0.0 → 1.1.0");
      expect((await list()).plugins).toEqual([
        expect.objectContaining({ name: "hello-plugin", version: "1.1.0", enabled: false }),
      ]);
    } finally {
      registry.server.close();
    }
  });

  it("Ctrl-C during an install stops npm, registers nothing and leaves no lock behind", async () => {
    let requested: () => void = () => {};
    const request = new Promise<void>((done) => {
      requested = done;
    });
    let closed: () => void = () => {};
    const npmGone = new Promise<void>((done) => {
      closed = done;
    });
    // A registry that never answers: npm waits on it until it is stopped.
    const server = createServer((req) => {
      req.socket.once("close", closed);
      requested();
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const result = await runCli(["plugin", "add", PACKAGE], {
        cwd: ws,
        env: { ...env, npm_config_offline: "false", npm_config_registry: url, npm_config_fetch_retries: "0" },
        timeoutMs: 60_000,
        onSpawn: (child) => {
          void request.then(() => child.kill("SIGINT"));
        },
      });
      expect(result.code).toBe(130);
      expect(result.stderr).toContain("cancelled");
      await npmGone;
      expect((await list()).plugins).toEqual([]);
      expect(existsSync(join(home(), "plugins", "plugins.json.lock"))).toBe(false);
      expect((await reson(["add", FIXTURE])).code).toBe(0);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("says what npm said when a package cannot be fetched, and registers nothing", async () => {
    const result = await reson(["add", "reson-test-no-such-plugin@1.0.0"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("npm could not install reson-test-no-such-plugin@1.0.0");
    expect(result.stderr).toContain("hint:");
    expect((await list()).plugins).toEqual([]);
  });

  it("says how to get npm when there is none, and a folder still adds without it", async () => {
    const bin = join(work.path, "bin-without-npm");
    mkdirSync(bin, { recursive: true });
    const noNpm = { PATH: bin, npm_execpath: "" };
    const result = await reson(["add", hello.file], noNpm);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("found no npm");
    expect(result.stderr).toContain("hint: npm comes with Node.js");
    expect((await list()).plugins).toEqual([]);
    expect((await reson(["add", FIXTURE], noNpm)).code).toBe(0);
  });

  it("registers a local folder where it lies and never deletes it", async () => {
    const folder = realpathSync(variant(join(work.path, "local"), {}));
    const added = await reson(["add", folder]);
    expect(added.code, added.stderr).toBe(0);
    expect((await list()).plugins[0]).toMatchObject({ source: `path:${folder}`, root: folder });
    expect(existsSync(join(home(), "plugins", "node_modules"))).toBe(false);
    const removed = await reson(["remove", "hello-plugin"]);
    expect(removed.stdout).toContain("Its folder stays where it is");
    expect(existsSync(join(folder, "plugin.json"))).toBe(true);
  });

  it("a project plugin is trusted by whoever adds it, untrusted once a file changes, and trusted again", async () => {
    const folder = variant(join(ws, "tools", "hello"), {});
    const added = await reson(["add", "./tools/hello", "--project"]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/Trusted "hello-plugin" for .* \(package hash [0-9a-f]{32}\)/);
    const registry = JSON.parse(readFileSync(join(ws, ".reson", "plugins.json"), "utf8"));
    expect(registry.plugins[0]).toMatchObject({ root: "tools/hello", source: "path:tools/hello" });
    expect((await list()).plugins[0]).toMatchObject({ scope: "project", trusted: true, status: "loads" });

    writeFileSync(join(folder, "dev.reson", "index.js"), "export default () => { /* changed */ };\n");
    const found = await discoverPlugins({ home: home(), workspace: ws });
    expect(found.load).toEqual([]);
    expect(found.untrusted.map((p) => p.name)).toEqual(["hello-plugin"]);
    const listed = await reson(["list"]);
    expect(listed.stdout).toContain("`reson plugin trust hello-plugin`");
    expect((await list()).plugins[0]).toMatchObject({ trusted: false, status: "untrusted" });

    const trusted = await reson(["trust", "hello-plugin"]);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect((await discoverPlugins({ home: home(), workspace: ws })).load.map((p) => p.name)).toEqual([
      "hello-plugin",
    ]);
  });

  it("installs a project's npm plugin into the workspace's .reson/plugins, and removes it from there", async () => {
    const added = await reson(["add", hello.file, "--project"]);
    expect(added.code, added.stderr).toBe(0);
    const installed = join(ws, ".reson", "plugins", "node_modules", PACKAGE);
    expect(existsSync(join(installed, "plugin.json"))).toBe(true);
    const registry = JSON.parse(readFileSync(join(ws, ".reson", "plugins.json"), "utf8"));
    expect(registry.plugins[0]).toMatchObject({ root: `.reson/plugins/node_modules/${PACKAGE}` });
    expect((await list()).plugins).toEqual([
      expect.objectContaining({ name: "hello-plugin", scope: "project", trusted: true, status: "loads" }),
    ]);
    expect((await reson(["remove", "hello-plugin"])).code).toBe(2);
    const removed = await reson(["remove", "hello-plugin", "--project"]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(installed)).toBe(false);
    expect(existsSync(join(home(), "plugins"))).toBe(false);
  });

  it("on another clone, update --project installs the project's npm plugins again and trusts them", async () => {
    expect((await reson(["add", hello.file, "--project"])).code).toBe(0);
    // Another person's clone: the registry file came with the repository, nothing else did.
    rmSync(join(ws, ".reson", "plugins"), { recursive: true });
    rmSync(home(), { recursive: true });
    const before = await list();
    expect(before.plugins[0]).toMatchObject({ name: "hello-plugin", status: "broken" });
    expect(before.plugins[0]?.problem).toContain("does not exist");
    const updated = await reson(["update", "--project"]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toContain('Trusted "hello-plugin"');
    expect((await list()).plugins).toEqual([
      expect.objectContaining({ name: "hello-plugin", scope: "project", trusted: true, status: "loads" }),
    ]);
  });

  it("refuses a package without plugin.json and leaves it neither installed nor registered", async () => {
    const plain = join(work.path, "plain");
    mkdirSync(plain, { recursive: true });
    writeFileSync(
      join(plain, "package.json"),
      JSON.stringify({ name: "reson-test-plain", version: "1.0.0" }),
    );
    const tarball = npmPack(plain, plain);
    const result = await reson(["add", tarball.file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("has no plugin.json");
    expect(result.stderr).toContain("hint:");
    expect(existsSync(join(home(), "plugins", "node_modules", "reson-test-plain"))).toBe(false);
    expect((await list()).plugins).toEqual([]);
  });

  it("an update to a version without plugin.json removes the plugin it replaced, and says so", async () => {
    const broken = variant(join(work.path, "broken"), { version: "2.0.0" });
    rmSync(join(broken, "plugin.json"));
    const tarball = npmPack(broken, broken);
    expect((await reson(["add", hello.file])).code).toBe(0);
    const result = await reson(["add", tarball.file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('it had replaced the plugin "hello-plugin"');
    expect(existsSync(join(home(), "plugins", "node_modules", PACKAGE))).toBe(false);
    expect((await list()).plugins).toEqual([]);
  });

  it("keeps both plugins when two adds run at once", async () => {
    const other = npmPack(
      variant(join(work.path, "other"), { plugin: "other-plugin", pkg: "@reson-test/other-plugin" }),
      join(work.path, "other"),
    );
    const [a, b] = await Promise.all([reson(["add", hello.file]), reson(["add", other.file])]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect((await list()).plugins.map((p) => p.name).sort()).toEqual(["hello-plugin", "other-plugin"]);
    const manifest = JSON.parse(readFileSync(join(home(), "plugins", "package.json"), "utf8"));
    expect(Object.keys(manifest.dependencies).sort()).toEqual([PACKAGE, "@reson-test/other-plugin"]);
  });

  it("refuses a spec with a credential in it and writes nothing down", async () => {
    const token = createHash("sha256").update("not a real token").digest("hex");
    const result = await reson(["add", `https://build:${token}@registry.example.com/hello-plugin-1.0.0.tgz`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("holds a credential");
    expect(result.stderr).not.toContain(token);
    expect(existsSync(join(home(), "plugins"))).toBe(false);
  });

  it("answers --help, and `reson plugins` is the same command", async () => {
    const help = await runCli(["plugin", "--help"], { cwd: ws, env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("reson plugin add <folder | file.tgz | npm-spec>");
    const alias = await runCli(["plugins", "list"], { cwd: ws, env });
    expect(alias.code).toBe(0);
    expect(alias.stdout).toContain("No plugins.");
  });
});
