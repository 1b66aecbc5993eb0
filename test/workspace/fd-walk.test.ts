// How the path sandbox follows symlinks inside the workspace: the way the kernel would (".."
// in a link target leaves the directory the link is in, not the one it was named through),
// with absolute targets inside the root allowed, the kernel's 40-link limit, and dangling
// links inside the root written through to where they point.
import { execFileSync } from "node:child_process";
import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ResonError } from "../../src/core/errors.js";
import { Workspace } from "../../src/workspace/index.js";
import { makeTempLayout, type TempLayout } from "./temp-dirs.js";

let layout: TempLayout;
let ws: Workspace;

beforeEach(async () => {
  layout = await makeTempLayout();
  await layout.write({
    "deep/d2/file.txt": "in d2\n",
    "deep/sibling/file.txt": "deep sibling\n",
    "sibling/file.txt": "top sibling\n",
    "src/a.ts": "export const a = 1;\n",
  });
  ws = await Workspace.open(layout.root);
});

afterEach(async () => {
  await layout.cleanup();
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof ResonError) return error.code;
    throw error;
  }
}

describe("the descriptor walk", () => {
  it('resolves ".." in a link target from where the link really is', async () => {
    await layout.link({ via: "deep/d2", "deep/d2/up": "../sibling" });
    // via/up → deep/d2/../sibling → deep/sibling, not sibling/ beside via.
    expect((await ws.readText("via/up/file.txt")).text).toBe("deep sibling\n");
    expect((await ws.resolve("via/up/file.txt")).real).toBe(join(layout.root, "deep/sibling/file.txt"));
  });

  it("follows an absolute link that stays inside the root", async () => {
    await layout.link({ abs: join(layout.root, "src") });
    expect((await ws.readText("abs/a.ts")).text).toContain("export const a");
    await ws.writeText("abs/b.ts", "b\n");
    expect(await readFile(join(layout.root, "src/b.ts"), "utf8")).toBe("b\n");
  });

  it("follows 40 links in one path and refuses the 41st", async () => {
    const chain = (prefix: string, length: number) => {
      const links: Record<string, string> = {};
      for (let i = 0; i < length; i += 1)
        links[`${prefix}${i}`] = i === length - 1 ? "src" : `${prefix}${i + 1}`;
      return links;
    };
    await layout.link({ ...chain("ok", 40), ...chain("long", 41) });
    expect((await ws.readText("ok0/a.ts")).text).toContain("export const a");
    expect(await codeOf(ws.readText("long0/a.ts"))).toBe("path_invalid");
  });

  it("writes through a dangling link inside the root, creating its target and keeping the link", async () => {
    await layout.link({ pending: "later/new.txt" });
    const result = await ws.writeText("pending", "made\n");
    expect(result.created).toBe(true);
    expect(await readFile(join(layout.root, "later/new.txt"), "utf8")).toBe("made\n");
    expect((await lstat(join(layout.root, "pending"))).isSymbolicLink()).toBe(true);
  });

  it("says a file in the middle of a path is not a directory, even behind a link", async () => {
    await layout.link({ "to-file": "src/a.ts" });
    expect(await codeOf(ws.readText("to-file/x"))).toBe("not_a_directory");
    expect(await codeOf(ws.writeText("to-file/x", "x"))).toBe("not_a_directory");
  });

  it("reads a FIFO as not a regular file without blocking", async () => {
    execFileSync("mkfifo", [join(layout.root, "pipe")]);
    expect(await codeOf(ws.readText("pipe"))).toBe("not_a_file");
    expect((await ws.stat("pipe")).kind).toBe("other");
  });
});
