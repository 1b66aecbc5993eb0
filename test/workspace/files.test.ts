import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ResonError } from "../../src/core/errors.js";
import { Workspace } from "../../src/workspace/index.js";
import { makeTempLayout, type TempLayout } from "./temp-dirs.js";

let layout: TempLayout;
let ws: Workspace;

beforeEach(async () => {
  layout = await makeTempLayout();
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

describe("reading text", () => {
  it("reads a UTF-8 file and keeps a byte-order mark", async () => {
    await layout.write({ "a.txt": "\uFEFFhéllo\n" });
    const file = await ws.readText("a.txt");
    expect(file).toMatchObject({ path: "a.txt", text: "\uFEFFhéllo\n", bytes: 10 });
  });

  it("refuses a binary file with a clear error", async () => {
    await layout.write({
      "img.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
    });
    const error = await errorOf(ws.readText("img.png"));
    expect(error.code).toBe("file_binary");
    expect(error.message).toContain("img.png");
  });

  it("refuses a file over the size cap", async () => {
    await layout.write({ "big.txt": "x".repeat(2000) });
    const error = await errorOf(ws.readText("big.txt", { maxBytes: 1000 }));
    expect(error.code).toBe("file_too_large");
    expect(error.hint).toContain("grep");
  });

  it("says a missing file does not exist, and a directory is not a file", async () => {
    expect((await errorOf(ws.readText("nope.txt"))).code).toBe("file_not_found");
    await mkdir(join(layout.root, "dir"));
    expect((await errorOf(ws.readText("dir"))).code).toBe("not_a_file");
  });

  it("ends with aborted when the signal is already aborted", async () => {
    await layout.write({ "a.txt": "x" });
    const controller = new AbortController();
    controller.abort();
    expect((await errorOf(ws.readText("a.txt", { signal: controller.signal }))).code).toBe("aborted");
  });
});

describe("writing text", () => {
  it("creates missing parent folders inside the root", async () => {
    const result = await ws.writeText("a/b/c.txt", "deep\n");
    expect(result).toEqual({ path: "a/b/c.txt", bytes: 5, created: true });
    expect(await readFile(join(layout.root, "a/b/c.txt"), "utf8")).toBe("deep\n");
  });

  it("replaces a file and keeps its mode", async () => {
    await layout.write({ "run.sh": "old" });
    await chmod(join(layout.root, "run.sh"), 0o755);
    const result = await ws.writeText("run.sh", "new");
    expect(result.created).toBe(false);
    expect((await stat(join(layout.root, "run.sh"))).mode & 0o777).toBe(0o755);
    expect(await readFile(join(layout.root, "run.sh"), "utf8")).toBe("new");
  });

  it("writes through a symlink that stays inside, keeping the link", async () => {
    await layout.write({ "real.txt": "old" });
    await layout.link({ "alias.txt": "real.txt" });
    await ws.writeText("alias.txt", "new");
    expect(await readFile(join(layout.root, "real.txt"), "utf8")).toBe("new");
  });

  it("refuses to write over a directory", async () => {
    await mkdir(join(layout.root, "dir"));
    expect((await errorOf(ws.writeText("dir", "x"))).code).toBe("not_a_file");
  });

  it("refuses a path whose parent is a file", async () => {
    await layout.write({ "file.txt": "x" });
    const error = await errorOf(ws.writeText("file.txt/child.txt", "x"));
    expect(error.code).toBe("not_a_directory");
    expect(error.message).toContain("file.txt is a file");
  });
});

describe("listing and stat", () => {
  it("lists entries sorted by name with their kinds", async () => {
    await layout.write({ "b.txt": "", "a/x.txt": "", ".hidden": "" });
    await layout.link({ "to-a": "a", out: layout.outside, broken: "missing" });
    const entries = await ws.list(".");
    expect(entries).toEqual([
      { name: ".hidden", kind: "file" },
      { name: "a", kind: "directory" },
      { name: "b.txt", kind: "file" },
      { name: "broken", kind: "symlink", linkTo: "broken" },
      { name: "out", kind: "symlink", linkTo: "outside" },
      { name: "to-a", kind: "symlink", linkTo: "directory" },
    ]);
  });

  it("refuses to list a file", async () => {
    await layout.write({ "f.txt": "" });
    expect((await errorOf(ws.list("f.txt"))).code).toBe("not_a_directory");
  });

  it("stats a file", async () => {
    await layout.write({ "f.txt": "12345" });
    expect(await ws.stat("f.txt")).toMatchObject({ path: "f.txt", kind: "file", size: 5 });
  });
});

describe("walking", () => {
  beforeEach(async () => {
    await layout.write({
      ".gitignore": "*.log\nbuild/\n!keep.log\n",
      "a.ts": "",
      "keep.log": "",
      "debug.log": "",
      "build/out.js": "",
      "src/b.ts": "",
      "src/.gitignore": "generated/\n",
      "src/generated/g.ts": "",
      "src/c.log": "",
      "src/.ignore": "scratch.ts\n",
      "src/scratch.ts": "",
      ".git/config": "",
      "node_modules/dep/index.js": "",
      ".github/workflow.yml": "",
    });
    await layout.link({ "linked-src": "src", "linked-file.ts": "a.ts" });
  });

  it("respects root and nested ignore files, skips .git and symlinks, keeps hidden files", async () => {
    const walked = await ws.walk();
    expect(walked).toEqual({
      files: [
        ".github/workflow.yml",
        ".gitignore",
        "a.ts",
        "keep.log",
        "node_modules/dep/index.js",
        "src/.gitignore",
        "src/.ignore",
        "src/b.ts",
      ],
      truncated: false,
    });
  });

  it("skips node_modules when it is ignored", async () => {
    await writeFile(join(layout.root, ".gitignore"), "node_modules/\n");
    expect((await ws.walk()).files).not.toContain("node_modules/dep/index.js");
  });

  it("applies the ancestors' rules when starting in a subfolder", async () => {
    expect((await ws.walk("src")).files).toEqual(["src/.gitignore", "src/.ignore", "src/b.ts"]);
  });

  it("walks a folder it is pointed at even if ignored, still applying file rules inside", async () => {
    await layout.write({ "build/keep.ts": "", "build/trace.log": "", "build/node_modules/x.js": "" });
    await writeFile(join(layout.root, ".gitignore"), "build/\n*.log\nnode_modules/\n");
    expect((await ws.walk("build")).files).toEqual(["build/keep.ts", "build/out.js"]);
  });

  it("lets a deeper ignore file re-include a folder a shallower one ignores", async () => {
    await layout.write({ "src/build/kept.ts": "", "src/build/x.log": "", "src/.gitignore": "!build/\n" });
    expect((await ws.walk("src")).files).toContain("src/build/kept.ts");
    expect((await ws.walk("src")).files).not.toContain("src/build/x.log");
  });

  it("stops at the file cap and says so", async () => {
    const walked = await ws.walk(".", { maxFiles: 3 });
    expect(walked.files).toHaveLength(3);
    expect(walked.truncated).toBe(true);
  });

  it("globs relative to the search folder, sorted by path", async () => {
    expect((await ws.glob("**/*.ts")).paths).toEqual(["a.ts", "src/b.ts"]);
    expect((await ws.glob("*.ts")).paths).toEqual(["a.ts"]);
    expect((await ws.glob("*.ts", { path: "src" })).paths).toEqual(["src/b.ts"]);
    expect((await ws.glob(`${layout.root}/src/*.ts`)).paths).toEqual(["src/b.ts"]);
  });

  it("refuses glob patterns that leave the search folder", async () => {
    expect((await errorOf(ws.glob("../**"))).code).toBe("path_outside_workspace");
    expect((await errorOf(ws.glob(`${layout.outside}/*`))).code).toBe("path_outside_workspace");
    expect((await errorOf(ws.glob("/etc/*"))).code).toBe("path_outside_workspace");
  });
});
