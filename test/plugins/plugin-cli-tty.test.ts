// `reson plugin` on a real pseudo-terminal (tmux): adding a project plugin asks before trusting
// it, a "no" leaves it untrusted (runs leave it out), and `reson plugin trust` asks and trusts.
import { cpSync, mkdirSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverPlugins } from "../../src/plugins/index.js";
import { type TempDir, tempDir } from "../support/cli.js";
import { skipWithout } from "../support/requirements.js";
import { resonLine, useTmuxTerminal } from "../support/tmux-terminal.js";

const FIXTURE = resolve(import.meta.dirname, "../fixtures/plugins/hello-plugin");

describe.skipIf(await skipWithout("tmux", "reson plugin on a pty"))("reson plugin on a pty", () => {
  let dir: TempDir;
  let ws: string;
  const terminal = useTmuxTerminal("reson-plugin-test");

  beforeEach(() => {
    dir = tempDir("reson-plugin-tty-");
    ws = realpathSync(dir.path);
    mkdirSync(join(ws, ".git"));
    cpSync(FIXTURE, join(ws, "tools", "hello"), { recursive: true });
  });
  afterEach(() => {
    dir.remove();
  });

  const screen = () => terminal.screen();
  const waitFor = (text: string) => terminal.waitFor(text);
  /** `reson plugin <args>` in a fresh terminal, kept on screen after it exits. */
  const plugin = (...args: string[]) =>
    terminal.start(resonLine(["plugin", ...args], { RESON_HOME: dir.home, NO_COLOR: "1" }), ws, {
      width: 200,
      height: 40,
    });
  const loaded = async () =>
    (await discoverPlugins({ home: dir.home, workspace: ws })).load.map((p) => p.name);

  it("asks before trusting a project plugin it adds, and `trust` asks again", async () => {
    plugin("add", "./tools/hello", "--project");
    await waitFor("Trust it (package hash");
    terminal.keys("n", "Enter");
    await waitFor("Not trusted");
    expect(await loaded()).toEqual([]);
    expect((await discoverPlugins({ home: dir.home, workspace: ws })).untrusted.map((p) => p.name)).toEqual([
      "hello-plugin",
    ]);

    plugin("trust", "hello-plugin");
    await waitFor("Trust it (package hash");
    terminal.keys("y", "Enter");
    await waitFor("A change to its files asks again");
    expect(await loaded()).toEqual(["hello-plugin"]);
  });

  it("--yes trusts without asking", async () => {
    plugin("add", "./tools/hello", "--project", "--yes");
    await waitFor("as you added it");
    expect(screen()).not.toContain("Trust it (");
    expect(await loaded()).toEqual(["hello-plugin"]);
  });
});
