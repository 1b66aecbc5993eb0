// End to end: the command runs from its bundle (dist/cli-bundle, see scripts/bundle-cli.mjs):
// a code cache made by one successful run serves the next, a damaged one is ignored and made
// again, and an error inside the bundle is reported at the line of the TypeScript source.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { CLI, cleanEnv, runCli, runWith, tempDir } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";

const BUNDLE = resolve(import.meta.dirname, "../../dist/cli-bundle");

describe("the bundled command", () => {
  const f = useCliFixture();

  const run = (cacheHome: string, env: Record<string, string> = {}) => {
    f.server.enqueue({ text: "ready" });
    return runCli(["run", ...fakeModelArgs(f.server), "say ready"], {
      cwd: f.ws.path,
      env: cleanEnv({ RESON_HOME: f.home.path, XDG_CACHE_HOME: cacheHome, ...env }),
    });
  };
  const caches = (cacheHome: string) => {
    try {
      return readdirSync(join(cacheHome, "reson")).filter((name) => name.endsWith("-run.v8"));
    } catch {
      return [];
    }
  };

  it("keeps a code cache from a successful run for the next, and makes a damaged one again", async () => {
    const cacheHome = tempDir();
    try {
      expect((await run(cacheHome.path)).code).toBe(0);
      const [name] = caches(cacheHome.path);
      expect(name).toMatch(/^commands\.cjs@\d+-\d+-\d+-node.+-run\.v8$/);
      const file = join(cacheHome.path, "reson", name!);
      const made = readFileSync(file);
      expect(statSync(file).mode & 0o077).toBe(0);

      const second = await run(cacheHome.path);
      expect(second.code).toBe(0);
      expect(second.stdout).toContain("ready");
      expect(readFileSync(file).equals(made)).toBe(true);

      // A damaged cache would crash V8; it is refused and replaced by a good one.
      const damaged = Buffer.from(made);
      for (let i = damaged.length >> 1; i < (damaged.length >> 1) + 256; i++) damaged[i]! ^= 0x5a;
      writeFileSync(file, damaged);
      const third = await run(cacheHome.path);
      expect(third.code).toBe(0);
      expect(third.stdout).toContain("ready");
      expect(readFileSync(file).equals(damaged)).toBe(false);
    } finally {
      cacheHome.remove();
    }
  });

  it("makes no code cache with NODE_DISABLE_COMPILE_CACHE=1, nor from a failed run", async () => {
    const cacheHome = tempDir();
    try {
      expect((await run(cacheHome.path, { NODE_DISABLE_COMPILE_CACHE: "1" })).code).toBe(0);
      expect(caches(cacheHome.path)).toEqual([]);
      f.server.enqueue({ fault: "http", status: 401 });
      const failed = await runCli(["run", ...fakeModelArgs(f.server), "say ready"], {
        cwd: f.ws.path,
        env: cleanEnv({ RESON_HOME: f.home.path, XDG_CACHE_HOME: cacheHome.path }),
      });
      expect(failed.code).not.toBe(0);
      expect(caches(cacheHome.path)).toEqual([]);
    } finally {
      cacheHome.remove();
    }
  });
});

describe("what a one-step run loads", () => {
  const f = useCliFixture();

  it("leaves out the built-in modules it does not use (fs/promises, readline, perf_hooks)", async () => {
    const out = tempDir();
    try {
      // Node's own list of the built-in modules this process loaded, written as it exits.
      const preload = join(out.path, "modules.cjs");
      const list = join(out.path, "modules.txt");
      writeFileSync(
        preload,
        `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join("\\n")));`,
      );
      // The first run in a home probes the sandbox (and remembers it): the second is every run's.
      f.server.enqueue({ text: "ready" });
      const env = cleanEnv({ RESON_HOME: f.home.path });
      expect(
        (await runCli(["run", ...fakeModelArgs(f.server), "say ready"], { cwd: f.ws.path, env })).code,
      ).toBe(0);
      // Without a working sandbox (no bubblewrap) nothing is remembered and every run probes
      // again, which reads the cgroup files through node:fs/promises: such a machine runs it off.
      const remembered = existsSync(join(f.home.path, "cache", "sandbox-probe.json"));
      f.server.enqueue({ text: "ready" });
      const result = await runWith(
        process.execPath,
        [
          "-r",
          preload,
          CLI,
          "run",
          ...(remembered ? [] : ["--sandbox", "off"]),
          ...fakeModelArgs(f.server),
          "say ready",
        ],
        { cwd: f.ws.path, env },
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("ready");
      const loaded = readFileSync(list, "utf8").split("\n");
      expect(loaded).toContain("NativeModule http");
      for (const name of ["fs/promises", "readline/promises", "perf_hooks"])
        expect(loaded).not.toContain(`NativeModule ${name}`);
      // The tools' schemas were estimated once, by the first run (src/context/estimate-cache.ts).
      const estimates = JSON.parse(readFileSync(join(f.home.path, "cache", "token-estimates.json"), "utf8"));
      expect(Object.keys(estimates.entries)).toHaveLength(1);
    } finally {
      out.remove();
    }
  });
});

describe("stack traces of the bundle", () => {
  // What bin/reson.js does, then a call that throws inside each bundle file.
  const script = `
    const { createRequire } = await import("node:module");
    const bundle = ${JSON.stringify(`${pathToFileURL(BUNDLE).href}/`)};
    const cli = createRequire(import.meta.url)(new URL("launcher.cjs", bundle).pathname);
    cli.installSourceMappedStacks(bundle);
    try { await cli.main(null); } catch (error) { console.log(error.stack); }
    const { commands } = await cli.bundledCommands(new URL("commands.cjs", bundle))("memory");
    try { await commands.memoryCommand(null); } catch (error) { console.log(error.stack); }
  `;

  it("point at the TypeScript source, in the launcher and in the commands", () => {
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      env: cleanEnv({ NODE_DISABLE_COMPILE_CACHE: "1" }),
    });
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(/TypeError: .*\n\s+at .*main \(.*src\/cli\/main\.ts:\d+:\d+\)/);
    expect(result.stdout).toMatch(
      /TypeError: .*\n\s+at .*memoryCommand \(.*src\/cli\/memory-commands\.ts:\d+:\d+\)/,
    );
    expect(result.stdout).not.toMatch(/cli-bundle\/(launcher|commands)\.cjs:\d+/);
  });
});
