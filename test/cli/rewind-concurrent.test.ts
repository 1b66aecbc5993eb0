// Runs at the same time in one workspace: each command's sandbox stands on empty placeholder
// folders (.envrc, .vscode, …) while it runs, and another run's snapshots must not take them
// for the user's: a rewind of that run would make them all as folders in the workspace.
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import { replyByTask } from "../support/reply-by-task.js";
import { skipWithout } from "../support/requirements.js";
import { waitForFile } from "../support/wait-for-file.js";

describe.skipIf(await skipWithout("sandbox", "workspace snapshots and rewind"))(
  "rewind with runs at the same time",
  () => {
    const f = useCliFixture();
    const reson = (args: string[]) =>
      runCli(args, { cwd: f.ws.path, env: cleanEnv({ RESON_HOME: f.home.path }) });
    const start = (task: string) =>
      reson(["run", "--json", "--allow", "execute_command", ...fakeModelArgs(f.server), task]);

    it("a run's snapshots leave out the placeholders another run's command stands on: its rewind makes no .envrc or .vscode folder", async () => {
      const ws = f.ws.path;
      writeFileSync(join(ws, "base.txt"), "base\n");
      f.server.setResponder(
        replyByTask({
          // Waits (inside its sandbox) until the test says go, after the other run ended.
          waiting: [
            {
              toolCalls: [
                {
                  name: "execute_command",
                  arguments: { command: "while [ ! -e go ]; do sleep 0.05; done; echo A > a.txt" },
                },
              ],
            },
            { text: "A done." },
          ],
          other: [
            { toolCalls: [{ name: "write_file", arguments: { path: "b.txt", content: "B\n" } }] },
            { text: "B done." },
          ],
        }),
      );
      const waiting = start("waiting task");
      // The first run's command is running: its sandbox's placeholders are in the workspace.
      await waitForFile(join(ws, ".envrc"));
      const other = await start("other task");
      expect(other.code).toBe(0);
      writeFileSync(join(ws, "go"), "");
      expect((await waiting).code).toBe(0);
      expect(readdirSync(ws).sort()).toEqual(["a.txt", "b.txt", "base.txt", "go"]);
      const otherId = parseEvents(other.stdout)[0]!.runId as string;

      const plan = await reson(["rewind", otherId, "--dry-run", "--json"]);
      expect(plan.code).toBe(0);
      const { changes } = JSON.parse(plan.stdout) as { changes: Array<{ path: string }> };
      // As before that run: what it and everything after it did goes, and nothing else comes.
      expect(changes.map((change) => change.path)).toEqual(["a.txt", "b.txt", "go"]);
      const rewind = await reson(["rewind", otherId, "--yes", "--files-only"]);
      expect(rewind.code).toBe(0);
      expect(readdirSync(ws).sort()).toEqual(["base.txt"]);
      expect(existsSync(join(ws, ".vscode"))).toBe(false);
    });
  },
);
