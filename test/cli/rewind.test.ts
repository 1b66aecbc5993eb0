// Workspace snapshots through the reson command: a scripted run edits, creates and deletes
// files through the file tools and through commands (rm -rf, find -delete, a Python rmtree,
// chmod), `reson diff` shows what each run and step changed, and `reson rewind` puts every
// byte, mode, link and folder back, in a git repository (whose .git it never touches) and in
// a plain folder, with .gitignore'd bulk left alone; files changed after the run are not
// overwritten without a yes; a rewind can be undone; the conversation goes back with it.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import type { FakeReply } from "../support/fake-model-server.js";
import { type FolderState, folderState } from "../support/folder-state.js";
import { skipWithout } from "../support/requirements.js";

/** A small project: text, binary, executable and private files, a link, an empty folder, ignored bulk. */
function seedProject(ws: string): void {
  const put = (path: string, content: string | Buffer, mode = 0o644) => {
    mkdirSync(join(ws, path, ".."), { recursive: true });
    writeFileSync(join(ws, path), content);
    chmodSync(join(ws, path), mode);
  };
  put("src/a.txt", "alpha\n");
  put("src/lib/util.ts", "export const one = 1;\n");
  put("src/bin.dat", randomBytes(4096));
  put("src/run.sh", "#!/bin/sh\necho run\n", 0o755);
  put("src/private.txt", "mine\n", 0o600);
  mkdirSync(join(ws, "src/empty"));
  symlinkSync("lib/util.ts", join(ws, "src/link.ts"));
  put("logs/1.tmp", "one\n");
  put("logs/2.tmp", "two\n");
  put("logs/keep.log", "keep\n");
  put("data/x/y.csv", "a,b\n1,2\n");
  put("data/z.json", "{}\n");
  put("docs/readme.md", "# readme\n");
  put(".gitignore", "node_modules/\n*.cache\n");
  put("node_modules/pkg/index.js", "module.exports = 1;\n");
  put("build.cache", "cached\n");
}

/** The run: two file tools, then commands that delete and change a lot. */
const SCRIPT: FakeReply[] = [
  {
    toolCalls: [
      { name: "edit_file", arguments: { path: "src/a.txt", old_string: "alpha", new_string: "ALPHA" } },
    ],
  },
  {
    toolCalls: [{ name: "write_file", arguments: { path: "new/created.txt", content: "made by the run\n" } }],
  },
  { toolCalls: [{ name: "execute_command", arguments: { command: "rm -rf src" } }] },
  { toolCalls: [{ name: "execute_command", arguments: { command: "find logs -name '*.tmp' -delete" } }] },
  {
    toolCalls: [
      {
        name: "execute_command",
        arguments: { command: `python3 -c 'import shutil; shutil.rmtree("data")'` },
      },
    ],
  },
  {
    toolCalls: [
      {
        name: "execute_command",
        arguments: {
          command:
            "chmod 600 docs/readme.md && echo more >> docs/readme.md && rm -rf node_modules && touch x.cache",
        },
      },
    ],
  },
  { text: "Done." },
];

describe.skipIf(await skipWithout("sandbox", "workspace snapshots and rewind"))(
  "reson diff and reson rewind",
  () => {
    const f = useCliFixture();
    const env = () => cleanEnv({ RESON_HOME: f.home.path });
    const reson = (args: string[]) => runCli(args, { cwd: f.ws.path, env: env() });
    const run = async (task: string, extra: string[] = []) => {
      const result = await reson([
        "run",
        "--json",
        "--allow",
        "execute_command",
        ...extra,
        ...fakeModelArgs(f.server),
        task,
      ]);
      expect(result.stderr).not.toContain("reson:");
      expect(result.code).toBe(0);
      const events = parseEvents(result.stdout);
      return { events, runId: events[0]!.runId as string };
    };

    it("rewinds a run that deleted through commands: every byte, mode, link and folder comes back; .git is untouched", async () => {
      const ws = f.ws.path;
      seedProject(ws);
      const git = (...args: string[]) => execFileSync("git", args, { cwd: ws, stdio: "pipe" });
      git("init", "-q");
      git("-c", "user.email=t@example.com", "-c", "user.name=t", "add", "-A");
      git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "start");
      const before = folderState(ws, [".git"]);
      const gitBefore = folderState(join(ws, ".git"));
      f.server.enqueue(...SCRIPT);

      const { events, runId } = await run("change and delete things");
      expect(existsSync(join(ws, "src"))).toBe(false);
      expect(existsSync(join(ws, "data"))).toBe(false);
      // Each call's changes are an event, from the snapshots around it.
      const changed = events.filter((event) => event.type === "files_changed");
      const rm = changed.find((event) => JSON.stringify(event).includes("src/bin.dat"))!;
      expect(rm).toMatchObject({ name: "execute_command" });
      expect(rm.files).toEqual(
        expect.arrayContaining([
          { path: "src/a.txt", change: "deleted" },
          { path: "src/empty", change: "deleted" },
          { path: "src/link.ts", change: "deleted" },
        ]),
      );

      // The trace says, under each call, which files it changed.
      const trace = await reson(["trace", "show", runId]);
      expect(trace.stdout).toMatch(
        /execute_command command="find logs -name '\*\.tmp' -delete" ✓.*\n.*files: D logs\/1\.tmp, D logs\/2\.tmp\n/,
      );
      expect(trace.stdout).toContain(
        "files: D src/a.txt, D src/bin.dat, D src/empty, D src/lib/util.ts, D src/link.ts, D src/private.txt, D src/run.sh\n",
      );

      const stat = await reson(["diff", runId, "--stat"]);
      expect(stat.code).toBe(0);
      expect(stat.stdout).toContain("D\tsrc/run.sh");
      expect(stat.stdout).toContain("A\tnew/created.txt");
      expect(stat.stdout).toContain("D\tdata/x/y.csv");
      expect(stat.stdout).toContain("M\tdocs/readme.md");
      expect(stat.stdout).not.toContain("logs/keep.log");
      // One step: only what its command did.
      const step4 = await reson(["diff", runId.slice(0, 12), "--step", "4", "--stat"]);
      expect(step4.stdout.trim().split("\n").sort()).toEqual(["D\tlogs/1.tmp", "D\tlogs/2.tmp"]);
      const patch = await reson(["diff", runId, "--step", "1"]);
      expect(patch.stdout).toContain("diff --git a/src/a.txt b/src/a.txt\n");
      expect(patch.stdout).toContain("-alpha\n+ALPHA\n");

      const rewind = await reson(["rewind", runId, "--yes"]);
      expect(rewind.stderr).toBe("");
      expect(rewind.code).toBe(0);
      expect(rewind.stdout).toContain("restore src/bin.dat");
      expect(rewind.stdout).toContain("remove  new/created.txt");
      expect(rewind.stdout).toMatch(/left as they are, not tracked: .*node_modules/);
      const after = folderState(ws, [".git"]);
      // Ignored bulk is not tracked: what the run did to it stays (node_modules gone, x.cache made).
      const expected: FolderState = { ...before, "x.cache": after["x.cache"]! };
      for (const path of Object.keys(expected)) if (path.startsWith("node_modules/")) delete expected[path];
      expect(after).toEqual(expected);
      expect(folderState(join(ws, ".git"))).toEqual(gitBefore);
    });

    it("works in a folder that is not a git repository, and leaves .gitignore'd files alone", async () => {
      const ws = f.ws.path;
      seedProject(ws);
      const before = folderState(ws);
      f.server.enqueue(
        {
          toolCalls: [
            { name: "execute_command", arguments: { command: "rm -rf src docs && echo junk > build.cache" } },
          ],
        },
        { text: "Gone." },
      );
      const { runId } = await run("delete");
      const rewind = await reson(["rewind", runId, "--yes"]);
      expect(rewind.stderr).toBe("");
      expect(rewind.code).toBe(0);
      expect(folderState(ws)).toEqual({ ...before, "build.cache": folderState(ws)["build.cache"]! });
      expect(readFileSync(join(ws, "build.cache"), "utf8")).toBe("junk\n");
      expect(existsSync(join(ws, ".git"))).toBe(false);
    });

    it("does not overwrite a file changed after the run without a yes, and a rewind can be undone", async () => {
      const ws = f.ws.path;
      writeFileSync(join(ws, "a.txt"), "original\n");
      writeFileSync(join(ws, "b.txt"), "b\n");
      f.server.enqueue(
        { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "by the agent\n" } }] },
        { text: "Written." },
      );
      const { runId } = await run("write a");
      // The user goes on editing after the run.
      writeFileSync(join(ws, "a.txt"), "the user's own edit\n");
      writeFileSync(join(ws, "b.txt"), "b, edited by the user\n");

      const shown = await reson(["rewind", runId, "--dry-run"]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/restore a\.txt\s+! changed since/);
      expect(shown.stdout).not.toContain("b.txt");

      const refused = await reson(["rewind", runId, "--yes"]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("would overwrite changes made since reson's last snapshot: a.txt");
      expect(refused.stderr).toContain("--force");
      expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("the user's own edit\n");
      // Without a terminal nothing can ask: no --yes, no rewind.
      const unasked = await reson(["rewind", runId]);
      expect(unasked.code).toBe(2);
      expect(unasked.stderr).toContain("--yes");

      const forced = await reson(["rewind", runId, "--yes", "--force"]);
      expect(forced.code).toBe(0);
      expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("original\n");
      expect(readFileSync(join(ws, "b.txt"), "utf8")).toBe("b, edited by the user\n");

      const undo = await reson(["rewind", "--undo", "--yes"]);
      expect(undo.code).toBe(0);
      expect(undo.stdout).toContain("Undo rewind rw_");
      expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("the user's own edit\n");
      // And the undo is a rewind too: undoing it rewinds again.
      const redo = await reson(["rewind", "--undo", "--yes"]);
      expect(redo.code).toBe(0);
      expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("original\n");
    });

    it("rewinds to before a step, and takes the conversation back unless --files-only", async () => {
      const ws = f.ws.path;
      seedProject(ws);
      f.server.enqueue(...SCRIPT);
      const { runId } = await run("change and delete things");
      const toStep = await reson(["rewind", runId, "--to-step", "3", "--files-only", "--yes"]);
      expect(toStep.stderr).toBe("");
      expect(toStep.code).toBe(0);
      // As after step 2: the edit and the new file stay, the deletions are undone.
      expect(readFileSync(join(ws, "src/a.txt"), "utf8")).toBe("ALPHA\n");
      expect(readFileSync(join(ws, "new/created.txt"), "utf8")).toBe("made by the run\n");
      expect(existsSync(join(ws, "data/x/y.csv"))).toBe(true);

      // --files-only kept the conversation: the next task in the session sees the run.
      f.server.enqueue({ text: "Next." });
      await run("next task", ["--continue"]);
      expect(JSON.stringify(f.server.requests.at(-1)!.body)).toContain("change and delete things");

      const whole = await reson(["rewind", runId, "--yes"]);
      expect(whole.code).toBe(0);
      expect(whole.stdout).toContain("the conversation goes back too");
      f.server.enqueue({ text: "Fresh." });
      await run("another task", ["--continue"]);
      const seen = JSON.stringify(f.server.requests.at(-1)!.body);
      expect(seen).not.toContain("change and delete things");
      expect(seen).not.toContain("next task");
      expect(seen).toContain("another task");
    });

    it("says where snapshots are missing, and reson gc removes them with their runs", async () => {
      const missing = await reson(["rewind", "01KZZZZZZZZZZZZZZZZZZZZZZZ", "--yes"]);
      expect(missing.code).toBe(2);
      writeFileSync(join(f.ws.path, "a.txt"), "a\n");
      f.server.enqueue(
        { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "b\n" } }] },
        { text: "Done." },
      );
      const { runId } = await run("change a");
      const stat = await reson(["diff", runId, "--stat"]);
      expect(stat.stderr).toContain("1 path changed");
      expect(stat.stdout).toBe("M\ta.txt\n");
      const [store] = readdirSync(join(f.home.path, "snapshots"));
      const points = join(f.home.path, "snapshots", store!, "runs", `${runId}.jsonl`);
      expect(existsSync(points)).toBe(true);
      const gc = await reson(["gc", "--older-than", "0s", "--yes"]);
      expect(gc.code).toBe(0);
      expect(gc.stdout).toContain("removed the workspace snapshots of 1 run");
      expect(existsSync(points)).toBe(false);
    });

    it("past snapshots.maxBytesPerWorkspace the oldest runs' snapshots go first, never the latest run's", async () => {
      writeFileSync(
        join(f.home.path, "config.json"),
        JSON.stringify({ snapshots: { maxBytesPerWorkspace: 1 } }),
      );
      const runIds: string[] = [];
      for (const name of ["one", "two", "three"]) {
        f.server.enqueue(
          { toolCalls: [{ name: "write_file", arguments: { path: `${name}.txt`, content: `${name}\n` } }] },
          { text: "Done." },
        );
        runIds.push((await run(`write ${name}`)).runId);
      }
      // Over the cap after every run: only the latest run's snapshots are left.
      for (const old of runIds.slice(0, 2)) {
        const diff = await reson(["diff", old]);
        expect(diff.code).not.toBe(0);
        expect(diff.stderr).toContain(`There are no snapshots of run ${old} on this machine.`);
      }
      const latest = await reson(["diff", runIds[2]!, "--stat"]);
      expect(latest.stdout).toBe("A\tthree.txt\n");
      const rewound = await reson(["rewind", runIds[2]!, "--yes"]);
      expect(rewound.code).toBe(0);
      expect(existsSync(join(f.ws.path, "three.txt"))).toBe(false);
      expect(readFileSync(join(f.ws.path, "two.txt"), "utf8")).toBe("two\n");
    });
  },
);
