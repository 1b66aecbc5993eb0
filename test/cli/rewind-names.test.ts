// Rewind and diff with what users' folders hold besides plain names and files: names with
// newlines, quotes, escape sequences and bytes past ASCII; names that are not UTF-8; entries
// reson does not track (ignored, too large). A name can neither break `reson diff`'s patch nor
// steer the terminal, the rewind lists only what it does, and nothing is lost without a word.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import type { FakeReply } from "../support/fake-model-server.js";
import { folderState } from "../support/folder-state.js";
import { skipWithout } from "../support/requirements.js";

/** Names a user's folder may hold that need care on their way to a patch or a terminal. */
const ODD_NAMES = [
  "new\nline",
  "\u001b]0;owned\u0007title",
  '\u001b[2Jquo"te\\slash',
  "ünïcödé",
  "sp ace",
  "-dash",
  "empty",
];

describe.skipIf(await skipWithout("sandbox", "workspace snapshots and rewind"))(
  "rewind and diff with odd names and untracked entries",
  () => {
    const f = useCliFixture();
    const reson = (args: string[]) =>
      runCli(args, { cwd: f.ws.path, env: cleanEnv({ RESON_HOME: f.home.path }) });
    const run = async (commands: string[]) => {
      const script: FakeReply[] = commands.map((command) => ({
        toolCalls: [{ name: "execute_command", arguments: { command } }],
      }));
      f.server.enqueue(...script, { text: "Done." });
      const result = await reson([
        "run",
        "--json",
        "--allow",
        "execute_command",
        ...fakeModelArgs(f.server),
        "change things",
      ]);
      expect(result.code).toBe(0);
      return parseEvents(result.stdout)[0]!.runId as string;
    };

    it("quotes odd names in `reson diff` as git does: no escape reaches the output, and git applies the patch", async () => {
      const ws = f.ws.path;
      mkdirSync(join(ws, "d"));
      for (const name of ODD_NAMES) writeFileSync(join(ws, "d", name), name === "empty" ? "" : `${name}\n`);
      const before = folderState(ws);
      const runId = await run(["rm -rf d"]);
      expect(existsSync(join(ws, "d"))).toBe(false);

      const diff = await reson(["diff", runId]);
      expect(diff.code).toBe(0);
      const headers = diff.stdout.split("\n").filter((line) => line.startsWith("diff --git"));
      expect(headers).toContain('diff --git "a/d/new\\nline" "b/d/new\\nline"');
      expect(headers).toContain('diff --git "a/d/\\033]0;owned\\atitle" "b/d/\\033]0;owned\\atitle"');
      expect(headers).toContain('diff --git "a/d/\\033[2Jquo\\"te\\\\slash" "b/d/\\033[2Jquo\\"te\\\\slash"');
      expect(headers).toContain("diff --git a/d/sp ace b/d/sp ace");
      expect(headers).toHaveLength(ODD_NAMES.length);
      // Names cannot steer a terminal through the patch (the files' own lines are shown as they are).
      const names = diff.stdout
        .split("\n")
        .filter((line) => !/^[-+ ]/.test(line) || /^(---|\+\+\+) /.test(line));
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
      expect(names.join("\n")).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
      // The trace names the files each call changed, a path per entry of one line.
      const trace = await reson(["trace", "show", runId]);
      const files = trace.stdout.split("\n").find((line) => line.includes("files: "));
      expect(files).toContain("D d/new\\x0aline");
      expect(files).toContain("D d/\\x1b]0;owned\\x07title");
      // And the patch is one git applies: reversed, it puts the folder back.
      writeFileSync(join(f.home.path, "run.patch"), diff.stdout);
      execFileSync("git", ["apply", "-R", join(f.home.path, "run.patch")], { cwd: ws, stdio: "pipe" });
      expect(folderState(ws)).toEqual(before);
    });

    it("lists only what a rewind does: ignored and too large entries the run touched are named as not tracked, not as restored", async () => {
      const ws = f.ws.path;
      writeFileSync(join(f.home.path, "config.json"), JSON.stringify({ snapshots: { maxFileBytes: 1000 } }));
      writeFileSync(join(ws, ".gitignore"), "cache/\n");
      mkdirSync(join(ws, "cache"));
      writeFileSync(join(ws, "cache/blob"), "cached\n");
      writeFileSync(join(ws, "kept.txt"), "kept\n");
      const runId = await run([
        "rm -rf cache kept.txt && head -c 5000 /dev/zero > big.bin && mkdir -p made/cache && echo c > made/cache/c",
      ]);

      const rewind = await reson(["rewind", runId, "--yes", "--files-only"]);
      expect(rewind.stderr).toBe("");
      expect(rewind.code).toBe(0);
      expect(rewind.stdout).toContain("restore kept.txt");
      expect(rewind.stdout).not.toMatch(/restore\s+cache/);
      expect(rewind.stdout).not.toMatch(/remove\s+big\.bin/);
      expect(rewind.stdout).toMatch(
        /left as they are, not tracked: big\.bin \(larger .*\), cache \(ignored[^,]*\)\n/,
      );
      // What the run made in a folder it made goes with the folder, and is said so.
      expect(rewind.stdout).toMatch(/remove +made\/cache\n/);
      expect(existsSync(join(ws, "made"))).toBe(false);
      expect(readFileSync(join(ws, "kept.txt"), "utf8")).toBe("kept\n");
      expect(existsSync(join(ws, "big.bin"))).toBe(true);
      expect(existsSync(join(ws, "cache"))).toBe(false);
      // The plan a script reads says the same.
      const undo = await reson(["rewind", "--undo", "--dry-run", "--json"]);
      const plan = JSON.parse(undo.stdout) as { changes: Array<{ path: string }>; untracked: string[] };
      expect(plan.changes.map((change) => change.path)).toEqual(["kept.txt"]);
      expect(readdirSync(ws).sort()).toEqual([".gitignore", "big.bin", "kept.txt"]);
    });

    it("names a file whose name is not UTF-8 as not tracked instead of losing it, and a rewind removing its folder asks first", async () => {
      const ws = f.ws.path;
      // Bytes past ASCII that are not UTF-8 (a Latin-1 name from an old archive).
      const odd = (folder: string) =>
        Buffer.concat([Buffer.from(`${ws}/${folder}/caf`), Buffer.from([0xe9])]);
      mkdirSync(join(ws, "old"));
      writeFileSync(join(ws, "old/plain.txt"), "plain\n");
      writeFileSync(odd("old"), "latin-1\n");
      const first = await run(["rm -rf old && mkdir made && echo run > made/by-run.txt"]);

      // The run deleted it with its folder: the rewind says it cannot bring it back.
      const shown = await reson(["rewind", first, "--dry-run"]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/not tracked: old\/caf\uFFFD \(its name is not UTF-8\)/);

      // The user saves a file with such a name in the folder the run made: not removed without a yes.
      writeFileSync(odd("made"), "the user's\n");
      const refused = await reson(["rewind", first, "--yes"]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        "would overwrite changes made since reson's last snapshot: made/caf\uFFFD",
      );
      expect(readFileSync(odd("made"), "utf8")).toBe("the user's\n");

      // With --force it goes with the folder (the rewind completes, nothing is half done).
      const forced = await reson(["rewind", first, "--yes", "--force"]);
      expect(forced.stderr).toBe("");
      expect(forced.code).toBe(0);
      expect(existsSync(join(ws, "made"))).toBe(false);
      expect(readFileSync(join(ws, "old/plain.txt"), "utf8")).toBe("plain\n");
    });
  },
);
