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
