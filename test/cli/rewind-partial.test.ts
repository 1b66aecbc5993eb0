// A rewind after a run that ended reads only the paths the run changed (not the whole
// workspace): its record says so (partial). What that must not change: a file the user edited
// elsewhere is never put back, not by the rewind, not by undoing it after another run, not by
// completing it after a crash; a file the user added inside a folder the rewind would remove
// is not removed without a yes; and where the scan cannot stand for the workspace, the rewind
// walks it as before.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import type { FakeReply } from "../support/fake-model-server.js";
import { skipWithout } from "../support/requirements.js";

/** The run: a folder deleted by a command, a folder and file made by the file tool. */
const SCRIPT: FakeReply[] = [
  { toolCalls: [{ name: "execute_command", arguments: { command: "rm -rf docs" } }] },
  { toolCalls: [{ name: "write_file", arguments: { path: "made/by-run.txt", content: "run\n" } }] },
  { text: "Done." },
];

function seed(ws: string): void {
  mkdirSync(join(ws, "docs/deep"), { recursive: true });
  for (let i = 0; i < 6; i++) writeFileSync(join(ws, `docs/page${i}.md`), `page ${i}\n`);
  writeFileSync(join(ws, "docs/deep/inner.md"), "inner\n");
  writeFileSync(join(ws, "x.txt"), "x as it was\n");
}

describe.skipIf(await skipWithout("sandbox", "workspace snapshots and rewind"))(
  "a rewind that reads only what it changes",
  () => {
    const f = useCliFixture();
    const reson = (args: string[], extra: Record<string, string> = {}) =>
      runCli(args, { cwd: f.ws.path, env: cleanEnv({ RESON_HOME: f.home.path, ...extra }) });
    const run = async (script: FakeReply[], task: string) => {
      f.server.enqueue(...script);
      const result = await reson([
        "run",
        "--json",
        "--allow",
        "execute_command",
        ...fakeModelArgs(f.server),
        task,
      ]);
      expect(result.code).toBe(0);
      return parseEvents(result.stdout)[0]!.runId as string;
    };
    /** Every rewind record of the workspace, from the snapshot store. */
    const records = () => {
      const stores = join(f.home.path, "snapshots");
      const found: Array<Record<string, unknown>> = [];
      for (const store of readdirSync(stores)) {
        const dir = join(stores, store, "rewinds");
        if (!existsSync(dir)) continue;
        for (const name of readdirSync(dir))
          found.push(JSON.parse(readFileSync(join(dir, name), "utf8")) as Record<string, unknown>);
      }
      return found;
    };
    const read = (path: string) => readFileSync(join(f.ws.path, path), "utf8");

    it("keeps a file the user edited elsewhere: through the rewind, another run, and the undo", async () => {
      seed(f.ws.path);
      const first = await run(SCRIPT, "delete docs");
      writeFileSync(join(f.ws.path, "x.txt"), "x, the user's edit\n");

      const rewind = await reson(["rewind", first, "--yes"]);
      expect(rewind.stderr).toBe("");
      expect(rewind.code).toBe(0);
      expect(read("docs/deep/inner.md")).toBe("inner\n");
      expect(read("docs/page5.md")).toBe("page 5\n");
      expect(existsSync(join(f.ws.path, "made"))).toBe(false);
      expect(read("x.txt")).toBe("x, the user's edit\n");
      expect(records().map((record) => record.partial)).toEqual([true]);

      // Another run (its snapshots see the user's edit), then the rewind is undone.
      const second = await run(
        [
          { toolCalls: [{ name: "write_file", arguments: { path: "other.txt", content: "two\n" } }] },
          { text: "Done." },
        ],
        "write other",
      );
      const undo = await reson(["rewind", "--undo", "--yes"]);
      expect(undo.stderr).toBe("");
      expect(undo.code).toBe(0);
      expect(existsSync(join(f.ws.path, "docs"))).toBe(false);
      expect(read("made/by-run.txt")).toBe("run\n");
      expect(read("x.txt")).toBe("x, the user's edit\n");
      expect(read("other.txt")).toBe("two\n");

      // The second run's snapshots hold the edit: rewinding it leaves x.txt alone.
      const again = await reson(["rewind", second, "--yes"]);
      expect(again.code).toBe(0);
      expect(existsSync(join(f.ws.path, "other.txt"))).toBe(false);
      expect(read("x.txt")).toBe("x, the user's edit\n");
    });

    it("does not remove a file the user added inside a folder the rewind removes, without a yes", async () => {
      seed(f.ws.path);
      const runId = await run(SCRIPT, "delete docs");
      writeFileSync(join(f.ws.path, "made/mine.txt"), "the user's\n");

      const refused = await reson(["rewind", runId, "--yes"]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        "would overwrite changes made since reson's last snapshot: made/mine.txt",
      );
      expect(read("made/mine.txt")).toBe("the user's\n");
      expect(existsSync(join(f.ws.path, "docs"))).toBe(false);

      const forced = await reson(["rewind", runId, "--yes", "--force"]);
      expect(forced.code).toBe(0);
      expect(existsSync(join(f.ws.path, "made"))).toBe(false);
      expect(read("docs/page0.md")).toBe("page 0\n");
      // Read by a walk (the scan could not stand for the folder): a whole record.
      expect(records().map((record) => record.partial)).toEqual([undefined]);
    });

    it("asks before overwriting a file the run changed and the user changed again", async () => {
      seed(f.ws.path);
      const runId = await run(
        [
          { toolCalls: [{ name: "write_file", arguments: { path: "x.txt", content: "by the run\n" } }] },
          { text: "Done." },
        ],
        "write x",
      );
      writeFileSync(join(f.ws.path, "x.txt"), "then the user's\n");
      const refused = await reson(["rewind", runId, "--yes"]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("would overwrite changes made since reson's last snapshot: x.txt");
      expect(read("x.txt")).toBe("then the user's\n");
    });

    it.each(["rewind-op:2", "rewind-op:9"])(
      "SIGKILL at %s: the next rewind completes only the paths it changes, and the user's edit elsewhere stays",
      async (point) => {
        seed(f.ws.path);
        const runId = await run(SCRIPT, "delete docs");
        writeFileSync(join(f.ws.path, "x.txt"), "x, the user's edit\n");

        const killed = await reson(["rewind", runId, "--yes"], { RESON_TEST_CRASH_AT: point });
        expect(killed.signal).toBe("SIGKILL");
        const second = await reson(["rewind", runId, "--yes"]);
        expect(second.stderr).toBe("");
        expect(second.code).toBe(0);
        expect(second.stdout).toMatch(/an interrupted rewind, rw_\w+, was completed first/);
        expect(read("docs/deep/inner.md")).toBe("inner\n");
        expect(existsSync(join(f.ws.path, "made"))).toBe(false);
        expect(read("x.txt")).toBe("x, the user's edit\n");

        const undo = await reson(["rewind", "--undo", "--yes"]);
        expect(undo.code).toBe(0);
        expect(existsSync(join(f.ws.path, "docs"))).toBe(false);
        expect(read("made/by-run.txt")).toBe("run\n");
        expect(read("x.txt")).toBe("x, the user's edit\n");
      },
    );
  },
);
