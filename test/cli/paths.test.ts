// End to end: paths the model names in a headless run. A name that merely starts with two
// dots is an ordinary name, a path longer than PATH_MAX works, and a trailing slash on a
// file fails as not a directory, through the permission gate and every file tool.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";

describe("paths in a headless run", () => {
  const f = useCliFixture();

  const run = () =>
    runCli(["run", "--json", ...fakeModelArgs(f.server), "work on the files"], {
      cwd: f.ws.path,
      env: cleanEnv({ RESON_HOME: f.home.path }),
    });
  /** Tool results in call order (read-only calls run in parallel and may finish in any order). */
  const results = (stdout: string) =>
    parseEvents(stdout)
      .filter((e) => e.type === "tool_result")
      .sort(
        (a, b) =>
          (a.step as number) - (b.step as number) ||
          (a.toolCallId as string).localeCompare(b.toolCallId as string, "en", { numeric: true }),
      );

  it("a folder named ..foo is written, edited, read, listed, globbed and searched like any other", async () => {
    f.server.enqueue(
      {
        toolCalls: [
          { name: "write_file", arguments: { path: "..foo/bar.txt", content: "first draft\n" } },
          { name: "write_file", arguments: { path: "..notes.txt", content: "note\n" } },
        ],
      },
      {
        toolCalls: [
          {
            name: "edit_file",
            arguments: { path: "..foo/bar.txt", old_string: "first", new_string: "final" },
          },
        ],
      },
      {
        toolCalls: [
          { name: "read_file", arguments: { path: "..foo/bar.txt" } },
          { name: "list_files", arguments: { path: "..foo" } },
          { name: "glob", arguments: { pattern: "**/*.txt" } },
          { name: "grep", arguments: { pattern: "final", path: "..foo" } },
        ],
      },
      { text: "done" },
    );
    const result = await run();
    expect(result.code).toBe(0);
    const [write, writeNote, edit, read, list, glob, grep] = results(result.stdout);
    for (const call of [write, writeNote, edit]) {
      expect(call).toMatchObject({ ok: true, permission: { behavior: "allow", mode: "acceptEdits" } });
    }
    expect(readFileSync(join(f.ws.path, "..foo/bar.txt"), "utf8")).toBe("final draft\n");
    expect(readFileSync(join(f.ws.path, "..notes.txt"), "utf8")).toBe("note\n");
    expect(read!.content).toContain("final draft");
    expect(list!.content).toBe("bar.txt");
    expect((glob!.content as string).split("\n")).toEqual(["..foo/bar.txt", "..notes.txt"]);
    expect(grep!.content).toContain("..foo/bar.txt:1: final draft");
  });

  it("a trailing slash on a file fails as not a directory for reads, writes and edits, and the file is untouched", async () => {
    writeFileSync(join(f.ws.path, "notes.txt"), "keep me\n");
    mkdirSync(join(f.ws.path, "docs"));
    writeFileSync(join(f.ws.path, "docs/a.md"), "# a\n");
    f.server.enqueue(
      {
        toolCalls: [
          { name: "read_file", arguments: { path: "notes.txt/" } },
          { name: "write_file", arguments: { path: "notes.txt/", content: "PWNED" } },
          { name: "edit_file", arguments: { path: "notes.txt/", old_string: "keep", new_string: "lose" } },
          { name: "write_file", arguments: { path: "fresh/", content: "x" } },
          { name: "list_files", arguments: { path: "docs/" } },
        ],
      },
      { text: "done" },
    );
    const result = await run();
    expect(result.code).toBe(0);
    const [read, write, edit, fresh, list] = results(result.stdout);
    for (const call of [read, write, edit]) {
      expect(call).toMatchObject({ ok: false, error: { code: "not_a_directory" } });
      expect((call!.error as { message: string }).message).toContain("notes.txt is a file");
    }
    expect(fresh).toMatchObject({ ok: false, error: { code: "not_a_file" } });
    expect(list).toMatchObject({ ok: true, content: "a.md" });
    expect(readFileSync(join(f.ws.path, "notes.txt"), "utf8")).toBe("keep me\n");
    expect(existsSync(join(f.ws.path, "fresh"))).toBe(false);
  });

  it("a path longer than PATH_MAX is written, edited, read, listed and searched; past 32 KiB it is refused naming the limit", async () => {
    const deep = Array.from({ length: 24 }, (_, i) => `level${i}`.padEnd(200, "x")).join("/");
    const file = `${deep}/deep.txt`;
    expect(Buffer.byteLength(file)).toBeGreaterThan(4096);
    f.server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: file, content: "deep text\n" } }] },
      {
        toolCalls: [
          { name: "edit_file", arguments: { path: file, old_string: "deep", new_string: "deeper" } },
        ],
      },
      {
        toolCalls: [
          { name: "read_file", arguments: { path: file } },
          { name: "list_files", arguments: { path: deep } },
          { name: "glob", arguments: { pattern: "**/deep.txt" } },
          { name: "grep", arguments: { pattern: "deeper" } },
          { name: "read_file", arguments: { path: "d/".repeat(16_400) } },
        ],
      },
      { text: "done" },
    );
    try {
      const result = await run();
      expect(result.code).toBe(0);
      const [write, edit, read, list, glob, grep, tooLong] = results(result.stdout);
      expect(write).toMatchObject({ ok: true });
      expect(edit).toMatchObject({ ok: true });
      expect(read!.content).toContain("deeper text");
      expect(list).toMatchObject({ ok: true, content: "deep.txt" });
      expect(glob).toMatchObject({ ok: true, content: file });
      expect(grep!.content).toContain(`${file}:1: deeper text`);
      expect(tooLong).toMatchObject({ ok: false, error: { code: "path_invalid" } });
      expect((tooLong!.error as { message: string }).message).toContain("longer than 32768 bytes");
    } finally {
      // Node's rm stops at PATH_MAX; GNU rm walks by descriptor.
      execFileSync("rm", ["-rf", join(f.ws.path, "level0".padEnd(200, "x"))]);
    }
  });
});
