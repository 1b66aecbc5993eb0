import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBuiltinTools } from "../../src/tools/index.js";
import { type Harness, makeHarness } from "./harness.js";

let h: Harness;

beforeEach(async () => {
  h = await makeHarness();
});

afterEach(async () => {
  await h.cleanup();
});

const fileText = (name: string) => readFile(join(h.layout.root, name), "utf8");

describe("the built-in tool set", () => {
  it("has the documented names, argument names and read-only flags", () => {
    const tools = createBuiltinTools();
    const shape = Object.fromEntries(
      tools.map((t) => [
        t.name,
        { readOnly: t.readOnly, args: Object.keys((t.parameters as { properties: object }).properties) },
      ]),
    );
    expect(shape).toEqual({
      list_files: { readOnly: true, args: ["path"] },
      read_file: { readOnly: true, args: ["path", "offset", "limit"] },
      write_file: { readOnly: false, args: ["path", "content"] },
      edit_file: { readOnly: false, args: ["path", "old_string", "new_string", "replace_all"] },
      glob: { readOnly: true, args: ["pattern", "path"] },
      grep: { readOnly: true, args: ["pattern", "path", "glob"] },
      execute_command: { readOnly: false, args: ["command", "timeout_ms"] },
      goal: { readOnly: false, args: ["action", "title", "parent", "id", "summary", "reason"] },
      read_artifact: { readOnly: true, args: ["id", "offset", "limit"] },
      web_fetch: { readOnly: false, args: ["url", "method", "headers", "body"] },
      ask_human: { readOnly: true, args: ["question", "choices"] },
    });
    for (const t of tools) expect(t.description.length).toBeGreaterThan(80);
  });
});

describe("list_files", () => {
  it("lists the root by default, directories with a trailing slash, sorted", async () => {
    await h.layout.write({ "b.txt": "", "a/x.txt": "", ".env.example": "" });
    await h.layout.link({ "out-link": h.layout.outside });
    const result = await h.call("list_files", {});
    expect(result.ok).toBe(true);
    expect(result.content).toBe(
      ".env.example\na/\nb.txt\nout-link -> (link to outside the workspace, unusable)",
    );
    expect(result.longTermMemory).toBe("listed . (4 entries)");
  });

  it("says when a directory is empty", async () => {
    await mkdir(join(h.layout.root, "empty"));
    expect((await h.call("list_files", { path: "empty" })).content).toBe("(empty directory)");
  });

  it("fails clearly for a missing directory and for a file", async () => {
    await h.layout.write({ "f.txt": "" });
    expect((await h.call("list_files", { path: "nope" })).error?.code).toBe("file_not_found");
    expect((await h.call("list_files", { path: "f.txt" })).error?.code).toBe("not_a_directory");
  });
});

describe("read_file", () => {
  it("shows numbered lines and the total", async () => {
    await h.layout.write({ "a.txt": "alpha\nbeta\ngamma\n" });
    const result = await h.call("read_file", { path: "a.txt" });
    expect(result.content).toBe(
      "     1\talpha\n     2\tbeta\n     3\tgamma\n\n[Lines 1-3 of 3; end of file.]",
    );
    expect(result.longTermMemory).toBe("read a.txt lines 1-3 of 3");
  });

  it("reads a range and says how to continue", async () => {
    await h.layout.write({ "a.txt": "1\n2\n3\n4\n5\n6" });
    const result = await h.call("read_file", { path: "a.txt", offset: "2", limit: 2 });
    expect(result.content).toBe(
      "     2\t2\n     3\t3\n\n[Lines 2-3 of 6. Call read_file with offset=4 to read more.]",
    );
  });

  it("refuses an offset past the end", async () => {
    await h.layout.write({ "a.txt": "only\n" });
    const result = await h.call("read_file", { path: "a.txt", offset: 5 });
    expect(result.error).toMatchObject({
      code: "tool_invalid_arguments",
      hint: "Use an offset from 1 to 1.",
    });
  });

  it("refuses offset 0 at validation", async () => {
    await h.layout.write({ "a.txt": "only\n" });
    const result = await h.call("read_file", { path: "a.txt", offset: 0 });
    expect(result.error?.code).toBe("tool_invalid_arguments");
    expect(result.error?.message).toContain("offset: must be >= 1, received 0");
  });

  it("hides CRLF endings and a byte-order mark, and cuts very long lines", async () => {
    await h.layout.write({ "w.txt": `\uFEFFone\r\ntwo\r\n${"z".repeat(3000)}\r\n` });
    const result = await h.call("read_file", { path: "w.txt" });
    const lines = result.content.split("\n");
    expect(lines[0]).toBe("     1\tone");
    expect(lines[1]).toBe("     2\ttwo");
    expect(lines[2]).toBe(`     3\t${"z".repeat(2000)}… [line cut: 3000 characters in all]`);
  });

  it("says an empty file is empty", async () => {
    await h.layout.write({ "e.txt": "" });
    expect((await h.call("read_file", { path: "e.txt" })).content).toBe("(e.txt is empty)");
  });

  it("refuses binary files and missing files", async () => {
    await h.layout.write({ "b.bin": Buffer.from([1, 2, 0, 3]) });
    expect((await h.call("read_file", { path: "b.bin" })).error?.code).toBe("file_binary");
    expect((await h.call("read_file", { path: "missing.txt" })).error).toMatchObject({
      code: "file_not_found",
      hint: expect.stringContaining("list_files"),
    });
  });

  it("when truncated centrally, gives the exact offset to continue from", async () => {
    const line = (n: number) => `this is line number ${n} of a long file, padded to be quite wide`;
    await h.layout.write({
      "long.txt": `${Array.from({ length: 3000 }, (_, i) => line(i + 1)).join("\n")}\n`,
    });
    const first = await h.call("read_file", { path: "long.txt" });
    expect(first.meta.truncated).toBe(true);
    const next = Number(/offset=(\d+) to read more\.\]$/.exec(first.content)?.[1]);
    const shownLines = first.content.split("\n\n[Output truncated")[0]!.split("\n");
    expect(shownLines.at(-1)).toBe(`${String(next - 1).padStart(6)}\t${line(next - 1)}`);
    const second = await h.call("read_file", { path: "long.txt", offset: next });
    expect(second.content.split("\n")[0]).toBe(`${String(next).padStart(6)}\t${line(next)}`);
  });
});

describe("write_file", () => {
  it("creates a file with its parent folders and reports what it wrote", async () => {
    const result = await h.call("write_file", { path: "src/new/x.ts", content: "a\nb\n" });
    expect(result).toMatchObject({
      ok: true,
      content: "Created src/new/x.ts: 2 lines (4 bytes).",
      longTermMemory: "wrote src/new/x.ts (2 lines)",
    });
    expect(await fileText("src/new/x.ts")).toBe("a\nb\n");
  });

  it("overwrites an existing file", async () => {
    await h.layout.write({ "x.txt": "old" });
    const result = await h.call("write_file", { path: "x.txt", content: "new" });
    expect(result.content).toBe("Overwrote x.txt: 1 line (3 bytes).");
    expect(await fileText("x.txt")).toBe("new");
  });

  it("needs content", async () => {
    const result = await h.call("write_file", { path: "x.txt" });
    expect(result.error?.message).toContain("- content: missing (required)");
  });
});

describe("edit_file", () => {
  it("replaces a unique match and shows the edited region", async () => {
    await h.layout.write({ "a.ts": "const a = 1;\nconst b = 2;\nconst c = 3;\n" });
    const result = await h.call("edit_file", {
      path: "a.ts",
      old_string: "const b = 2;",
      new_string: "const b = 20;",
    });
    expect(result.ok).toBe(true);
    expect(result.content).toBe(
      "Edited a.ts: replaced 1 occurrence.\n\n     1\tconst a = 1;\n     2\tconst b = 20;\n     3\tconst c = 3;",
    );
    expect(await fileText("a.ts")).toBe("const a = 1;\nconst b = 20;\nconst c = 3;\n");
  });

  it("says when old_string is not found, pointing at a near match", async () => {
    await h.layout.write({ "a.ts": "function f() {\n  return 1;\n}\n" });
    const result = await h.call("edit_file", {
      path: "a.ts",
      old_string: "function f() {\n  return 2;\n}",
      new_string: "x",
    });
    expect(result.error?.code).toBe("edit_no_match");
    expect(result.error?.hint).toContain("line 1");
  });

  it("says when old_string matches only with different whitespace", async () => {
    await h.layout.write({ "a.ts": "if (x) {\n\treturn 1;\n}\n" });
    const result = await h.call("edit_file", {
      path: "a.ts",
      old_string: "if (x) {\n    return 1;",
      new_string: "y",
    });
    expect(result.error?.code).toBe("edit_no_match");
    expect(result.error?.hint).toContain("whitespace");
  });

  it("refuses an ambiguous match, saying how many and where", async () => {
    await h.layout.write({ "a.ts": "x = 1;\ny = 2;\nx = 1;\n" });
    const result = await h.call("edit_file", { path: "a.ts", old_string: "x = 1;", new_string: "x = 3;" });
    expect(result.error).toMatchObject({
      code: "edit_ambiguous",
      message: "old_string occurs 2 times in a.ts (at lines 1, 3).",
    });
    expect(result.error?.hint).toContain("replace_all");
    expect(await fileText("a.ts")).toBe("x = 1;\ny = 2;\nx = 1;\n");
  });

  it("replaces every match with replace_all", async () => {
    await h.layout.write({ "a.ts": "x = 1;\ny = 2;\nx = 1;\n" });
    const result = await h.call("edit_file", {
      path: "a.ts",
      old_string: "x = 1;",
      new_string: "x = 3;",
      replace_all: "true",
    });
    expect(result.content).toBe("Edited a.ts: replaced 2 occurrences.");
    expect(await fileText("a.ts")).toBe("x = 3;\ny = 2;\nx = 3;\n");
  });

  it("refuses identical strings and an empty old_string", async () => {
    await h.layout.write({ "a.ts": "x" });
    expect((await h.call("edit_file", { path: "a.ts", old_string: "x", new_string: "x" })).error?.code).toBe(
      "tool_invalid_arguments",
    );
    expect((await h.call("edit_file", { path: "a.ts", old_string: "", new_string: "y" })).error?.code).toBe(
      "tool_invalid_arguments",
    );
  });

  it("keeps CRLF line endings when the model writes LF", async () => {
    await h.layout.write({ "w.txt": "one\r\ntwo\r\nthree\r\n" });
    const result = await h.call("edit_file", {
      path: "w.txt",
      old_string: "one\ntwo",
      new_string: "uno\ndos\ntres",
    });
    expect(result.ok).toBe(true);
    expect(await fileText("w.txt")).toBe("uno\r\ndos\r\ntres\r\nthree\r\n");
  });

  it("inserts replacement text literally ($ patterns included)", async () => {
    await h.layout.write({ "a.js": "price = X;\n" });
    await h.call("edit_file", { path: "a.js", old_string: "X", new_string: "$& $1 $$" });
    expect(await fileText("a.js")).toBe("price = $& $1 $$;\n");
  });

  it("fails on a missing file", async () => {
    expect(
      (await h.call("edit_file", { path: "nope.ts", old_string: "a", new_string: "b" })).error?.code,
    ).toBe("file_not_found");
  });
});
