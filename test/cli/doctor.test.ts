// `reson doctor`: the guarantees this machine gives, found by trying them, with the fix for
// each that does not hold, and an exit status scripts can gate on.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runCli } from "../support/cli.js";
import { useCliFixture } from "../support/cli-fixture.js";
import { skipWithout } from "../support/requirements.js";

const noSandbox = await skipWithout("sandbox", "reson doctor");

describe("reson doctor", () => {
  const f = useCliFixture();
  const doctor = (args: string[] = [], env: Record<string, string> = {}) =>
    runCli(["doctor", ...args], { cwd: f.ws.path, env: cleanEnv({ RESON_HOME: f.home.path, ...env }) });

  it.skipIf(noSandbox)("reports an enforced sandbox and every check, and exits 0", async () => {
    const result = await doctor();
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^sandbox: enforced \(bwrap [\d.]+, seccomp, no network/m);
    expect(result.stdout).toContain("user namespaces work");
    expect(result.stdout).toContain("seccomp filter loads");
    expect(result.stdout).toContain("no secrets configured");
    expect(result.stdout).toMatch(/store:\n\s+ok\s+opens: .*reson\.db/);
    expect(result.stdout).toMatch(/ok\s+memory vector search: sqlite-vec/);
    expect(result.stdout).toContain("Every guarantee above holds");
  });

  it("fails closed and names the fix when bubblewrap is missing", async () => {
    const result = await doctor(["--json"], { RESON_BWRAP: "/nonexistent/bwrap" });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      sandbox: { level: string; summary: string };
      checks: Array<{ area: string; state: string; detail: string; fix?: string }>;
    };
    expect(report.ok).toBe(false);
    expect(report.sandbox.level).toBe("none");
    const failed = report.checks.filter((check) => check.state === "fail");
    expect(failed.some((check) => /bubblewrap/i.test(`${check.detail} ${check.fix}`))).toBe(true);
    expect(failed.some((check) => check.fix?.includes("apt-get install bubblewrap"))).toBe(true);
  });

  it.skipIf(noSandbox)(
    "lists secret names, never values, and fails on a secrets file others can read",
    async () => {
      const path = join(f.home.path, "secrets.json");
      writeFileSync(path, JSON.stringify({ "*.github.com": { gh_token: "ghp_abcdefgh12345678" } }), {
        mode: 0o600,
      });
      const ok = await doctor();
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain("1 secret in");
      expect(ok.stdout).toContain("gh_token");
      expect(ok.stdout).not.toContain("ghp_abcdefgh12345678");

      const { chmodSync } = await import("node:fs");
      chmodSync(path, 0o644);
      const insecure = await doctor();
      expect(insecure.code).toBe(1);
      expect(insecure.stdout).toContain("chmod 600");
      expect(insecure.stdout).not.toContain("ghp_abcdefgh12345678");
    },
  );
});

describe("reson doctor with a broken configuration", () => {
  const f = useCliFixture();
  const doctor = (args: string[] = []) =>
    runCli(["doctor", ...args], { cwd: f.ws.path, env: cleanEnv({ RESON_HOME: f.home.path }) });

  it.skipIf(noSandbox)(
    "files the error under config with the file and the field, names no command that does not exist, and blames the config",
    async () => {
      const file = join(f.home.path, "config.json");
      writeFileSync(file, JSON.stringify({ maxIterations: 0 }));
      const result = await doctor();
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(
        new RegExp(
          `config:\\n\\s+FAIL\\s+Invalid configuration in ${file.replaceAll(".", "\\.")}: maxIterations: `,
        ),
      );
      expect(result.stdout).toContain(`fix: Fix or remove the listed fields in ${file}.`);
      expect(result.stdout).toMatch(/memory:\n\s+warn\s+not checked: the configuration does not load/);
      expect(result.stdout).not.toMatch(/memory:\n\s+FAIL/);
      expect(result.stdout).not.toContain("reson config");
      const last = result.stdout.trim().split("\n").at(-1);
      expect(last).toBe(
        "Some guarantees do not hold (FAIL above: config); runs refuse to start until the configuration loads.",
      );

      writeFileSync(file, "{ not json");
      const json = JSON.parse((await doctor(["--json"])).stdout) as {
        ok: boolean;
        checks: Array<{ area: string; state: string; detail: string; fix?: string }>;
      };
      expect(json.ok).toBe(false);
      expect(json.checks.filter((c) => c.state === "fail")).toEqual([
        expect.objectContaining({
          area: "config",
          detail: expect.stringContaining(`${file} is not valid JSON`),
          fix: "Fix the JSON syntax or delete the file.",
        }),
      ]);
    },
  );
});
