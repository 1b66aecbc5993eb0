// `reson gc` on a real terminal (tmux): it says what it would remove and asks; a no removes
// nothing, a yes removes it.
import { execFileSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI, cleanEnv, runCli, type TempDir, tempDir } from "../support/cli.js";
import { fakeModelArgs } from "../support/cli-fixture.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";
import { skipWithout } from "../support/requirements.js";

const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });

describe.skipIf(await skipWithout("tmux", "reson gc's question on a pty"))("reson gc in a terminal", () => {
  let server: FakeModelServer;
  let ws: TempDir;
  const name = `reson-gc-${process.pid}`;

  beforeEach(async () => {
    server = await startFakeModelServer();
    ws = tempDir();
  });
  afterEach(async () => {
    try {
      tmux("kill-session", "-t", name);
    } catch {}
    await server.close();
    ws.remove();
  });

  const screen = () => tmux("capture-pane", "-p", "-t", name, "-S", "-100");
  const waitFor = async (text: string): Promise<string> => {
    for (let i = 0; i < 300; i++) {
      const shown = screen();
      if (shown.includes(text)) return shown;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${text}; screen:\n${screen()}`);
  };
  /** `reson gc --older-than 0s` in a fresh terminal whose screen stays readable after it exits. */
  const gcInTerminal = () => {
    try {
      tmux("kill-session", "-t", name);
    } catch {}
    const command = `RESON_HOME=${ws.home} ${process.execPath} ${CLI} gc --older-than 0s`;
    tmux(
      "new-session",
      "-d",
      "-s",
      name,
      "-x",
      "200",
      "-y",
      "30",
      "-c",
      ws.path,
      command,
      ";",
      "set-option",
      "-w",
      "-t",
      name,
      "remain-on-exit",
      "on",
    );
  };
  const cli = (args: string[]) => runCli(args, { cwd: ws.path, env: cleanEnv({ RESON_HOME: ws.home }) });

  it("asks before removing: no keeps everything, yes removes it", async () => {
    server.enqueue({ text: "an old answer" });
    expect((await cli(["run", ...fakeModelArgs(server), "an old task"])).code).toBe(0);
    await new Promise((r) => setTimeout(r, 20));

    gcInTerminal();
    const shown = await waitFor("Remove them? [y/N]");
    expect(shown).toMatch(
      /This removes 1 run \(\d+ steps?, 1 checkpoint, 0 artifacts\), 1 session and \d+ turns older than 0s/,
    );
    tmux("send-keys", "-t", name, "n", "Enter");
    await waitFor("Nothing removed.");
    expect((await cli(["sessions"])).stdout).toContain("an old task");

    gcInTerminal();
    await waitFor("Remove them? [y/N]");
    tmux("send-keys", "-t", name, "y", "Enter");
    await waitFor("removed 1 run");
    expect((await cli(["sessions"])).stdout).toContain("No sessions yet");
  });
});
