// End to end on a real pseudo-terminal (tmux): text reson did not write (the model's words, a
// command's output, what the trace kept of them) cannot steer the user's terminal. Escape
// sequences are shown written out (`\x1b[31m`), the window title stays as it was, and reson's
// own colours still work; through a pipe, and in --json, the text stays exact.
import { execFileSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI, cleanEnv, parseEvents, runCli, type TempDir, tempDir } from "../support/cli.js";
import { fakeModelArgs } from "../support/cli-fixture.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";
import { skipWithout } from "../support/requirements.js";

const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });
const ESC = String.fromCharCode(27);
const BEL = String.fromCharCode(7);
/** What a file or a web page the model repeats might hold: a colour, a new window title, a clear screen. */
const HOSTILE = `Look ${ESC}[31mRED${ESC}[0m and ${ESC}]0;PWNED${BEL}title ${ESC}[2Jcleared`;
const SHOWN = "Look \\x1b[31mRED\\x1b[0m and \\x1b]0;PWNED\\x07title \\x1b[2Jcleared";

describe.skipIf(await skipWithout("tmux", "reson's output on a pty"))("outside text on a terminal", () => {
  let server: FakeModelServer;
  let ws: TempDir;
  let home: TempDir;
  const name = `reson-safety-${process.pid}`;

  beforeEach(async () => {
    server = await startFakeModelServer();
    ws = tempDir();
    home = tempDir();
  });
  afterEach(async () => {
    try {
      tmux("kill-session", "-t", name);
    } catch {}
    await server.close();
    ws.remove();
    home.remove();
  });

  const screen = () => tmux("capture-pane", "-p", "-t", name, "-S", "-200");
  const title = () => tmux("display-message", "-p", "-t", name, "#{pane_title}").trim();
  const waitFor = async (text: string): Promise<string> => {
    for (let i = 0; i < 300; i++) {
      const shown = screen();
      if (shown.includes(text)) return shown;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${text}; screen:\n${screen()}`);
  };
  /** `reson <args>` in a fresh 200x50 terminal whose screen stays readable after it exits. */
  const open = (args: string[]) => {
    try {
      tmux("kill-session", "-t", name);
    } catch {}
    const command = [
      `RESON_HOME=${home.path}`,
      "OLLAMA_HOST=127.0.0.1:9",
      "TERM=xterm-256color",
      process.execPath,
      CLI,
      ...args.map((arg) => `'${arg}'`),
    ].join(" ");
    tmux(
      "new-session",
      "-d",
      "-s",
      name,
      "-x",
      "200",
      "-y",
      "50",
      "-c",
      ws.path,
      `env -u NO_COLOR ${command}`,
      ";",
      "set-option",
      "-w",
      "-t",
      name,
      "remain-on-exit",
      "on",
    );
  };

  it("reson run and reson trace show write the model's escapes and a command's out, never send them", async () => {
    const command = `printf '${"\\033"}]0;PWNED2${"\\007"}boom${"\\033"}[2J\\n'; exit 4`;
    server.enqueue({ toolCalls: [{ name: "execute_command", arguments: { command } }] }, { text: HOSTILE });
    open([
      "run",
      ...fakeModelArgs(server),
      "--sandbox",
      "off",
      "--allow",
      "execute_command",
      "repeat the file",
    ]);
    let shown = await waitFor("✓ done");
    expect(shown).toContain(SHOWN);
    expect(shown).toContain("\\x1b]0;PWNED2\\x07boom\\x1b[2J");
    expect(title()).not.toContain("PWNED");

    // The trace keeps the text as it was; shown on a terminal, it is written out too.
    const sessions = await runCli(["sessions", "--json"], {
      cwd: ws.path,
      env: cleanEnv({ RESON_HOME: home.path }),
    });
    const runId = (JSON.parse(sessions.stdout.split("\n")[0]!) as { lastTraceId: string }).lastTraceId;
    open(["trace", "show", runId]);
    shown = await waitFor(`run ${runId}`);
    expect(shown).toContain("Look \\x1b[31mRED");
    expect(title()).not.toContain("PWNED");
  });

  it("the interactive terminal writes the model's escapes out, and keeps its own colours", async () => {
    server.enqueue({ text: HOSTILE });
    open(fakeModelArgs(server));
    await waitFor("reson>");
    tmux("send-keys", "-t", name, "repeat the file", "Enter");
    const shown = await waitFor("this session");
    expect(shown).toContain(SHOWN);
    expect(title()).not.toContain("PWNED");
    // reson's own status line is still dim (its escape reaches the terminal, re-encoded by tmux).
    const coloured = tmux("capture-pane", "-p", "-e", "-t", name, "-S", "-200");
    expect(coloured).toMatch(new RegExp(`${ESC}\\[2m[^\\n]*this session`));
    tmux("send-keys", "-t", name, "/exit", "Enter");
    await waitFor("reson --continue");
  });

  it("through a pipe and in --json the model's text stays exact", async () => {
    server.enqueue({ text: HOSTILE }, { text: HOSTILE });
    const env = cleanEnv({ RESON_HOME: home.path });
    const piped = await runCli(["run", ...fakeModelArgs(server), "repeat"], { cwd: ws.path, env });
    expect(piped.stdout).toContain(HOSTILE);
    const json = await runCli(["run", "--json", ...fakeModelArgs(server), "repeat"], { cwd: ws.path, env });
    const end = parseEvents(json.stdout).at(-1)!;
    expect(end).toMatchObject({ type: "run_end", finalText: HOSTILE });
  });
});
