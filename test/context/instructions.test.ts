// Instruction files on real folders: AGENTS.md from $RESON_HOME and from the git root down
// to a nested workspace, SOUL.md and USER.md, budgets with a visible cut, and symlinks that
// try to leave the project.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cutMarker, cutMiddle, type InstructionFile, loadInstructions } from "../../src/context/index.js";
import { ResonError } from "../../src/core/errors.js";

let base: string;
let home: string;
let repo: string;
let workspace: string;

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

const summary = (files: InstructionFile[]) =>
  files.map((f) => `${f.kind}:${f.scope}:${f.path.slice(base.length)}`);

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "reson-instructions-")));
  home = join(base, "home");
  repo = join(base, "repo");
  workspace = join(repo, "packages", "app");
  await mkdir(home, { recursive: true });
  await mkdir(join(repo, ".git"), { recursive: true });
  await mkdir(workspace, { recursive: true });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("loadInstructions: where files are found", () => {
  it("reads AGENTS.md from $RESON_HOME, then the git root down to a nested workspace", async () => {
    await put(join(repo, "AGENTS.md"), "root rules");
    await put(join(repo, "packages", "AGENTS.md"), "packages rules");
    await put(join(workspace, "AGENTS.md"), "app rules");
    await put(join(home, "AGENTS.md"), "my own rules");
    await put(join(base, "AGENTS.md"), "above the git root: never read");

    const { files, warnings } = await loadInstructions({ workspaceRoot: workspace, home });
    expect(summary(files)).toEqual([
      "agents:user:/home/AGENTS.md",
      "agents:project:/repo/AGENTS.md",
      "agents:project:/repo/packages/AGENTS.md",
      "agents:project:/repo/packages/app/AGENTS.md",
    ]);
    expect(files.map((f) => f.text)).toEqual(["my own rules", "root rules", "packages rules", "app rules"]);
    expect(files.every((f) => !f.truncated && f.rawChars === f.text.length)).toBe(true);
    expect(warnings).toEqual([]);
  });

  it("takes a .git file (a worktree) as the git root too", async () => {
    await rm(join(repo, ".git"), { recursive: true });
    await put(join(repo, ".git"), "gitdir: /elsewhere/.git/worktrees/app\n");
    await put(join(repo, "AGENTS.md"), "root rules");
    const { files } = await loadInstructions({ workspaceRoot: workspace, home });
    expect(summary(files)).toEqual(["agents:project:/repo/AGENTS.md"]);
  });

  it("without a git root reads only the workspace's own AGENTS.md", async () => {
    await rm(join(repo, ".git"), { recursive: true });
    await put(join(repo, "AGENTS.md"), "an ancestor that is not a repository");
    await put(join(workspace, "AGENTS.md"), "app rules");
    const { files } = await loadInstructions({ workspaceRoot: workspace, home });
    expect(summary(files)).toEqual(["agents:project:/repo/packages/app/AGENTS.md"]);
  });

  it("reads CLAUDE.md in place of a missing AGENTS.md, never beside one", async () => {
    await put(join(repo, "CLAUDE.md"), "root, written for Claude Code");
    await put(join(workspace, "AGENTS.md"), "app rules");
    await put(join(workspace, "CLAUDE.md"), "app rules again, for Claude Code");
    const { files } = await loadInstructions({ workspaceRoot: workspace, home });
    expect(summary(files)).toEqual([
      "agents:project:/repo/CLAUDE.md",
      "agents:project:/repo/packages/app/AGENTS.md",
    ]);
  });

  it("takes the workspace's SOUL.md over $RESON_HOME's, and both USER.md files, home first", async () => {
    await put(join(home, "SOUL.md"), "a calm persona");
    await put(join(workspace, "SOUL.md"), "this project's persona");
    await put(join(home, "USER.md"), "- Prefer short answers.");
    await put(join(workspace, "USER.md"), "- In this project, explain migrations.");
    const { files } = await loadInstructions({ workspaceRoot: workspace, home });
    expect(summary(files)).toEqual([
      "soul:project:/repo/packages/app/SOUL.md",
      "user:user:/home/USER.md",
      "user:project:/repo/packages/app/USER.md",
    ]);

    await rm(join(workspace, "SOUL.md"));
    const again = await loadInstructions({ workspaceRoot: workspace, home });
    expect(summary(again.files)[0]).toBe("soul:user:/home/SOUL.md");
  });

  it("skips missing and empty files without a warning, and a missing $RESON_HOME", async () => {
    await put(join(repo, "AGENTS.md"), "");
    await put(join(workspace, "AGENTS.md"), "  \n\n\t\n");
    await put(join(workspace, "SOUL.md"), "");
    const nowhere = await loadInstructions({ workspaceRoot: workspace, home: join(base, "no-such-home") });
    expect(nowhere).toEqual({ files: [], warnings: [] });
  });

  it("normalises line ends, a BOM and trailing whitespace, so the text is the same on every machine", async () => {
    await put(join(workspace, "AGENTS.md"), "\uFEFF# Rules\r\n\r\n- one\r\n- two\r\n\r\n  ");
    const { files } = await loadInstructions({ workspaceRoot: workspace, home });
    expect(files[0]?.text).toBe("# Rules\n\n- one\n- two");
  });

  it("stops when the signal is aborted", async () => {
    await put(join(workspace, "AGENTS.md"), "app rules");
    const controller = new AbortController();
    controller.abort();
    const loading = loadInstructions({ workspaceRoot: workspace, home, signal: controller.signal });
    await expect(loading).rejects.toBeInstanceOf(ResonError);
    await expect(loading).rejects.toMatchObject({ code: "aborted" });
  });
});

describe("loadInstructions: symlinks", () => {
  it("refuses a project file that links outside the project, with a warning", async () => {
    const secret = join(base, "outside", "id_rsa");
    await put(secret, "TOP-SECRET-CANARY");
    await symlink(secret, join(workspace, "AGENTS.md"));
    await symlink(secret, join(workspace, "USER.md"));
    const { files, warnings } = await loadInstructions({ workspaceRoot: workspace, home });
    expect(files).toEqual([]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain("outside");
    expect(JSON.stringify(files)).not.toContain("CANARY");
  });

  it("refusing AGENTS.md does not fall back to CLAUDE.md at that level", async () => {
    await put(join(base, "outside", "x.md"), "outside");
    await symlink(join(base, "outside", "x.md"), join(workspace, "AGENTS.md"));
    await put(join(workspace, "CLAUDE.md"), "fallback");
    const { files, warnings } = await loadInstructions({ workspaceRoot: workspace, home });
    expect(files).toEqual([]);
    expect(warnings).toHaveLength(1);
  });

  it("follows a link that stays inside the project, and reads a file reached twice only once", async () => {
    await put(join(repo, "docs", "agents.md"), "shared rules");
    await symlink(join(repo, "docs", "agents.md"), join(repo, "AGENTS.md"));
    await symlink("../../AGENTS.md", join(workspace, "AGENTS.md"));
    const { files, warnings } = await loadInstructions({ workspaceRoot: workspace, home });
    expect(summary(files)).toEqual(["agents:project:/repo/AGENTS.md"]);
    expect(files[0]?.text).toBe("shared rules");
    expect(warnings).toEqual([]);
  });

  it("follows links in $RESON_HOME anywhere (the user's own dotfiles)", async () => {
    await put(join(base, "dotfiles", "AGENTS.md"), "from my dotfiles");
    await symlink(join(base, "dotfiles", "AGENTS.md"), join(home, "AGENTS.md"));
    const { files } = await loadInstructions({ workspaceRoot: workspace, home });
    expect(files.map((f) => f.text)).toEqual(["from my dotfiles"]);
  });

  it("refuses a folder named AGENTS.md", async () => {
    await mkdir(join(workspace, "AGENTS.md"));
    const { files, warnings } = await loadInstructions({ workspaceRoot: workspace, home });
    expect(files).toEqual([]);
    expect(warnings[0]).toContain("not a regular file");
  });
});

describe("loadInstructions: budgets", () => {
  const lines = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, i) => `${prefix} rule ${String(i).padStart(4, "0")}: keep it.`).join(
      "\n",
    );

  it("cuts an oversized AGENTS.md in the middle with a marker and a warning", async () => {
    const text = lines("agents", 1500); // ~37,000 characters, over the 20,000 default
    await put(join(workspace, "AGENTS.md"), text);
    const { files, warnings } = await loadInstructions({ workspaceRoot: workspace, home });
    const file = files[0]!;
    expect(file.truncated).toBe(true);
    expect(file.rawChars).toBe(text.length);
    expect(file.text.length).toBeLessThanOrEqual(20_000);
    expect(file.text.length).toBeGreaterThan(19_000);
    expect(file.text.startsWith("agents rule 0000: keep it.\n")).toBe(true);
    expect(file.text.endsWith("agents rule 1499: keep it.")).toBe(true);
    const marker = file.text.match(/\[… (\d+) characters cut from (.+); read the file for the rest …\]/);
    expect(marker?.[2]).toBe(join(workspace, "AGENTS.md"));
    expect(file.text.length - marker![0].length - 2 + Number(marker![1])).toBe(text.length);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(join(workspace, "AGENTS.md"));
    expect(warnings[0]).toContain("20000");
  });

  it("takes per-kind budgets from the caller", async () => {
    await put(join(workspace, "AGENTS.md"), lines("agents", 40));
    await put(join(home, "USER.md"), lines("user", 40));
    const { files, warnings } = await loadInstructions({
      workspaceRoot: workspace,
      home,
      budgets: { agents: 500, user: 300 },
    });
    expect(
      files.map((f) => [f.kind, f.truncated, f.text.length <= (f.kind === "agents" ? 500 : 300)]),
    ).toEqual([
      ["agents", true, true],
      ["user", true, true],
    ]);
    expect(warnings).toHaveLength(2);
  });

  it("shares the total between files: the small ones whole, the large ones cut to an equal share", async () => {
    await put(join(home, "AGENTS.md"), lines("home", 200)); // ~4,800 characters
    await put(join(repo, "AGENTS.md"), lines("root", 200));
    await put(join(workspace, "AGENTS.md"), lines("app", 20)); // ~500 characters
    const { files, warnings } = await loadInstructions({
      workspaceRoot: workspace,
      home,
      budgets: { total: 4_500 },
    });
    const [homeFile, rootFile, appFile] = files;
    expect(appFile?.truncated).toBe(false);
    expect(homeFile?.truncated).toBe(true);
    expect(rootFile?.truncated).toBe(true);
    const total = files.reduce((sum, f) => sum + f.text.length, 0);
    expect(total).toBeLessThanOrEqual(4_500);
    expect(Math.abs(homeFile!.text.length - rootFile!.text.length)).toBeLessThan(100);
    expect(warnings.every((w) => w.includes("4500-character total"))).toBe(true);
  });
});

describe("cutMiddle", () => {
  it("keeps a head and a tail of the text within the budget, and says how much it cut", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 3000 }),
        fc.integer({ min: 150, max: 4000 }),
        (text, budget) => {
          const cut = cutMiddle(text, budget, "/w/AGENTS.md");
          if (text.length <= budget) {
            expect(cut).toEqual({ text, cutChars: 0 });
            return;
          }
          expect(cut.text.length).toBeLessThanOrEqual(budget);
          const marker = cutMarker(cut.cutChars, "/w/AGENTS.md");
          const at = cut.text.indexOf(marker);
          expect(at).toBeGreaterThanOrEqual(0);
          const head = cut.text.slice(0, Math.max(0, at - 1));
          const tail = cut.text.slice(at + marker.length + 1);
          expect(text.startsWith(head)).toBe(true);
          expect(text.endsWith(tail)).toBe(true);
          expect(head.length + tail.length + cut.cutChars).toBe(text.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("never splits a surrogate pair", () => {
    const text = "😀".repeat(500);
    const cut = cutMiddle(text, 301, "f");
    expect(cut.text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    expect(cut.cutChars % 2).toBe(0);
  });
});
