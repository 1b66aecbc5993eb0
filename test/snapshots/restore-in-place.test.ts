// A rewind makes a file the plan knows is missing in place (no temporary name, no rename):
// with its exact mode whatever the umask, and, when something is at that path after all (a
// file, or a symbolic link pointing out of the workspace), that is replaced, never written
// through.
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyOps, type RestoreOp, SnapshotStore } from "../../src/snapshots/index.js";

let base: string;
let ws: string;
let store: SnapshotStore;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "reson-restore-")));
  ws = join(base, "ws");
  mkdirSync(ws);
  mkdirSync(join(base, "home"));
  store = SnapshotStore.open(join(base, "home"), ws);
});

afterEach(() => {
  store.close();
  rmSync(base, { recursive: true, force: true });
});

/** A write of `bytes` at `path` with `mode`, the plan expecting nothing there. */
function missingWrite(path: string, bytes: string, mode: number): RestoreOp {
  const { hash } = store.objects.put(Buffer.from(bytes));
  const name = path.split("/").at(-1)!;
  return {
    action: "write",
    path,
    entry: { name, kind: "file", mode, hash, size: bytes.length },
    missing: true,
  };
}

describe("restoring a missing file", () => {
  it("makes it in place with its exact mode, in a folder made first", async () => {
    await applyOps(store.objects, ws, [
      { action: "mkdir", path: "d", entry: { name: "d", kind: "dir", mode: 0o755, hash: "", size: 0 } },
      missingWrite("d/run.sh", "#!/bin/sh\n", 0o777),
      missingWrite("d/private.txt", "mine\n", 0o600),
    ]);
    expect(readFileSync(join(ws, "d/run.sh"), "utf8")).toBe("#!/bin/sh\n");
    expect(lstatSync(join(ws, "d/run.sh")).mode & 0o7777).toBe(0o777);
    expect(lstatSync(join(ws, "d/private.txt")).mode & 0o7777).toBe(0o600);
    expect(readdirSync(join(ws, "d")).sort()).toEqual(["private.txt", "run.sh"]);
  });

  it("replaces a file that is there after all", async () => {
    writeFileSync(join(ws, "a.txt"), "someone's\n");
    await applyOps(store.objects, ws, [missingWrite("a.txt", "restored\n", 0o640)]);
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("restored\n");
    expect(lstatSync(join(ws, "a.txt")).mode & 0o7777).toBe(0o640);
    expect(readdirSync(ws)).toEqual(["a.txt"]);
  });

  it("replaces a symbolic link there, and never writes through it", async () => {
    const outside = join(base, "outside.txt");
    writeFileSync(outside, "outside\n");
    symlinkSync(outside, join(ws, "a.txt"));
    await applyOps(store.objects, ws, [missingWrite("a.txt", "restored\n", 0o644)]);
    expect(lstatSync(join(ws, "a.txt")).isFile()).toBe(true);
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("restored\n");
    expect(readFileSync(outside, "utf8")).toBe("outside\n");
  });
});
