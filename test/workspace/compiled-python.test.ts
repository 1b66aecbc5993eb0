// Which compiled Python files a call wrote or changed: the workspace is read once, and after
// each call the .pyc files that are new, or whose size, times, inode or mode changed (a time set
// back still changes the ctime), are removed; the user's own stay, and nothing outside the
// workspace or inside .git and the tool folders is touched.
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
