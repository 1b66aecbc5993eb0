// The escape table through the tools the model calls: every case is refused by read_file,
// write_file, edit_file, list_files, glob and grep, and nothing outside changes or leaks;
// names that only look like escapes work in every one of them.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  escapeCaseNames,
  escapeCases,
  escapeLinks,
  INSIDE_TEXT,
  LEGITIMATE_NAMES,
} from "../workspace/escape-cases.js";
import { CANARY } from "../workspace/temp-dirs.js";
import { type Harness, makeHarness } from "./harness.js";

let h: Harness;

beforeAll(async () => {
  h = await makeHarness();
  await h.layout.write({ "inside.txt": "hello inside\n", "src/a.ts": "export const a = 1;\n" });
  await h.layout.link(escapeLinks(h.layout));
});

afterAll(async () => {
  await h.cleanup();
});

const operations: Array<[string, (path: string) => [string, Record<string, unknown>]]> = [
  ["read_file", (path) => ["read_file", { path }]],
  ["write_file", (path) => ["write_file", { path, content: "PWNED" }]],
  ["edit_file", (path) => ["edit_file", { path, old_string: CANARY, new_string: "PWNED" }]],
  ["list_files", (path) => ["list_files", { path }]],
  ["glob", (path) => ["glob", { pattern: "**/*", path }]],
  ["grep (ripgrep or js)", (path) => ["grep", { pattern: "CANARY", path }]],
  ["grep (js)", (path) => ["grep", { pattern: "CANARY", path }]],
];

describe.each(operations)("%s refuses every escape", (operation, makeCall) => {
  it.each(escapeCaseNames())("%s", async (name) => {
    const exit = escapeCases(h.layout).find((c) => c.name === name)!;
    const [tool, args] = makeCall(exit.path);
    const call = operation === "grep (js)" ? h.variant({ grepEngine: "js" }) : h.call;
    const before = await h.layout.snapshotOutside();
    const result = await call(tool, args);
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe(exit.code);
    expect(result.content).not.toContain(CANARY);
    expect(JSON.stringify(result.error)).not.toContain(CANARY);
    expect(await h.layout.snapshotOutside()).toEqual(before);
  });
});

describe("searching the whole workspace never reaches outside", () => {
  it.each(["auto", "js"] as const)(
    "grep over the root with engine %s finds nothing behind symlinks",
    async (engine) => {
      const result = await h.variant({ grepEngine: engine })("grep", { pattern: "CANARY" });
      expect(result.ok).toBe(true);
      expect(result.content).toContain("No matches");
    },
  );

  it("glob over the root lists no file behind a symlink", async () => {
    const result = await h.call("glob", { pattern: "**/*" });
    expect(result.content.split("\n").sort()).toEqual(["inside.txt", "src/a.ts"]);
  });

  it.each([["../**"], ["/etc/*"], ["**/../../outside/*"]])("glob refuses the pattern %s", async (pattern) => {
    const result = await h.call("glob", { pattern });
    expect(result.error?.code).toBe("path_outside_workspace");
  });

  it("grep's glob filter cannot widen the search", async () => {
    const result = await h.call("grep", { pattern: "CANARY", glob: "../outside/*" });
    expect(result.error?.code).toBe("path_outside_workspace");
  });
});

describe.each(LEGITIMATE_NAMES.map((c) => [c.name, c.file]))("%s (%s) works in every tool", (_, file) => {
  const folder = file.includes("/") ? file.slice(0, file.lastIndexOf("/")) : ".";
  const base = file.slice(file.lastIndexOf("/") + 1);

  it("write_file, read_file and edit_file", async () => {
    expect((await h.call("write_file", { path: file, content: `${INSIDE_TEXT}\n` })).ok).toBe(true);
    const read = await h.call("read_file", { path: file });
    expect(read.content).toContain(INSIDE_TEXT);
    const edit = await h.call("edit_file", { path: file, old_string: "inside", new_string: "edited" });
    expect(edit.ok).toBe(true);
    expect(await readFile(join(h.layout.root, file), "utf8")).toBe("legitimate edited text\n");
  });

  it("list_files, glob and grep", async () => {
    await h.layout.write({ [file]: `${INSIDE_TEXT}\n` });
    expect((await h.call("list_files", { path: folder })).content).toContain(base);
    expect((await h.call("glob", { pattern: "**/*.txt" })).content.split("\n")).toContain(file);
    expect((await h.call("glob", { pattern: "*", path: folder })).content.split("\n")).toContain(file);
    for (const call of [h.call, h.variant({ grepEngine: "js" })]) {
      const grep = await call("grep", { pattern: INSIDE_TEXT });
      expect(grep.content).toContain(`${file}:1:`);
      expect((await call("grep", { pattern: INSIDE_TEXT, path: folder })).content).toContain(`${file}:1:`);
    }
  });
});

describe("a trailing slash on a file", () => {
  it.each([
    ["read_file", { path: "inside.txt/" }],
    ["write_file", { path: "inside.txt/", content: "PWNED" }],
    ["edit_file", { path: "inside.txt/", old_string: "hello", new_string: "PWNED" }],
    ["list_files", { path: "inside.txt/" }],
  ] as const)("%s fails as not a directory and leaves the file alone", async (tool, args) => {
    const result = await h.call(tool, { ...args });
    expect(result).toMatchObject({ ok: false, error: { code: "not_a_directory" } });
    expect(result.error?.message).toContain("is a file");
    expect(await readFile(join(h.layout.root, "inside.txt"), "utf8")).toBe("hello inside\n");
  });
});
