// Crash safety of snapshots and rewinds: the process stops itself with SIGKILL at a named
// point (RESON_TEST_CRASH_AT) while a snapshot is half written or a rewind has restored only
// part of the files. Whatever the point, the next `reson rewind` ends with the workspace as it
// was before the run, the snapshot store consistent (a second rewind has nothing to do), and
// the rewind undoable.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import type { FakeReply } from "../support/fake-model-server.js";
import { folderState } from "../support/folder-state.js";
import { skipWithout } from "../support/requirements.js";

function seed(ws: string): void {
  for (let i = 0; i < 20; i++) {
    mkdirSync(join(ws, `src/m${i % 4}`), { recursive: true });
    writeFileSync(join(ws, `src/m${i % 4}/f${i}.txt`), `file ${i}\n`);
  }
  writeFileSync(join(ws, "notes.md"), "notes\n");
}

const SCRIPT: FakeReply[] = [
  { toolCalls: [{ name: "write_file", arguments: { path: "notes.md", content: "rewritten\n" } }] },
  { toolCalls: [{ name: "execute_command", arguments: { command: "rm -rf src/m1 src/m2" } }] },
  {
    toolCalls: [
      { name: "execute_command", arguments: { command: "mkdir out && echo x > out/y && rm src/m0/f0.txt" } },
    ],
  },
  { toolCalls: [{ name: "edit_file", arguments: { path: "out/y", old_string: "x", new_string: "z" } }] },
  { text: "Done." },
];

describe.skipIf(await skipWithout("sandbox", "snapshot and rewind crash safety"))(
  "snapshot and rewind crash safety",
  () => {
    const f = useCliFixture();
    const reson = (args: string[], extra: Record<string, string> = {}) =>
      runCli(args, { cwd: f.ws.path, env: cleanEnv({ RESON_HOME: f.home.path, ...extra }) });
    const run = (extra: Record<string, string> = {}) =>
      reson(
        ["run", "--json", "--allow", "execute_command", ...fakeModelArgs(f.server), "change things"],
        extra,
      );

    // Snapshots taken by the run: one while the first model call is out (not recorded), the
    // start before the first call that changes files, then after and before each such call.
    it("SIGKILL in the run's first recorded snapshot: nothing was changed, nothing to rewind", async () => {
      seed(f.ws.path);
      const before = folderState(f.ws.path);
      f.server.enqueue(...SCRIPT);
      const killed = await run({ RESON_TEST_CRASH_AT: "snapshot-objects-written:2" });
      expect(killed.signal).toBe("SIGKILL");
      const runId = parseEvents(killed.stdout)[0]!.runId as string;
      expect(folderState(f.ws.path)).toEqual(before);
      const rewind = await reson(["rewind", runId, "--yes"]);
      expect(rewind.code).toBe(2);
      expect(rewind.stderr).toContain(`There are no snapshots of run ${runId}`);
    });

    it.each([3, 4, 6, 7])("SIGKILL in snapshot %i of a run, then rewind, restores the start", async (nth) => {
      seed(f.ws.path);
      const before = folderState(f.ws.path);
      f.server.enqueue(...SCRIPT);
      const killed = await run({ RESON_TEST_CRASH_AT: `snapshot-objects-written:${nth}` });
      expect(killed.signal).toBe("SIGKILL");
      const runId = parseEvents(killed.stdout)[0]!.runId as string;

      const rewind = await reson(["rewind", runId, "--yes", "--force"]);
      expect(rewind.stderr).toBe("");
      expect(rewind.code).toBe(0);
      expect(folderState(f.ws.path)).toEqual(before);
      const again = await reson(["rewind", runId, "--yes"]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain("Nothing to do.");
    });

    it.each(["rewind-journaled:1", "rewind-op:1", "rewind-op:4", "rewind-op:9"])(
      "SIGKILL at %s, then a second rewind completes it; it can still be undone",
      async (point) => {
        seed(f.ws.path);
        const before = folderState(f.ws.path);
        f.server.enqueue(...SCRIPT);
        const done = await run();
        expect(done.code).toBe(0);
        const runId = parseEvents(done.stdout)[0]!.runId as string;
        const afterRun = folderState(f.ws.path);

        const killed = await reson(["rewind", runId, "--yes"], { RESON_TEST_CRASH_AT: point });
        expect(killed.signal).toBe("SIGKILL");

        const second = await reson(["rewind", runId, "--yes"]);
        expect(second.stderr).toBe("");
        expect(second.code).toBe(0);
        expect(second.stdout).toMatch(/an interrupted rewind, rw_\w+, was completed first/);
        expect(folderState(f.ws.path)).toEqual(before);

        const undo = await reson(["rewind", "--undo", "--yes"]);
        expect(undo.code).toBe(0);
        expect(folderState(f.ws.path)).toEqual(afterRun);
      },
    );
  },
);
