// What snapshots write stays readable and the same across versions: a folder's tree object is
// byte for byte the JSON of its rows (a folder's hash must not change with how it is written,
// or every snapshot would store every tree again), and a saved index of the older nested-row
// format is still used by a new process (nothing hashed again).
import { createHash } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SnapshotStore } from "../../src/snapshots/index.js";
import { ObjectStore } from "../../src/snapshots/object-store.js";
import type { TreeEntry } from "../../src/snapshots/types.js";

const base = mkdtempSync(join(tmpdir(), "reson-snap-formats-"));
afterAll(() => {
  for (const store of SnapshotStore.all(join(base, "home"))) store.close();
  rmSync(base, { recursive: true, force: true });
});

const CODES = { file: "f", dir: "d", link: "l", excluded: "x" } as const;

describe("snapshot formats", () => {
  it("writes a tree as exactly the JSON of its sorted rows, whatever the names hold", () => {
    const objects = new ObjectStore(join(base, "objects"));
    const hash = "ab".repeat(32);
    const entries: TreeEntry[] = [
      { name: 'quote " and \\ back', kind: "file", mode: 0o644, hash, size: 12 },
      { name: "tab\tnew\nline\u0001", kind: "link", mode: 0, hash, size: 0 },
      { name: "ünïcødé ☃ \ud83d\ude00", kind: "dir", mode: 0o755, hash, size: 0 },
      { name: "big.bin", kind: "excluded", mode: 0, hash: "", size: 3_000_000_000, reason: "too_large" },
      { name: "a", kind: "file", mode: 0o755, hash, size: 0 },
    ];
    const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const rows = sorted.map((entry) =>
      entry.reason
        ? [CODES[entry.kind], entry.mode, entry.hash, entry.size, entry.name, entry.reason]
        : [CODES[entry.kind], entry.mode, entry.hash, entry.size, entry.name],
    );
    const expected = Buffer.from(JSON.stringify(rows));
    const { hash: tree } = objects.putTree(entries);
    expect(tree).toBe(createHash("sha256").update(expected).digest("hex"));
    expect(readFileSync(objects.path(tree))).toEqual(expected);
    const fresh = new ObjectStore(join(base, "objects"));
    expect(fresh.tree(tree)).toEqual(sorted);
    expect(objects.putTree([]).hash).toBe(createHash("sha256").update("[]").digest("hex"));
  });

  it("uses a saved index of the nested-row format: a new process hashes nothing", async () => {
    const ws = join(base, "ws");
    const home = join(base, "home");
    const past = new Date(Date.now() - 60 * 60 * 1000);
    for (let i = 0; i < 6; i++) {
      mkdirSync(join(ws, `d${i % 2}`), { recursive: true });
      writeFileSync(join(ws, `d${i % 2}`, `f${i}.txt`), `file ${i}\n`);
      utimesSync(join(ws, `d${i % 2}`, `f${i}.txt`), past, past);
    }
    mkdirSync(home);
    const root = realpathSync(ws);
    let store = SnapshotStore.open(home, root);
    const first = await store.capture();
    expect(first.hashed).toBe(6);
    store.close();
    // The index (a journal line after one run) as the nested-row format wrote it.
    const journal = store.path("index-delta.jsonl");
    const saved = JSON.parse(readFileSync(journal, "utf8")) as {
      savedAt: number;
      flat: Array<string | number>;
      trees: string[];
    };
    expect(saved.flat).toHaveLength(6 * 8);
    const rows: Array<Array<string | number>> = [];
    for (let at = 0; at < saved.flat.length; at += 8) rows.push(saved.flat.slice(at, at + 8));
    writeFileSync(journal, `${JSON.stringify({ v: 2, savedAt: saved.savedAt, rows, trees: saved.trees })}\n`);
    store = SnapshotStore.open(home, root);
    const again = await store.capture();
    expect(again.hashed).toBe(0);
    expect(again.tree).toBe(first.tree);
  });
});
