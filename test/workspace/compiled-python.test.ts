// Which compiled Python files a call wrote or changed: the workspace is read once, and after
// each call the .pyc files that are new, or whose size, times, inode or mode changed (a time set
// back still changes the ctime), are removed, and so are the extension modules (`mod.so`,
// `mod.<tag>.so`) new or changed since that first look that Python imports in place of a
// `mod.py` beside them; the user's own stay, and nothing outside the workspace or inside .git and
// the tool folders is touched.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CompiledPythonFiles } from "../../src/workspace/index.js";

describe("compiled Python files a call wrote", () => {
  let base: string;
  let root: string;
  let files: CompiledPythonFiles;
  const write = (path: string, content = "compiled") => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  const has = (path: string) => existsSync(join(root, path));

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), "reson-pyc-")));
    root = join(base, "ws");
    mkdirSync(root);
    write("pkg/mod.py", "VALUE = 1\n");
    write("pkg/__pycache__/mod.cpython-312.pyc", "the user's own");
    write("tools/run.py", "");
    files = new CompiledPythonFiles(root);
    files.lookOnce();
  });
  afterEach(() => {
    chmodSync(root, 0o755);
    rmSync(base, { recursive: true, force: true });
  });

  it("leaves the files that were there before and not changed", () => {
    write("notes.txt", "a call that wrote something else");
    expect(files.removeChanged()).toEqual({ removed: [], failed: [] });
    expect(has("pkg/__pycache__/mod.cpython-312.pyc")).toBe(true);
  });

  it("removes a file rewritten in place with its old times set back", () => {
    const path = join(root, "pkg/__pycache__/mod.cpython-312.pyc");
    writeFileSync(path, "planted!!!!!!!");
    utimesSync(path, new Date("2001-01-01"), new Date("2001-01-01"));
    expect(files.removeChanged().removed).toEqual(["pkg/__pycache__/mod.cpython-312.pyc"]);
    expect(has("pkg/__pycache__/mod.cpython-312.pyc")).toBe(false);
    // Looked at as it is now: the next call starts from here.
    expect(files.removeChanged()).toEqual({ removed: [], failed: [] });
  });

  it("removes new caches in new folders, sourceless files and one moved in from a tool folder", () => {
    write("tools/__pycache__/run.cpython-312.pyc");
    write("lib/deep/helper.pyc");
    write("node_modules/x/__pycache__/y.cpython-312.pyc");
    write(".venv/lib/site.pyc");
    write(".git/x.pyc");
    expect(files.removeChanged().removed).toEqual([
      "lib/deep/helper.pyc",
      "tools/__pycache__/run.cpython-312.pyc",
    ]);
    // The tool folders and .git are not looked into; what leaves them is.
    renameSync(join(root, "node_modules/x/__pycache__"), join(root, "pkg/__pycache__2"));
    renameSync(
      join(root, "pkg/__pycache__2/y.cpython-312.pyc"),
      join(root, "pkg/__pycache__/y.cpython-312.pyc"),
    );
    expect(files.removeChanged().removed).toEqual(["pkg/__pycache__/y.cpython-312.pyc"]);
    expect(has(".venv/lib/site.pyc")).toBe(true);
    expect(has(".git/x.pyc")).toBe(true);
    expect(has("pkg/__pycache__/mod.cpython-312.pyc")).toBe(true);
  });

  it("removes a folder renamed into place with the files it holds", () => {
    write("staging/__pycache__/mod.cpython-312.pyc", "planted");
    files = new CompiledPythonFiles(root);
    files.lookOnce();
    rmSync(join(root, "pkg/__pycache__"), { recursive: true });
    renameSync(join(root, "staging/__pycache__"), join(root, "pkg/__pycache__"));
    expect(files.removeChanged().removed).toEqual(["pkg/__pycache__/mod.cpython-312.pyc"]);
  });

  it("removes a link whose target the call changed, and never follows a link out", () => {
    write("data/blob.bin", "old");
    symlinkSync(join(root, "data/blob.bin"), join(root, "pkg/__pycache__/link.cpython-312.pyc"));
    files = new CompiledPythonFiles(root);
    files.lookOnce();
    writeFileSync(join(root, "data/blob.bin"), "planted");
    expect(files.removeChanged().removed).toEqual(["pkg/__pycache__/link.cpython-312.pyc"]);
    expect(has("data/blob.bin")).toBe(true);
    // A folder swapped for a link out of the workspace: what is outside is not the workspace's.
    const outside = join(base, "outside");
    mkdirSync(join(outside, "__pycache__"), { recursive: true });
    writeFileSync(join(outside, "__pycache__", "mod.cpython-312.pyc"), "the user's elsewhere");
    rmSync(join(root, "pkg"), { recursive: true });
    symlinkSync(outside, join(root, "pkg"));
    expect(files.removeChanged()).toEqual({ removed: [], failed: [] });
    expect(existsSync(join(outside, "__pycache__", "mod.cpython-312.pyc"))).toBe(true);
  });

  it("removes an extension module the call built beside a .py of the same name, whatever its tag", () => {
    write("pkg/mod.cpython-311-x86_64-linux-gnu.so", "planted");
    write("lib/a.py");
    write("lib/a.abi3.so");
    write("lib/b.py");
    write("lib/b.so");
    write("lib/__init__.py");
    write("lib/__init__.cpython-312-x86_64-linux-gnu.so");
    // Not an extension of `c`, and one with no source beside it: may be the user's build.
    write("lib/c.py");
    write("lib/c.x.y.so");
    write("lib/.so");
    write("lib/d.so");
    write("lib/libe.so");
    expect(files.removeChanged()).toEqual({
      removed: [
        "lib/__init__.cpython-312-x86_64-linux-gnu.so",
        "lib/a.abi3.so",
        "lib/b.so",
        "pkg/mod.cpython-311-x86_64-linux-gnu.so",
      ],
      failed: [],
    });
    expect(has("pkg/mod.py")).toBe(true);
    for (const kept of ["lib/c.x.y.so", "lib/.so", "lib/d.so", "lib/libe.so"]) expect(has(kept)).toBe(true);
    expect(files.removeChanged()).toEqual({ removed: [], failed: [] });
  });

  it("leaves the user's extension module beside its source, and removes it once a call rewrote it", () => {
    write("pkg/fast.py");
    write("pkg/fast.cpython-311-x86_64-linux-gnu.so", "the user's build");
    files = new CompiledPythonFiles(root);
    files.lookOnce();
    write("notes.txt");
    expect(files.removeChanged()).toEqual({ removed: [], failed: [] });
    const path = join(root, "pkg/fast.cpython-311-x86_64-linux-gnu.so");
    writeFileSync(path, "planted build");
    utimesSync(path, new Date("2001-01-01"), new Date("2001-01-01"));
    expect(files.removeChanged().removed).toEqual(["pkg/fast.cpython-311-x86_64-linux-gnu.so"]);
    expect(has("pkg/fast.py")).toBe(true);
  });

  it("keeps an extension module beside a package, which Python imports first, but not beside a bare folder", () => {
    write("app/thing.py");
    write("app/thing/__init__.py");
    write("app/thing.so");
    write("app/space.py");
    write("app/space/data.txt");
    write("app/space.abi3.so");
    expect(files.removeChanged().removed).toEqual(["app/space.abi3.so"]);
    expect(has("app/thing.so")).toBe(true);
  });

  it("removes an extension module once a later call brings back the source an earlier one moved away", () => {
    renameSync(join(root, "pkg/mod.py"), join(base, "mod.py"));
    write("pkg/mod.cpython-311-x86_64-linux-gnu.so", "planted");
    expect(files.removeChanged()).toEqual({ removed: [], failed: [] });
    renameSync(join(base, "mod.py"), join(root, "pkg/mod.py"));
    expect(files.removeChanged().removed).toEqual(["pkg/mod.cpython-311-x86_64-linux-gnu.so"]);
  });

  // As root, permissions do not hide a listing (from reson or Python): nothing to show there.
  it.skipIf(process.getuid?.() === 0)(
    "finds a file in a cache folder the call made unlistable, and removes it from a read-only one",
    () => {
      writeFileSync(join(root, "pkg/__pycache__/mod.cpython-312.pyc"), "planted");
      write("lib/__pycache__/x.cpython-312.pyc");
      chmodSync(join(root, "pkg/__pycache__"), 0o100);
      chmodSync(join(root, "lib/__pycache__"), 0o500);
      expect(files.removeChanged().removed).toEqual([
        "lib/__pycache__/x.cpython-312.pyc",
        "pkg/__pycache__/mod.cpython-312.pyc",
      ]);
      expect(has("lib/__pycache__/x.cpython-312.pyc")).toBe(false);
      chmodSync(join(root, "lib/__pycache__"), 0o755);
    },
  );
});
