// End to end: nothing reson starts outlives it (the sandbox probe, sandboxed and plain
// commands and what they leave in the background), checked from the PID 1 of a fresh PID
// namespace; and the sandbox probe is remembered across runs, in $RESON_HOME/cache, but
// never trusted when broken or stale, and `reson doctor` always runs it again.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import { runCliIsolated } from "../support/pid-namespace.js";
import { skipWithout } from "../support/requirements.js";

describe.skipIf(await skipWithout("sandbox", "processes left behind"))("processes left behind", () => {
  const f = useCliFixture();
  const env = () => cleanEnv({ RESON_HOME: f.home.path });
  const run = (args: string[]) =>
    runCliIsolated(["run", "--json", ...fakeModelArgs(f.server), ...args], f.home.path, {
      cwd: f.ws.path,
      env: env(),
    });

  it("a one-step run that probes the sandbox leaves no process behind", async () => {
    f.server.enqueue({ text: "ready" });
    const result = await run(["say ready"]);
    expect(result.stderr).not.toContain("failed");
    expect(result.code).toBe(0);
    expect(result.left).toEqual([]);
    expect(existsSync(join(f.home.path, "cache", "sandbox-probe.json"))).toBe(true);
  });

  it("a sandboxed command's background process does not outlive the run", async () => {
    f.server.enqueue(
      {
        toolCalls: [
          { name: "execute_command", arguments: { command: "sleep 300 >/dev/null 2>&1 & echo started" } },
        ],
      },
      { text: "done" },
    );
    const result = await run(["start something"]);
    expect(result.code).toBe(0);
    const tool = parseEvents(result.stdout).find((e) => e.type === "tool_result");
    expect(tool).toMatchObject({ ok: true });
    expect(JSON.stringify(tool)).toContain("started");
    expect(result.left).toEqual([]);
  });

  it("without the sandbox, a command's background process runs through the run and ends with it", async () => {
    f.server.enqueue(
      {
        toolCalls: [
          { name: "execute_command", arguments: { command: "sleep 300 >/dev/null 2>&1 & echo $! > bg.pid" } },
        ],
      },
      {
        toolCalls: [
          { name: "execute_command", arguments: { command: 'kill -0 "$(cat bg.pid)" && echo alive' } },
        ],
      },
      { text: "done" },
    );
    const result = await run(["--sandbox", "off", "--allow", "execute_command", "start something"]);
    expect(result.code).toBe(0);
    const tools = parseEvents(result.stdout).filter((e) => e.type === "tool_result");
    expect(tools).toHaveLength(2);
    expect(JSON.stringify(tools[1])).toContain("alive");
    // Orphaned when its shell exited, the sleep was adopted by PID 1, not reson: reson ended
    // it before exiting, and reaping its remains is the adopter's part.
    expect(result.left.filter((p) => p.state !== "Z")).toEqual([]);
  });
});

describe.skipIf(await skipWithout("sandbox", "the remembered sandbox probe"))(
  "the remembered sandbox probe",
  () => {
    const f = useCliFixture();
    const cacheFile = () => join(f.home.path, "cache", "sandbox-probe.json");

    /** A bwrap that logs each call, so a test can count how often reson ran it. */
    function loggedBwrap(name = "bwrap-logged"): { path: string; probes: () => number } {
      const real = execFileSync("sh", ["-c", "command -v bwrap"], { encoding: "utf8" }).trim();
      const log = join(f.home.path, `${name}.log`);
      const path = join(f.home.path, name);
      writeFileSync(path, `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`);
      chmodSync(path, 0o755);
      const probes = () =>
        existsSync(log)
          ? readFileSync(log, "utf8")
              .split("\n")
              .filter((line) => line.endsWith("--seccomp 3 -- true")).length
          : 0;
      return { path, probes };
    }

    const run = (bwrap: string) => {
      f.server.enqueue({ text: "ready" });
      return runCli(["run", ...fakeModelArgs(f.server), "say ready"], {
        cwd: f.ws.path,
        env: cleanEnv({ RESON_HOME: f.home.path, RESON_BWRAP: bwrap }),
      });
    };

    it("a second run does not probe again; a broken or stale cache is probed again; doctor always probes", async () => {
      const bwrap = loggedBwrap();
      const first = await run(bwrap.path);
      expect(first.code).toBe(0);
      expect(first.stderr).toMatch(/sandbox: enforced \(bwrap [\d.]+/);
      expect(bwrap.probes()).toBe(1);

      const second = await run(bwrap.path);
      expect(second.code).toBe(0);
      expect(second.stderr).toMatch(/sandbox: enforced \(bwrap [\d.]+/);
      expect(bwrap.probes()).toBe(1);

      writeFileSync(cacheFile(), "{ not json");
      expect((await run(bwrap.path)).stderr).toMatch(/sandbox: enforced/);
      expect(bwrap.probes()).toBe(2);

      // Another kernel boot: what was remembered no longer counts.
      const entry = JSON.parse(readFileSync(cacheFile(), "utf8")) as { key: string; check: unknown };
      const key = JSON.parse(entry.key) as { bootId: string };
      writeFileSync(
        cacheFile(),
        JSON.stringify({ ...entry, key: JSON.stringify({ ...key, bootId: "another-boot" }) }),
      );
      expect((await run(bwrap.path)).stderr).toMatch(/sandbox: enforced/);
      expect(bwrap.probes()).toBe(3);

      const doctor = await runCli(["doctor"], {
        cwd: f.ws.path,
        env: cleanEnv({ RESON_HOME: f.home.path, RESON_BWRAP: bwrap.path }),
      });
      expect(doctor.stdout).toMatch(/^sandbox: enforced/m);
      expect(bwrap.probes()).toBe(4);
    });

    it("what one bubblewrap showed is never taken for another", async () => {
      const first = loggedBwrap("bwrap-one");
      expect((await run(first.path)).code).toBe(0);
      const other = loggedBwrap("bwrap-two");
      expect((await run(other.path)).stderr).toMatch(/sandbox: enforced/);
      expect(other.probes()).toBe(1);
      const missing = await run(join(f.home.path, "no-such-bwrap"));
      expect(missing.stderr).toContain("sandbox: NONE — bubblewrap is not installed");
    });
  },
);
