// End to end: approving file changes in the interactive terminal, driven through pipes. The
// prompt shows a write or an edit as a unified diff (masked, cut when long, no colours
// through a pipe); "for this session" covers every edit in the workspace, and "always"
// writes Claude Code's Edit(…) rule, which covers write_file and edit_file alike.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import { type ReplSession, startRepl } from "../support/repl-session.js";

const PROMPT = "allow? [y/s/p/u/n/m/e] ";
const ONCE_ONLY = "allow? [y/n/m/e] ";

const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] });

/** The prompt now waiting for an answer: from its `? tool` line on. */
const shown = (r: ReplSession) => r.output.slice(r.output.lastIndexOf("\n? "));
const promptsSoFar = (r: ReplSession) => r.output.split("allow? [").length - 1;

describe("approving file changes in the interactive terminal", () => {
  const f = useCliFixture();
  let repl: ReplSession | undefined;
  afterEach(() => {
    if (repl && repl.child.exitCode === null) repl.child.kill("SIGKILL");
    repl = undefined;
  });

  const open = (...extra: string[]) => {
    repl = startRepl(
      [...fakeModelArgs(f.server), ...extra],
      f.ws.path,
      cleanEnv({ RESON_HOME: f.home.path }),
    );
    return repl;
  };
  const file = (name: string) => readFileSync(join(f.ws.path, name), "utf8");

  it("s on a write_file covers the next edit_file of the file and other edits in the workspace, not protected paths", async () => {
    f.server.enqueue(
      call("write_file", { path: "notes.txt", content: "one\ntwo\nthree\n" }),
      call("edit_file", { path: "notes.txt", old_string: "two", new_string: "TWO" }),
      call("write_file", { path: "src/other.txt", content: "other\n" }),
      call("edit_file", { path: "notes.txt", old_string: "one", new_string: "ONE" }),
      call("write_file", { path: ".env", content: "KEY=1\n" }),
      { text: "All written." },
    );
    const r = open();
    await r.waitFor("reson> ");
    r.send("write the notes");
    let at = await r.waitFor(PROMPT);
    const prompt = shown(r);
    // The new file as a diff, not the raw arguments.
    expect(prompt).toContain("? write_file notes.txt (new file, 3 lines)");
    expect(prompt).toContain(
      "  --- /dev/null\n  +++ b/notes.txt\n  @@ -0,0 +1,3 @@\n  +one\n  +two\n  +three\n",
    );
    expect(prompt).not.toContain('content="');
    expect(prompt).toContain(
      "[s] allow all file edits in this workspace for this session (protected paths still ask)",
    );
    expect(prompt).toContain("[p] always in this project  [u] always for me: adds Edit(./notes.txt)");
    r.send("s");
    // The edits that follow are not asked; the protected path is, and only once is offered.
    at = await r.waitFor(ONCE_ONLY, at);
    expect(promptsSoFar(r)).toBe(2);
    expect(r.output).toMatch(/✓ edit_file path="notes.txt"/);
    expect(r.output).toMatch(/✓ write_file path="src\/other.txt"/);
    expect(shown(r)).toContain("? write_file .env (new file, 1 line)");
    expect(shown(r)).toContain("(asked every time: no answer covers later calls)");
    r.send("s");
    at = await r.waitFor("answer y, n, m or e", at);
    r.send("n");
    at = await r.waitFor("All written.", at);
    expect(file("notes.txt")).toBe("ONE\nTWO\nthree\n");
    expect(file("src/other.txt")).toBe("other\n");
    r.send("/permissions");
    at = await r.waitFor(/Edit\(\.\/\*\*\)\s+session/, at);
    r.send("/exit");
    expect(await r.exited).toBe(0);
    // Through a pipe: plain +/- lines, no colour codes.
    expect(r.output).not.toContain("\u001b[");
  });

  it("shows an edit_file as its hunks with context, replace_all included, and a write over a file as its diff", async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    lines[2] = "colour = red";
    lines[15] = "colour = red";
    writeFileSync(join(f.ws.path, "style.txt"), `${lines.join("\n")}\n`);
    writeFileSync(join(f.ws.path, "old.txt"), "keep\nold line\nkeep too\n");
    f.server.enqueue(
      call("edit_file", {
        path: "style.txt",
        old_string: "colour = red",
        new_string: "colour = blue",
        replace_all: true,
      }),
      call("write_file", { path: "old.txt", content: "keep\nnew line\nkeep too\n" }),
      call("edit_file", { path: "style.txt", old_string: "no such text", new_string: "x" }),
      { text: "Restyled." },
    );
    const r = open();
    await r.waitFor("reson> ");
    r.send("restyle");
    let at = await r.waitFor(PROMPT);
    let prompt = shown(r);
    expect(prompt).toContain("? edit_file style.txt (2 replacements, replace_all, +2 -2)");
    expect(prompt).toContain(
      [
        "  @@ -1,6 +1,6 @@",
        "   line 1",
        "   line 2",
        "  -colour = red",
        "  +colour = blue",
        "   line 4",
        "   line 5",
        "   line 6",
        "  @@ -13,7 +13,7 @@",
        "   line 13",
        "   line 14",
        "   line 15",
        "  -colour = red",
        "  +colour = blue",
      ].join("\n"),
    );
    // Far from either change, a line is not shown.
    expect(prompt).not.toContain(" line 9\n");
    // e keeps working: a file tool declares no editable parameters and the prompt asks again.
    r.send("e");
    at = await r.waitFor("edit_file declares no editable parameters; answer another way.", at);
    at = await r.waitFor(PROMPT, at);
    r.send("y");
    at = await r.waitFor(PROMPT, at);
    prompt = shown(r);
    expect(prompt).toContain("? write_file old.txt (overwrites the file, +1 -1)");
    expect(prompt).toContain(
      "  --- a/old.txt\n  +++ b/old.txt\n  @@ -1,3 +1,3 @@\n   keep\n  -old line\n  +new line\n   keep too\n",
    );
    r.send("n");
    at = await r.waitFor(PROMPT, at);
    expect(shown(r)).toContain("as it stands this call would fail: old_string was not found in style.txt.");
    r.send("n");
    await r.waitFor("Restyled.", at);
    expect(file("style.txt")).toContain("colour = blue");
    expect(file("style.txt")).not.toContain("colour = red");
    expect(file("old.txt")).toBe("keep\nold line\nkeep too\n");
    r.send("/exit");
    expect(await r.exited).toBe(0);
  });

  it("cuts a long diff with a note of the lines left out, prints control characters visibly and masks secrets", async () => {
    const secretValue = "s3cr3t-VALUE-7f3a9c";
    writeFileSync(
      join(f.home.path, "secrets.json"),
      JSON.stringify({ "workspace:*": { deploy_token: secretValue } }),
      { mode: 0o600 },
    );
    writeFileSync(join(f.ws.path, "deploy.conf"), `host = a\ntoken = ${secretValue}\nport = 1\n`);
    const long = Array.from({ length: 200 }, (_, i) => `row ${i + 1}`).join("\n");
    f.server.enqueue(
      call("write_file", { path: "long.txt", content: `${long}\n` }),
      call("write_file", { path: "trick.txt", content: "safe\n\u001b[2K\u001b[1Ahidden\u202eevil\n" }),
      call("edit_file", { path: "deploy.conf", old_string: "port = 1", new_string: "port = 2" }),
      { text: "Checked." },
    );
    const r = open();
    await r.waitFor("reson> ");
    r.send("write things");
    let at = await r.waitFor(PROMPT);
    let prompt = shown(r);
    // 60 lines shown: the hunk header and 59 rows; 141 of the 201 left out.
    expect(prompt).toContain("  +row 59\n  … 141 more lines of the diff not shown\n");
    expect(prompt).not.toContain("row 60");
    r.send("n");
    at = await r.waitFor(PROMPT, at);
    prompt = shown(r);
    expect(prompt).toContain("  +\\x1b[2K\\x1b[1Ahidden\\u202eevil");
    r.send("n");
    at = await r.waitFor(PROMPT, at);
    prompt = shown(r);
    expect(prompt).toContain("   token = <secret>deploy_token</secret>\n  -port = 1\n  +port = 2\n");
    r.send("y");
    await r.waitFor("Checked.", at);
    expect(r.output).not.toContain(secretValue);
    expect(file("deploy.conf")).toContain("port = 2");
    r.send("/exit");
    expect(await r.exited).toBe(0);
  });

  it("offers no rule for a write outside the workspace, which the file tools refuse anyway", async () => {
    f.server.enqueue(call("write_file", { path: "../elsewhere.txt", content: "x\n" }), { text: "Refused." });
    const r = open();
    await r.waitFor("reson> ");
    r.send("write elsewhere");
    const at = await r.waitFor(ONCE_ONLY);
    const prompt = shown(r);
    expect(prompt).toContain(
      "this call would fail even if allowed: file tools reach only the workspace, and ../elsewhere.txt is outside it",
    );
    expect(prompt).not.toContain("asked every time");
    expect(prompt).not.toContain("Edit(");
    r.send("n");
    await r.waitFor("Refused.", at);
    r.send("/exit");
    expect(await r.exited).toBe(0);
  });

  it("p and u write an Edit rule for the file, which covers write_file and edit_file alike, then and in later runs", async () => {
    f.server.enqueue(
      call("write_file", { path: "docs/a.md", content: "A\n" }),
      call("edit_file", { path: "docs/a.md", old_string: "A", new_string: "AA" }),
      call("write_file", { path: "b[1].md", content: "B\n" }),
      call("edit_file", { path: "b[1].md", old_string: "B", new_string: "BB" }),
      call("write_file", { path: "b1.md", content: "not covered\n" }),
      { text: "Both done." },
    );
    const r = open();
    await r.waitFor("reson> ");
    r.send("write docs");
    let at = await r.waitFor(PROMPT);
    r.send("p");
    at = await r.waitFor(PROMPT, at);
    expect(r.output.slice(0, at)).toContain("added to .reson/settings.local.json: Edit(./docs/a.md)");
    expect(shown(r)).toContain("? write_file b[1].md");
    r.send("u");
    // The edits of both files are not asked; b1.md, which the escaped rule does not match, is.
    at = await r.waitFor(PROMPT, at);
    expect(shown(r)).toContain("? write_file b1.md");
    expect(promptsSoFar(r)).toBe(3);
    r.send("n");
    await r.waitFor("Both done.", at);
    expect(file("docs/a.md")).toBe("AA\n");
    expect(file("b[1].md")).toBe("BB\n");
    const project = JSON.parse(file(".reson/settings.local.json"));
    expect(project.permissions.allow).toEqual(["Edit(./docs/a.md)"]);
    const user = JSON.parse(readFileSync(join(f.home.path, "settings.json"), "utf8"));
    expect(user.permissions.allow).toEqual(["Edit(./b\\[1\\].md)"]);
    r.send("/exit");
    expect(await r.exited).toBe(0);

    // A later headless run in default mode: the saved rules allow edits of those files.
    f.server.enqueue(
      {
        toolCalls: [
          { name: "edit_file", arguments: { path: "docs/a.md", old_string: "AA", new_string: "AAA" } },
          { name: "write_file", arguments: { path: "b[1].md", content: "BBB\n" } },
          { name: "write_file", arguments: { path: "c.md", content: "C\n" } },
        ],
      },
      { text: "ok" },
    );
    const run = await runCli(
      ["run", "--json", "--permission-mode", "default", ...fakeModelArgs(f.server), "edit again"],
      { cwd: f.ws.path, env: cleanEnv({ RESON_HOME: f.home.path }) },
    );
    expect(run.code).toBe(0);
    const results = parseEvents(run.stdout).filter((e) => e.type === "tool_result");
    expect(results.map((e) => e.ok)).toEqual([true, true, false]);
    expect(JSON.stringify(results[0]!.permission)).toContain("Edit(./docs/a.md)");
    expect(JSON.stringify(results[2]!.error)).toContain("--allow 'Edit(./c.md)'");
    expect(file("docs/a.md")).toBe("AAA\n");
  });
});
