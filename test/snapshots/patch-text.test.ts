// Diffs of snapshots stay cheap on any content: a change too large for a line-by-line diff is a
// whole replacement (said in a note), and every patch applies with git to give the new bytes.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ObjectStore } from "../../src/snapshots/object-store.js";
import { patchText } from "../../src/snapshots/patch-text.js";
import type { PathChange, TreeEntry } from "../../src/snapshots/types.js";

const dir = mkdtempSync(join(tmpdir(), "reson-patch-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const objects = new ObjectStore(join(dir, "objects"));

function entry(name: string, text: string): TreeEntry {
  const { hash } = objects.put(Buffer.from(text));
  return { name, kind: "file", mode: 0o644, hash, size: Buffer.byteLength(text) };
}

/** Applies `patch` with git to a folder holding `path` with `before`; the bytes git leaves there. */
function applied(path: string, before: string | undefined, patch: string): string {
  const work = mkdtempSync(join(dir, "apply-"));
  mkdirSync(join(work, "src"), { recursive: true });
  if (before !== undefined) writeFileSync(join(work, path), before);
  writeFileSync(join(work, "change.patch"), patch);
  execFileSync("git", ["apply", "--unsafe-paths", "change.patch"], { cwd: work, stdio: "pipe" });
  return readFileSync(join(work, path), "utf8");
}

const lines = (seed: string, count: number, last = "\n") =>
  Array.from({ length: count }, (_, i) => `line ${seed} ${i}`).join("\n") + last;

describe("patchText", () => {
  it("shows a rewrite of 5,000 unlike lines as a whole replacement that git applies", async () => {
    // The line diff alone takes seconds here (minutes at 1 MB) on the thread serving everyone.
    const before = lines("old", 5000);
    const after = lines("new", 5000, "");
    const change: PathChange = {
      path: "src/big.txt",
      change: "modified",
      before: entry("big.txt", before),
      after: entry("big.txt", after),
    };
    const patch = await patchText(objects, [change]);
    const text = patch.split("\n");
    expect(text[0]).toBe(
      "# src/big.txt: too many changes for a line-by-line diff: shown as a whole replacement",
    );
    expect(text[1]).toBe("diff --git a/src/big.txt b/src/big.txt");
    expect(text).toContain("@@ -1,5000 +1,5000 @@");
    expect(text.filter((line) => line.startsWith("-line old"))).toHaveLength(5000);
    expect(text.filter((line) => line.startsWith("+line new"))).toHaveLength(5000);
    expect(text).toContain("\\ No newline at end of file");
    expect(applied("src/big.txt", before, patch)).toBe(after);
  });

  it("keeps a line-by-line diff for an ordinary change, and for a new file", async () => {
    const before = lines("same", 3000);
    const after = before.replace("line same 1500\n", "line changed 1500\n");
    const patch = await patchText(objects, [
      { path: "src/a.txt", change: "modified", before: entry("a.txt", before), after: entry("a.txt", after) },
      { path: "src/new.txt", change: "added", after: entry("new.txt", "one\ntwo\n") },
    ]);
    expect(patch).not.toContain("whole replacement");
    expect(patch).toContain(
      "@@ -1498,7 +1498,7 @@\n line same 1497\n line same 1498\n line same 1499\n-line same 1500\n+line changed 1500\n",
    );
    expect(patch).toContain("--- /dev/null\n+++ b/src/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n");
    expect(applied("src/a.txt", before, patch)).toBe(after);
  });
});
