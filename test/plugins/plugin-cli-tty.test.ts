// `reson plugin` on a real pseudo-terminal (tmux): adding a project plugin asks before trusting
// it, a "no" leaves it untrusted (runs leave it out), and `reson plugin trust` asks and trusts.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverPlugins } from "../../src/plugins/index.js";
import { CLI, type TempDir, tempDir } from "../support/cli.js";
import { skipWithout } from "../support/requirements.js";

const FIXTURE = resolve(import.meta.dirname, "../fixtures/plugins/hello-plugin");
const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });

describe.skipIf(await skipWithout("tmux", "reson plugin on a pty"))("reson plugin on a pty", () => {
  let dir: TempDir;
  let ws: string;
  const name = `reson-plugin-test-${process.pid}`;

  beforeEach(() => {
    dir = tempDir("reson-plugin-tty-");
    ws = realpathSync(dir.path);
    mkdirSync(join(ws, ".git"));
    cpSync(FIXTURE, join(ws, "tools", "hello"), { recursive: true });
  });
  afterEach(() => {
    try {
      tmux("kill-session", "-t", name);
    } catch {}
    dir.remove();
  });

  const screen = () => tmux("capture-pane", "-p", "-t", name, "-S", "-100");
  const waitFor = async (text: string): Promise<void> => {
    for (let i = 0; i < 300; i++) {
      if (screen().includes(text)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${text}; screen:\n${screen()}`);
  };
  /** `reson plugin <args>` in a fresh terminal, kept on screen after it exits. */
  const plugin = (args: string) => {
    try {
      tmux("kill-session", "-t", name);
    } catch {}
    const command = `env RESON_HOME=${dir.home} NO_COLOR=1 ${process.execPath} ${CLI} plugin ${args}`;
    tmux(
      "new-session",
      "-d",
      "-s",
      name,
      "-x",
      "200",
      "-y",
      "40",
      "-c",
      ws,
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
  const loaded = async () =>
    (await discoverPlugins({ home: dir.home, workspace: ws })).load.map((p) => p.name);

  it("asks before trusting a project plugin it adds, and `trust` asks again", async () => {
    plugin("add ./tools/hello --project");
    await waitFor("Trust it (package hash");
    tmux("send-keys", "-t", name, "n", "Enter");
    await waitFor("Not trusted");
    expect(await loaded()).toEqual([]);
    expect((await discoverPlugins({ home: dir.home, workspace: ws })).untrusted.map((p) => p.name)).toEqual([
      "hello-plugin",
    ]);

    plugin("trust hello-plugin");
    await waitFor("Trust it (package hash");
    tmux("send-keys", "-t", name, "y", "Enter");
    await waitFor("A change to its files asks again");
    expect(await loaded()).toEqual(["hello-plugin"]);
  });

  it("--yes trusts without asking", async () => {
    plugin("add ./tools/hello --project --yes");
    await waitFor("as you added it");
    expect(screen()).not.toContain("Trust it (");
    expect(await loaded()).toEqual(["hello-plugin"]);
  });
});
