// End to end through the CLI: a scripted `reson run` logs into a local shop with a password
// and a TOTP code, extracts its table and writes it to a file, with neither secret in any byte
// reson writes, prints or sends, and no process left behind; navigation needs a permission
// rule by domain; a run killed with SIGKILL leaves no Chromium; doctor reports the browser.
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli, tempDir } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import type { FakeReply } from "../support/fake-model-server.js";
import { runCliIsolated } from "../support/pid-namespace.js";
import { skipWithout } from "../support/requirements.js";
import { filesUnder, scanForSecret } from "../support/secret-scan.js";
import { lastToolText, refOf, startSite } from "./site.js";

const TOTP_SEED = "KRUGS4ZANFZSAYJAONSWG4TFOQQQ";

function canary(): string {
  return randomBytes(24)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, 28);
}

const call = (name: string, args: Record<string, unknown> = {}): FakeReply => ({
  toolCalls: [{ name, arguments: args }],
});

/** Processes whose command line mentions `marker` and that still run (not zombies). */
function processesMentioning(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
      if (cmdline.includes(marker) && state !== "Z") found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe.skipIf(await skipWithout("chromium", "browser from the CLI"))("browser from the CLI", () => {
  const f = useCliFixture();

  function configure(port: number, password: string): NodeJS.ProcessEnv {
    writeFileSync(
      join(f.home.path, "secrets.json"),
      JSON.stringify({
        [`http://127.0.0.1:${port}`]: {
          shop_password: { env: "SHOP_PASSWORD" },
          shop_2fa_code: { env: "SHOP_TOTP" },
        },
      }),
      { mode: 0o600 },
    );
    writeFileSync(
      join(f.home.path, "config.json"),
      JSON.stringify({ browser: { allowPrivateHosts: ["127.0.0.1"] } }),
    );
    return cleanEnv({ RESON_HOME: f.home.path, SHOP_PASSWORD: password, SHOP_TOTP: TOTP_SEED });
  }

  it("logs in with a password and TOTP code, extracts a table into a file, and leaks neither", async () => {
    const password = canary();
    const site = await startSite({ user: "alice", password, totpSeed: TOTP_SEED });
    const scratch = tempDir("reson-browser-tmp-");
    try {
      const port = Number(new URL(site.origin).port);
      const env = { ...configure(port, password), TMPDIR: scratch.path };
      const steps: Array<(page: string) => FakeReply> = [
        () => call("browser_navigate", { url: `${site.origin}/login` }),
        (page) => call("browser_type", { ref: refOf(page, /textbox "Username"/), text: "alice" }),
        (page) =>
          call("browser_type", {
            ref: refOf(page, /textbox "Password"/),
            text: "<secret>shop_password</secret>",
          }),
        (page) =>
          call("browser_type", {
            ref: refOf(page, /textbox "One-time code"/),
            text: "<secret>shop_2fa_code</secret>",
            submit: true,
          }),
        () => call("browser_extract", { query: "price stock" }),
        (extracted) => call("write_file", { path: "prices.md", content: extracted }),
      ];
      let next = 0;
      f.server.setResponder((request) => {
        const step = steps[next++];
        return step ? step(lastToolText(request.body)) : { text: "Wrote prices.md." };
      });
      const result = await runCliIsolated(
        [
          "run",
          "--json",
          ...fakeModelArgs(f.server),
          "--sandbox",
          "off",
          "--allow",
          "browser(domain:127.0.0.1)",
          "--allow",
          "browser_type",
          "log into the shop and save the price table to prices.md",
        ],
        f.home.path,
        { cwd: f.ws.path, env, timeoutMs: 60_000 },
      );
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const results = parseEvents(result.stdout).filter((e) => e.type === "tool_result");
      expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true, true]);
      const saved = readFileSync(join(f.ws.path, "prices.md"), "utf8");
      expect(saved).toContain("| Item | Price | Stock |");
      expect(saved).toContain("| Mug | 5.25 | 18 |");
      expect(site.received.some((r) => r.includes(`password=${password}`))).toBe(true);
      const findings = [password, TOTP_SEED].flatMap((value) =>
        scanForSecret(value, {
          stdout: result.stdout,
          stderr: result.stderr,
          "model requests": JSON.stringify(f.server.requests.map((r) => r.body)),
          ...filesUnder(f.home.path),
          ...filesUnder(f.ws.path),
        }),
      );
      expect(findings).toEqual([]);
      // Nothing still runs. Chromium's crash handler double-forks by design, so its exited
      // helpers are orphans that only the namespace's PID 1 can reap, and the test's PID 1
      // (reaper.mjs, Node) reaps only its own child: they show as zombies, holding nothing.
      expect(result.left.filter((process) => process.state !== "Z")).toEqual([]);
      // The run's browser profile went with the run.
      expect(readdirSync(scratch.path).filter((name) => name.startsWith("reson-browser-"))).toEqual([]);
    } finally {
      await site.close();
      scratch.remove();
    }
  }, 90_000);

  it("refuses navigation headless without a browser rule, naming the rule that allows it", async () => {
    const site = await startSite({ user: "alice", password: canary(), totpSeed: TOTP_SEED });
    try {
      const env = configure(Number(new URL(site.origin).port), "unused-password-123");
      f.server.enqueue(call("browser_navigate", { url: `${site.origin}/login` }), { text: "stopped" });
      const result = await runCli(["run", "--json", ...fakeModelArgs(f.server), "open the shop"], {
        cwd: f.ws.path,
        env,
        timeoutMs: 30_000,
      });
      const tool = parseEvents(result.stdout).find((e) => e.type === "tool_result");
      expect(tool).toMatchObject({ ok: false });
      expect(JSON.stringify(tool)).toContain("browser(domain:127.0.0.1)");
      expect(site.received).toEqual([]);
    } finally {
      await site.close();
    }
  }, 60_000);

  it("a run killed with SIGKILL leaves no Chromium behind", async () => {
    const site = await startSite({ user: "alice", password: canary(), totpSeed: TOTP_SEED });
    const scratch = tempDir("reson-browser-kill-");
    try {
      const env = {
        ...configure(Number(new URL(site.origin).port), "unused-password-123"),
        TMPDIR: scratch.path,
      };
      let next = 0;
      f.server.setResponder(() =>
        next++ === 0
          ? call("browser_navigate", { url: `${site.origin}/grow` })
          : { text: "late", delayMs: 60_000 },
      );
      let seen: number[] = [];
      const result = await runCli(
        ["run", "--json", ...fakeModelArgs(f.server), "--allow", "browser", "open the page"],
        {
          cwd: f.ws.path,
          env,
          timeoutMs: 60_000,
          onSpawn: (child) => {
            const poll = setInterval(() => {
              if (f.server.requests.length < 2) return;
              clearInterval(poll);
              seen = processesMentioning(scratch.path);
              child.kill("SIGKILL");
            }, 50);
          },
        },
      );
      expect(result.signal).toBe("SIGKILL");
      // Chromium was running with its profile in the run's temporary folder...
      expect(seen.length).toBeGreaterThan(0);
      // ...and goes with reson: its pipe to reson closed.
      const deadline = Date.now() + 20_000;
      let left = processesMentioning(scratch.path);
      while (left.length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        left = processesMentioning(scratch.path);
      }
      expect(left).toEqual([]);
    } finally {
      await site.close();
      scratch.remove();
    }
  }, 90_000);

  it("doctor names the Chromium it found and the version playwright-core is built for", async () => {
    const result = await runCli(["doctor", "--json"], {
      cwd: f.ws.path,
      env: cleanEnv({ RESON_HOME: f.home.path }),
      timeoutMs: 60_000,
    });
    const report = JSON.parse(result.stdout) as {
      checks: Array<{ area: string; state: string; detail: string }>;
    };
    const browser = report.checks.find((check) => check.area === "browser");
    expect(browser?.detail).toMatch(
      /^Chromium \d+\.\d+\.\d+\.\d+ at \/.+; playwright-core 1\.64\.1 is built for 156\./,
    );
  }, 90_000);
});
