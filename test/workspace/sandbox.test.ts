import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResonError } from "../../src/core/errors.js";
import { Workspace } from "../../src/workspace/index.js";
import { escapeCaseNames, escapeCases, escapeLinks, INSIDE_TEXT, LEGITIMATE_NAMES } from "./escape-cases.js";
import { CANARY, makeTempLayout, type TempLayout } from "./temp-dirs.js";

let layout: TempLayout;
let ws: Workspace;

beforeAll(async () => {
  layout = await makeTempLayout();
  await layout.write({ "inside.txt": "hello inside\n", "src/a.ts": "export const a = 1;\n" });
  await layout.link(escapeLinks(layout));
  ws = await Workspace.open(layout.root);
});

afterAll(async () => {
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

describe("Workspace.open", () => {
  it("resolves the root to its real path", async () => {
    const viaLink = await Workspace.open(join(layout.root, "link-dir-in"));
    expect(viaLink.root).toBe(join(layout.root, "src"));
  });

  it("refuses a missing folder with a hint", async () => {
    const error = await Workspace.open(join(layout.base, "nope")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResonError);
    expect((error as ResonError).code).toBe("file_not_found");
    expect((error as ResonError).hint).toBeTruthy();
  });

  it("refuses a file as the root", async () => {
    const error = await Workspace.open(join(layout.root, "inside.txt")).catch((e: unknown) => e);
    expect((error as ResonError).code).toBe("not_a_directory");
  });
});

describe("the path sandbox", () => {
  it.each([
    ["inside.txt", "inside.txt"],
    ["./inside.txt", "inside.txt"],
    ["src/../inside.txt", "inside.txt"],
    ["src//a.ts", "src/a.ts"],
    ["link-dir-in/a.ts", "src/a.ts"],
    [".", "."],
  ])("resolves %j inside the root", async (path, real) => {
    const resolved = await ws.resolve(path);
    expect(resolved.real).toBe(real === "." ? layout.root : join(layout.root, real));
    expect(resolved.exists).toBe(true);
  });

  it("takes an absolute path inside the root", async () => {
    const resolved = await ws.resolve(join(layout.root, "inside.txt"));
    expect(resolved.relative).toBe("inside.txt");
  });

  it("treats percent-encoding literally, staying inside", async () => {
    const resolved = await ws.resolve("%2e%2e/%2e%2e/x.txt");
    expect(resolved.real).toBe(join(layout.root, "%2e%2e/%2e%2e/x.txt"));
    expect(resolved.exists).toBe(false);
    await ws.writeText("%2e%2e/%2e%2e/x.txt", "literal");
    expect(await readFile(join(layout.root, "%2e%2e/%2e%2e/x.txt"), "utf8")).toBe("literal");
  });

  it("allows a symlink that stays inside the root", async () => {
    expect((await ws.readText("link-dir-in/a.ts")).text).toContain("export const a");
  });

  it.each(escapeCaseNames())("refuses: %s", async (name) => {
    const exit = escapeCases(layout).find((c) => c.name === name)!;
    expect(await codeOf(ws.resolve(exit.path))).toBe(exit.code);
  });

  it("says which path was refused and why, with a hint", async () => {
    const error = (await ws.resolve("link-dir-out/secret.txt").catch((e: unknown) => e)) as ResonError;
    expect(error.message).toContain("link-dir-out/secret.txt");
    expect(error.message).toContain("symbolic link");
    expect(error.hint).toBeTruthy();
  });

  it("never reads or writes through an escape, whatever the operation", async () => {
    const before = await layout.snapshotOutside();
    for (const exit of escapeCases(layout)) {
      expect(await codeOf(ws.readText(exit.path))).toBe(exit.code);
      expect(await codeOf(ws.writeText(exit.path, "PWNED"))).toBe(exit.code);
      expect(await codeOf(ws.list(exit.path))).toBe(exit.code);
      expect(await codeOf(ws.stat(exit.path))).toBe(exit.code);
      expect(await codeOf(ws.walk(exit.path))).toBe(exit.code);
    }
    expect(await layout.snapshotOutside()).toEqual(before);
  });

  it("replaces rather than follows a hard link's shared inode when writing", async () => {
    const { link } = await import("node:fs/promises");
    await link(join(layout.outside, "secret.txt"), join(layout.root, "hardlink.txt"));
    await ws.writeText("hardlink.txt", "new content");
    expect(await readFile(join(layout.outside, "secret.txt"), "utf8")).toBe(`${CANARY}\n`);
    expect((await stat(join(layout.root, "hardlink.txt"))).nlink).toBe(1);
  });
});

describe("names that only look like escapes", () => {
  it.each(LEGITIMATE_NAMES.map((c) => [c.name, c.file]))(
    "%s (%s) is read, written, listed and walked",
    async (_, file) => {
      await layout.write({ [file]: `${INSIDE_TEXT}\n` });
      const resolved = await ws.resolve(file);
      expect(resolved).toMatchObject({ relative: file, real: join(layout.root, file), exists: true });
      expect((await ws.readText(file)).text).toBe(`${INSIDE_TEXT}\n`);
      await ws.writeText(file, "rewritten\n");
      expect(await readFile(join(layout.root, file), "utf8")).toBe("rewritten\n");
      const folder = file.includes("/") ? file.slice(0, file.lastIndexOf("/")) : ".";
      expect((await ws.list(folder)).map((e) => e.name)).toContain(file.slice(file.lastIndexOf("/") + 1));
      expect((await ws.walk(".")).files).toContain(file);
      await ws.writeText(`${folder}/new..txt`, "new\n");
      expect(await readFile(join(layout.root, folder, "new..txt"), "utf8")).toBe("new\n");
    },
  );
});

describe("a trailing slash names a directory", () => {
  it.each(["inside.txt/", "inside.txt/.", "./inside.txt/", "link-dir-in/a.ts/"])(
    "%s, naming a file, fails as not a directory for every operation, and the file stays as it was",
    async (path) => {
      const before = await readFile(join(layout.root, path.replace(/\/\.?$/, "")), "utf8");
      for (const operation of [
        () => ws.readText(path),
        () => ws.writeText(path, "PWNED"),
        () => ws.stat(path),
        () => ws.list(path),
        () => ws.walk(path),
        () => ws.glob("*", { path }),
        () => ws.search("a", { path, engine: "js" }),
      ]) {
        expect(await codeOf(operation())).toBe("not_a_directory");
      }
      expect(await readFile(join(layout.root, path.replace(/\/\.?$/, "")), "utf8")).toBe(before);
      const error = (await ws.readText(path).catch((e: unknown) => e)) as ResonError;
      expect(error.message).toContain("is a file");
      expect(error.hint).toContain("without the trailing");
    },
  );

  it("a missing name with a trailing slash is not created as a file", async () => {
    expect(await codeOf(ws.writeText("fresh.txt/", "x"))).toBe("not_a_file");
    expect(existsSync(join(layout.root, "fresh.txt"))).toBe(false);
  });

  it("a directory with a trailing slash is fine", async () => {
    expect((await ws.list("src/")).map((e) => e.name)).toContain("a.ts");
    expect((await ws.stat("src/")).kind).toBe("directory");
    expect((await ws.walk("src/")).files).toContain("src/a.ts");
    expect(await codeOf(ws.readText("src/"))).toBe("not_a_file");
  });
});

describe("paths longer than PATH_MAX", () => {
  const deep = Array.from({ length: 24 }, (_, i) => `${i}`.padStart(3, "0").padEnd(200, "d")).join("/");
  const file = `${deep}/notes.txt`;
  // Node's rm walks by path and stops at PATH_MAX; GNU rm walks by descriptor.
  afterAll(() => execFileSync("rm", ["-rf", join(layout.root, deep.split("/")[0]!)]));

  it("are written, read, listed, walked and searched by descriptor", async () => {
    expect(Buffer.byteLength(file)).toBeGreaterThan(4096);
    await ws.writeText(file, `${INSIDE_TEXT}\n`);
    expect((await ws.readText(file)).text).toBe(`${INSIDE_TEXT}\n`);
    expect(await ws.resolve(file)).toMatchObject({ relative: file, exists: true });
    expect((await ws.list(deep)).map((e) => e.name)).toEqual(["notes.txt"]);
    expect((await ws.walk(".")).files).toContain(file);
    expect((await ws.glob("**/notes.txt")).paths).toContain(file);
    for (const engine of ["auto", "js"] as const) {
      const found = await ws.search(INSIDE_TEXT, { engine });
      expect(found.matches.map((m) => m.path)).toContain(file);
    }
  });

  it("past the limit file tools take, are refused with the limit named", async () => {
    const error = (await ws.readText("d/".repeat(16_400)).catch((e: unknown) => e)) as ResonError;
    expect(error.code).toBe("path_invalid");
    expect(error.message).toContain("32768 bytes");
  });
});

describe("the path sandbox under generated paths", () => {
  const segments = [
    "..",
    ".",
    "",
    "src",
    "inside.txt",
    "new.txt",
    "outside",
    "ws",
    "ws-evil",
    "secret.txt",
    "%2e%2e",
    "link-dir-out",
    "link-file-out",
    "link-rel-out",
    "link-dir-in",
    "chain1",
    "dangling-out",
    "dangling-dir-out",
    "up",
    "deep-out",
    "..foo",
    "...",
    "..inside.txt",
    "link-root-abs",
    "etc",
  ];

  it("anything that resolves is inside the root, and no file outside is read or written", async () => {
    const before = await layout.snapshotOutside();
    const prefixes = ["", "/", `${layout.root}/`, `${layout.base}/`, "./"];
    const pathArb = fc
      .tuple(
        fc.constantFrom(...prefixes),
        fc.array(fc.constantFrom(...segments), { minLength: 1, maxLength: 7 }),
      )
      .map(([prefix, parts]) => prefix + parts.join("/"));
    await fc.assert(
      fc.asyncProperty(pathArb, async (path) => {
        const resolved = await ws.resolve(path).catch((error: unknown) => {
          if (error instanceof ResonError) return undefined;
          throw error;
        });
        if (resolved) {
          expect(resolved.real === layout.root || resolved.real.startsWith(`${layout.root}/`)).toBe(true);
        }
        const read = await ws.readText(path).catch((error: unknown) => {
          if (error instanceof ResonError) return undefined;
          throw error;
        });
        if (read) expect(read.text).not.toContain(CANARY);
        await ws.writeText(path, "generated").catch((error: unknown) => {
          if (!(error instanceof ResonError)) throw error;
        });
      }),
      { numRuns: 300 },
    );
    expect(await layout.snapshotOutside()).toEqual(before);
  });

  it("never throws anything but a ResonError, nor resolves outside, for arbitrary strings", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 60 }), async (path) => {
        try {
          const resolved = await ws.resolve(path);
          expect(resolved.real === layout.root || resolved.real.startsWith(`${layout.root}/`)).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(ResonError);
        }
      }),
      { numRuns: 300 },
    );
  });
});
