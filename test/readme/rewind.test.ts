// README "Rewind": a run that writes, edits and deletes (through a command), then the block as
// written in a user's shell: the diff of the run and of one step, a dry run, the rewind, its
// undo, and a rewind to before one step that keeps the conversation.
//
// Harness variables: RESON_PROVIDER=openai-compatible and RESON_BASE_URL point at the fake model
// server, and RESON_MODEL, beside cleanEnv's (test/support/cli.ts).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { skipWithout } from "../support/requirements.js";
import { localModel } from "./readme-user.js";
import { reson, scenario, useModel, useShell, useUser } from "./scenario.js";

describe.skipIf(await skipWithout("sandbox", "README's Rewind block runs a command that deletes a file"))(
  "README: Rewind",
  () => {
    scenario("reson diff", async (block) => {
      const model = await useModel({
        replies: [
          {
            toolCalls: [{ name: "write_file", arguments: { path: "new.txt", content: "made by the run\n" } }],
          },
          {
            toolCalls: [
              { name: "edit_file", arguments: { path: "a.txt", old_string: "alpha", new_string: "ALPHA" } },
            ],
          },
          { toolCalls: [{ name: "execute_command", arguments: { command: "rm b.txt" } }] },
          { text: "Done." },
        ],
      });
      const user = useUser(localModel(model));
      const file = (name: string) => join(user.work, name);
      writeFileSync(file("a.txt"), "alpha\n");
      writeFileSync(file("b.txt"), "bravo\n");
      const run = await reson(user, ["run", "--json", "--allow", "execute_command", "tidy up"]);
      expect(run.code, run.stderr).toBe(0);
      const runId = JSON.parse(run.stdout.split("\n")[0]!).runId as string;
      const shell = useShell(block, user).replace("01K…", runId);

      const diff = await shell.run("reson diff");
      expect(diff.stdout).toContain("+ALPHA");
      expect(diff.stdout).toContain("+made by the run");
      expect(diff.stdout).toContain("-bravo");
      expect((await shell.run("reson diff 01K… --step 3 --stat")).stdout).toBe("D\tb.txt\n");
      const dry = await shell.run("reson rewind 01K… --dry-run");
      expect(dry.stdout + dry.stderr).toContain("b.txt");
      expect(existsSync(file("b.txt"))).toBe(false);

      await shell.run("reson rewind 01K… --yes");
      expect(readFileSync(file("a.txt"), "utf8")).toBe("alpha\n");
      expect(readFileSync(file("b.txt"), "utf8")).toBe("bravo\n");
      expect(existsSync(file("new.txt"))).toBe(false);

      await shell.run("reson rewind --undo --yes");
      expect(readFileSync(file("a.txt"), "utf8")).toBe("ALPHA\n");
      expect(existsSync(file("b.txt"))).toBe(false);
      expect(readFileSync(file("new.txt"), "utf8")).toBe("made by the run\n");

      // Before step 3 (the rm): only b.txt comes back.
      await shell.run("reson rewind 01K… --to-step 3 --files-only --yes");
      shell.end();
      expect(readFileSync(file("b.txt"), "utf8")).toBe("bravo\n");
      expect(readFileSync(file("a.txt"), "utf8")).toBe("ALPHA\n");
      expect(readFileSync(file("new.txt"), "utf8")).toBe("made by the run\n");
    });
  },
);
