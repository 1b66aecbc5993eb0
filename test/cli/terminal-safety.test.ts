// End to end on a real pseudo-terminal (tmux): text reson did not write (the model's words, a
// command's output, what the trace kept of them) cannot steer the user's terminal. Escape
// sequences are shown written out (`\x1b[31m`), the window title stays as it was, and reson's
// own colours still work; through a pipe, and in --json, the text stays exact.
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import { skipWithout } from "../support/requirements.js";
import { resonLine, useTmuxTerminal } from "../support/tmux-terminal.js";

const ESC = String.fromCharCode(27);
const BEL = String.fromCharCode(7);
/** What a file or a web page the model repeats might hold: a colour, a new window title, a clear screen. */
const HOSTILE = `Look ${ESC}[31mRED${ESC}[0m and ${ESC}]0;PWNED${BEL}title ${ESC}[2Jcleared`;
const SHOWN = "Look \\x1b[31mRED\\x1b[0m and \\x1b]0;PWNED\\x07title \\x1b[2Jcleared";

describe.skipIf(await skipWithout("tmux", "reson's output on a pty"))("outside text on a terminal", () => {
  const f = useCliFixture();
  const terminal = useTmuxTerminal("reson-safety");
  const open = (args: string[]) =>
    terminal.start(
      resonLine(args, { RESON_HOME: f.home.path, OLLAMA_HOST: "127.0.0.1:9", TERM: "xterm-256color" }, [
        "NO_COLOR",
      ]),
      f.ws.path,
    );

  it("reson run and reson trace show write the model's escapes and a command's output out, never send them", async () => {
    const command = "printf '\\033]0;PWNED2\\007boom\\033[2J\\n'; exit 4";
    f.server.enqueue({ toolCalls: [{ name: "execute_command", arguments: { command } }] }, { text: HOSTILE });
    open([
      "run",
      ...fakeModelArgs(f.server),
      "--sandbox",
      "off",
      "--allow",
      "execute_command",
      "repeat the file",
    ]);
    let shown = await terminal.waitFor("✓ done");
    expect(shown).toContain(SHOWN);
    expect(shown).toContain("\\x1b]0;PWNED2\\x07boom\\x1b[2J");
    expect(terminal.title()).not.toContain("PWNED");

    // The trace keeps the text as it was; shown on a terminal, it is written out too.
    const sessions = await runCli(["sessions", "--json"], {
      cwd: f.ws.path,
      env: cleanEnv({ RESON_HOME: f.home.path }),
    });
    const runId = (JSON.parse(sessions.stdout.split("\n")[0]!) as { lastTraceId: string }).lastTraceId;
    open(["trace", "show", runId]);
    shown = await terminal.waitFor(`run ${runId}`);
    expect(shown).toContain("Look \\x1b[31mRED");
    expect(terminal.title()).not.toContain("PWNED");
  });

  it("the interactive terminal writes the model's escapes out, and keeps its own colours", async () => {
    f.server.enqueue({ text: HOSTILE });
    open(fakeModelArgs(f.server));
    await terminal.waitFor("reson>");
    terminal.keys("repeat the file", "Enter");
    const shown = await terminal.waitFor("this session");
    expect(shown).toContain(SHOWN);
    expect(terminal.title()).not.toContain("PWNED");
    // reson's own status line is still dim (its escape reaches the terminal, re-encoded by tmux).
    expect(terminal.screen({ escapes: true })).toMatch(new RegExp(`${ESC}\\[2m[^\\n]*this session`));
    terminal.keys("/exit", "Enter");
    await terminal.waitFor("reson --continue");
  });

  it("through a pipe and in --json the model's text stays exact", async () => {
    f.server.enqueue({ text: HOSTILE }, { text: HOSTILE });
    const env = cleanEnv({ RESON_HOME: f.home.path });
    const piped = await runCli(["run", ...fakeModelArgs(f.server), "repeat"], { cwd: f.ws.path, env });
    expect(piped.stdout).toContain(HOSTILE);
    const json = await runCli(["run", "--json", ...fakeModelArgs(f.server), "repeat"], {
      cwd: f.ws.path,
      env,
    });
    expect(parseEvents(json.stdout).at(-1)).toMatchObject({ type: "run_end", finalText: HOSTILE });
  });
});
