// The sandbox probe: on this machine (and always in CI) it finds an enforced sandbox by really
// starting one; without bwrap, or with a bwrap that cannot make namespaces, it says NONE and
// how to fix it. A missing bwrap in CI fails here instead of skipping the sandbox suites.
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { probeSandbox } from "../../../src/workspace/exec-sandbox/probe.js";
import { noSandbox, status } from "./fixture.js";

const scratch = await mkdtemp(join(tmpdir(), "reson-probe-"));
afterAll(() => rm(scratch, { recursive: true, force: true }));

if (status.level !== "enforced") {
  const say = process.env.CI ? "FAILING (CI needs it)" : "SKIPPING";
  console.warn(`\n*** exec sandbox tests: ${say}: ${status.summary} ***\n`);
}

// Counted as a failed test when CI has no working bubblewrap (.ci/run must install it).
it.skipIf(!process.env.CI)("CI has an enforced command sandbox", () => {
  expect({ level: status.level, problems: status.problems }).toEqual({ level: "enforced", problems: [] });
});

describe.skipIf(noSandbox)("on this machine", () => {
  it("says what holds in one line", () => {
    expect(status.summary).toMatch(
      /^sandbox: enforced \(bwrap \d+\.\d+(\.\d+)?, seccomp, no network, private \/tmp; limits: .+\)$/,
    );
    expect(status.facts).toMatchObject({ userNamespaces: true, seccomp: true, landlock: "not used" });
  });

  it("as root, limits processes through a cgroup or says fork-bomb protection is missing", () => {
    if (!status.facts.root) return;
    if (status.facts.cgroup === "none") {
      expect(status.problems.map((p) => p.what).join("\n")).toContain("fork-bomb protection unavailable");
    } else {
      expect(status.facts).toMatchObject({ pidsLimit: "cgroup", memoryLimit: "cgroup" });
      expect(status.summary).toContain(`limits: pids+memory via cgroup ${status.facts.cgroup}`);
    }
  });

  it("is probed once per process unless forced", async () => {
    expect(await probeSandbox()).toBe(status);
    const again = await probeSandbox({ force: true });
    expect(again).not.toBe(status);
    expect(again.level).toBe("enforced");
  });
});

describe("without a usable bubblewrap", () => {
  it("reports NONE with the install command when bwrap is missing", async () => {
    const missing = await probeSandbox({ bwrapPath: join(scratch, "no-such-bwrap") });
    expect(missing.level).toBe("none");
    expect(missing.problems[0]).toMatchObject({ what: "bubblewrap is not installed" });
    expect(missing.problems[0]?.fix).toContain("apt-get install bubblewrap");
    expect(missing.summary).toMatch(
      /^sandbox: NONE — bubblewrap is not installed \(apt-get install bubblewrap/,
    );
  });

  it("names user namespaces, with a fix, when bwrap cannot create them", async () => {
    const fake = join(scratch, "bwrap");
    await writeFile(
      fake,
      "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'bubblewrap 0.8.0'; exit 0; }\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n",
    );
    await chmod(fake, 0o755);
    const denied = await probeSandbox({ bwrapPath: fake });
    expect(denied.level).toBe("none");
    expect(denied.facts).toMatchObject({ bwrapVersion: "0.8.0", userNamespaces: false });
    expect(denied.problems[0]?.what).toContain(
      "user namespaces are not allowed (setting up uid map: Permission denied)",
    );
    expect(denied.problems[0]?.fix).toMatch(/sysctl|security-opt/);
  });

  it("does not replace the cached status of the real probe", async () => {
    await probeSandbox({ bwrapPath: join(scratch, "no-such-bwrap") });
    expect((await probeSandbox()).level).toBe(status.level);
  });
});
