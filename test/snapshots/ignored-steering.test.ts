// What a call in an untrusted run copies before it runs from the folders snapshots leave out
// (ignored ones): the steering files inside them, at any depth, and a steering folder whole;
// not the folders package managers and tools fill (node_modules, .venv), where no run starts
// and which may hold tens of thousands of folders.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { copyIgnoredSteering } from "../../src/snapshots/ignored-steering.js";
import { ObjectStore } from "../../src/snapshots/object-store.js";

const base = mkdtempSync(join(tmpdir(), "reson-ignored-steering-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const root = join(base, "ws");
const objects = new ObjectStore(join(base, "objects"));

function write(path: string, text = "x\n"): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

describe("steering files inside ignored folders", () => {
  it("are copied at any depth, but not inside package managers' and tools' folders", () => {
    write("build/out/AGENTS.md");
    write("build/out/notes.txt");
    write("vendor/lib/.claude/skills/s/SKILL.md");
    write("vendor/lib/.claude/skills/s/helper.sh");
    write("node_modules/pkg/AGENTS.md");
    write("vendor/lib/node_modules/dep/CLAUDE.md");
    write(".venv/lib/AGENTS.md");
    const copies = copyIgnoredSteering(root, ["build", "vendor", "node_modules", ".venv"], {
      objects,
      maxFileBytes: 1024 * 1024,
    });
    expect([...copies.keys()].sort()).toEqual([
      "build/out/AGENTS.md",
      "vendor/lib/.claude/skills/s/SKILL.md",
      "vendor/lib/.claude/skills/s/helper.sh",
    ]);
  });
});
