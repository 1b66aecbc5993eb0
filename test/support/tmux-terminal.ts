// A real pseudo-terminal for tests, through tmux: a command started in a fresh session whose
// screen stays readable after it exits, read back as text (or with its escape sequences, as
// tmux re-encodes them), keys sent to it, its window title read. Killed after each test.
import { execFileSync } from "node:child_process";
import { afterEach } from "vitest";
import { CLI } from "./cli.js";

const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });

export interface TmuxTerminal {
  /** Starts `command` (one shell line) in `cwd`, in a `width` x `height` terminal. */
  start(command: string, cwd: string, size?: { width: number; height: number }): void;
  /** The screen and its scrollback; with `escapes`, its colours as escape sequences. */
  screen(options?: { escapes?: boolean }): string;
  /** Resolves with the screen once `text` is on it (at most 15 s). */
  waitFor(text: string | RegExp): Promise<string>;
  keys(...keys: string[]): void;
  /** The window title the program set (or tmux's default). */
  title(): string;
}

/**
 * The shell line that runs the built reson with `args` (quoted), `env` set and `unset` removed
 * from the environment the tmux server passes on (NO_COLOR, to see reson's colours).
 */
export function resonLine(args: string[], env: Record<string, string>, unset: string[] = []): string {
  const assignments = Object.entries(env).map(([key, value]) => `${key}='${value}'`);
  const removed = unset.flatMap((key) => ["-u", key]);
  return ["env", ...removed, ...assignments, process.execPath, CLI, ...args.map((arg) => `'${arg}'`)].join(
    " ",
  );
}

/** Call inside a describe block: one terminal per test, named after `prefix` and this process. */
export function useTmuxTerminal(prefix: string): TmuxTerminal {
  const name = `${prefix}-${process.pid}`;
  const kill = () => {
    try {
      tmux("kill-session", "-t", name);
    } catch {}
  };
  afterEach(kill);
  const terminal: TmuxTerminal = {
    start(command, cwd, size = { width: 200, height: 50 }) {
      kill();
      tmux(
        "new-session",
        "-d",
        "-s",
        name,
        "-x",
        String(size.width),
        "-y",
        String(size.height),
        "-c",
        cwd,
        command,
        ";",
        "set-option",
        "-w",
        "-t",
        name,
        "remain-on-exit",
        "on",
      );
    },
    screen: (options = {}) =>
      tmux("capture-pane", "-p", ...(options.escapes ? ["-e"] : []), "-t", name, "-S", "-200"),
    async waitFor(text) {
      for (let i = 0; i < 300; i++) {
        const shown = terminal.screen();
        if (typeof text === "string" ? shown.includes(text) : text.test(shown)) return shown;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`timed out waiting for ${String(text)}; screen:\n${terminal.screen()}`);
    },
    keys: (...keys) => {
      tmux("send-keys", "-t", name, ...keys);
    },
    title: () => tmux("display-message", "-p", "-t", name, "#{pane_title}").trim(),
  };
  return terminal;
}
