// `reson gc` on a real terminal (tmux): it says what it would remove and asks; a no removes
// nothing, a yes removes it.
import { describe, expect, it } from "vitest";
import { cleanEnv, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import { skipWithout } from "../support/requirements.js";
import { resonLine, useTmuxTerminal } from "../support/tmux-terminal.js";

describe.skipIf(await skipWithout("tmux", "reson gc's question on a pty"))("reson gc in a terminal", () => {
  const f = useCliFixture();
  const terminal = useTmuxTerminal("reson-gc");
  const cli = (args: string[]) =>
    runCli(args, { cwd: f.ws.path, env: cleanEnv({ RESON_HOME: f.home.path }) });
  const gc = () =>
    terminal.start(resonLine(["gc", "--older-than", "0s"], { RESON_HOME: f.home.path }), f.ws.path);

  it("asks before removing: no keeps everything, yes removes it", async () => {
    f.server.enqueue({ text: "an old answer" });
    expect((await cli(["run", ...fakeModelArgs(f.server), "an old task"])).code).toBe(0);
    await new Promise((r) => setTimeout(r, 20));

    gc();
    const shown = await terminal.waitFor("Remove them? [y/N]");
    expect(shown).toMatch(
      /This removes 1 run \(\d+ steps?, 1 checkpoint, 0 artifacts\), 1 session, \d+ turns and 0 channel messages older than 0s/,
    );
    terminal.keys("n", "Enter");
    await terminal.waitFor("Nothing removed.");
    expect((await cli(["sessions"])).stdout).toContain("an old task");

    gc();
    await terminal.waitFor("Remove them? [y/N]");
    terminal.keys("y", "Enter");
    await terminal.waitFor("removed 1 run");
    expect((await cli(["sessions"])).stdout).toContain("No sessions yet");
  });
});
