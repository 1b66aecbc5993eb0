// The fast paths of workspace snapshots and their fallbacks, through the snapshots module's
// surface: a new process (a store closed and opened again) hashes only what its saved index
// does not vouch for, and falls back to hashing when the index is damaged, void after a sweep,
// or the facts of a file differ in any way; objects the process knows are stored are not
// looked up again, unless a sweep ran; the change watcher's report is used only while it can
// be trusted, and a snapshot after more events than that walks and still sees every change.
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { diffTrees, SnapshotStore, sweep } from "../../src/snapshots/index.js";

/** An hour ago: facts old enough that a hash taken now is trusted (not racy). */
const PAST = new Date(Date.now() - 60 * 60 * 1000);

let base: string;
let ws: string;
let home: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "reson-snap-fast-"));
  ws = join(base, "ws");
  home = join(base, "home");
  mkdirSync(ws);
  mkdirSync(home);
  ws = realpathSync(ws);
  for (let i = 0; i < 30; i++) put(`src/m${i % 3}/f${i}.txt`, `file ${i}\n`);
});

afterEach(() => {
  for (const store of SnapshotStore.all(home)) store.close();
  rmSync(base, { recursive: true, force: true });
});

/** Writes a file with an old mtime, as a file changed a while ago. */
function put(path: string, content: string): void {
  mkdirSync(join(ws, path, ".."), { recursive: true });
  writeFileSync(join(ws, path), content);
  utimesSync(join(ws, path), PAST, PAST);
}

/** A store as a new process sees it: the one this process had is closed (its index saved). */
function reopen(store?: SnapshotStore): SnapshotStore {
  store?.close();
  return SnapshotStore.open(home, ws);
}

/** The entry at `path` (a/b/c) in the tree `root`. */
function entryAt(store: SnapshotStore, root: string, path: string) {
  let tree = root;
  const names = path.split("/");
  for (const [i, name] of names.entries()) {
    const entry = store.objects.tree(tree).find((candidate) => candidate.name === name);
    if (!entry || i === names.length - 1) return entry;
    tree = entry.hash;
  }
  return undefined;
}

function changedPaths(store: SnapshotStore, from: string, to: string): string[] {
  return diffTrees(store.objects, from, to)
    .map((change) => `${change.change} ${change.path}`)
    .sort();
}

describe("workspace snapshots' fast paths", () => {
  it("a new process hashes only the files changed since the last run saved its index", async () => {
    let store = reopen();
    const first = await store.capture();
    expect(first.hashed).toBe(30);
    put("src/m0/f0.txt", "changed in the run\n");
    const inRun = await store.capture();
    expect(inRun.mode).toBe("watch");
    store.saveIndex();

    store = reopen(store);
    const again = await store.capture();
    expect(again).toMatchObject({ tree: inRun.tree, mode: "walk", hashed: 0 });

    // Between processes: one file changed, one added, one removed.
    put("src/m1/f1.txt", "changed while no reson ran\n");
    put("src/m2/new.txt", "added\n");
    unlinkSync(join(ws, "src/m2/f2.txt"));
    store = reopen(store);
    const later = await store.capture();
    expect(later.hashed).toBe(2);
    expect(changedPaths(store, inRun.tree, later.tree)).toEqual([
      "added src/m2/new.txt",
      "deleted src/m2/f2.txt",
      "modified src/m1/f1.txt",
    ]);
  });

  it("a file rewritten between processes with the same size and mtime is hashed again (its ctime moved)", async () => {
    let store = reopen();
    const first = await store.capture();
    store.saveIndex();
    const before = statSync(join(ws, "src/m0/f3.txt"));
    // Same length, same mtime put back: only the ctime (and the bytes) tell.
    writeFileSync(join(ws, "src/m0/f3.txt"), "FILE 3\n");
    utimesSync(join(ws, "src/m0/f3.txt"), before.atime, before.mtime);
    expect(statSync(join(ws, "src/m0/f3.txt")).size).toBe(before.size);
    store = reopen(store);
    const later = await store.capture();
    expect(later.hashed).toBe(1);
    expect(changedPaths(store, first.tree, later.tree)).toEqual(["modified src/m0/f3.txt"]);
  });

  it("a damaged index journal or base costs hashing, never a wrong snapshot", async () => {
    let store = reopen();
    const first = await store.capture();
    store.saveIndex();
    put("src/m1/f4.txt", "changed\n");
    const changed = await store.capture();
    store.close();
    // A process killed while appending its line leaves half of it; a broken disk, a broken base.
    const journal = store.path("index-delta.jsonl");
    const [whole, last] = readFileSync(journal, "utf8").trim().split("\n");
    writeFileSync(journal, `${whole}\n${last!.slice(0, last!.length >> 1)}`);
    appendFileSync(journal, "\n");
    writeFileSync(store.path("index.json"), "{not json");
    store = reopen();
    const again = await store.capture();
    expect(again.tree).toBe(changed.tree);
    expect(changedPaths(store, first.tree, again.tree)).toEqual(["modified src/m1/f4.txt"]);
    // The whole line vouches for the other 29 files; the changed one is hashed again.
    expect(again.hashed).toBe(1);
  });

  it("after a sweep the saved index is void: every file is hashed again and every object is there", async () => {
    let store = reopen();
    await store.capture();
    store.saveIndex();
    sweep(store);
    store = reopen(store);
    const again = await store.capture();
    expect(again.hashed).toBe(30);
    for (let i = 0; i < 30; i++) {
      const entry = entryAt(store, again.tree, `src/m${i % 3}/f${i}.txt`)!;
      expect(store.objects.get(entry.hash).toString()).toBe(`file ${i}\n`);
    }
  });

  it("an object a sweep in another process removed is written again, not taken as known", async () => {
    const store = reopen();
    const first = await store.capture();
    const file = entryAt(store, first.tree, "src/m0/f0.txt")!;
    put("src/m0/f0.txt", "something else\n");
    await store.capture();
    // Another process's sweep: the first content's object gone, the workspace's facts say so.
    unlinkSync(store.objects.path(file.hash));
    store.writeFacts({ ...store.facts(), sweptAt: Date.now() });
    put("src/m0/f0.txt", "file 0\n");
    const back = await store.capture();
    expect(changedPaths(store, first.tree, back.tree)).toEqual([]);
    expect(store.objects.get(file.hash).toString()).toBe("file 0\n");
  });

  it("a store opened again in the same process (or after a sweep elsewhere) puts each change in its own snapshot", async () => {
    // A watch set up again on a folder can be handed events queued before it: none may
    // answer for a later snapshot, or every snapshot would lag one change behind.
    let store = reopen();
    for (let cycle = 0; cycle < 3; cycle++) {
      let tree = (await store.capture()).tree;
      for (let i = 0; i < 3; i++) {
        const path = `src/m${i}/f${cycle * 3 + i}.txt`;
        put(path, `cycle ${cycle} step ${i}\n`);
        const next = await store.capture();
        expect(next.mode).toBe("watch");
        expect(changedPaths(store, tree, next.tree)).toEqual([`modified ${path}`]);
        tree = next.tree;
      }
      if (cycle === 0) store = reopen(store);
      // Another process's sweep: this one forgets its model and watches everything again.
      else store.writeFacts({ ...store.facts(), sweptAt: Date.now() });
    }
  });

  it("after more events than the watcher can vouch for, a snapshot walks and sees every change", async () => {
    const store = reopen();
    await store.capture();
    // 4,400 events (a create and a delete each), then one real change among them.
    mkdirSync(join(ws, "churn"));
    const churn = await store.capture();
    for (let i = 0; i < 2200; i++) writeFileSync(join(ws, "churn", `t${i}`), "");
    for (let i = 0; i < 2200; i++) unlinkSync(join(ws, "churn", `t${i}`));
    put("src/m2/f5.txt", "changed among the noise\n");
    const after = await store.capture();
    expect(after.mode).toBe("walk");
    expect(changedPaths(store, churn.tree, after.tree)).toEqual(["modified src/m2/f5.txt"]);
    // And the watcher is trusted again for the next one.
    put("src/m0/f6.txt", "one more\n");
    const next = await store.capture();
    expect(next.mode).toBe("watch");
    expect(changedPaths(store, churn.tree, next.tree)).toEqual([
      "modified src/m0/f6.txt",
      "modified src/m2/f5.txt",
    ]);
  });
});
