// One bash process that runs commands one after another, as a user types them into a terminal:
// variables, functions and the working folder carry over from one command to the next, and each
// command's output and status come back on their own. README's command blocks are run this way.
// The shell leads a process group of its own: what a command leaves running in the background
// (`reson worker &`) is ended with it by close().
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";

export interface ShellResult {
  command: string;
  code: number;
  stdout: string;
  stderr: string;
}

export interface ShellRunOptions {
  /** What the command reads on standard input (default: nothing, as from /dev/null). */
  input?: string;
  timeoutMs?: number;
}

export class ShellSession {
  private readonly child: ChildProcessWithoutNullStreams;
  private stdout = "";
  private stderr = "";
  private readonly marker = `__shell_${randomBytes(6).toString("hex")}__`;
  private wake: (() => void) | undefined;
  private exited = false;

  constructor(options: { cwd: string; env: NodeJS.ProcessEnv }) {
    this.child = spawn("bash", ["--noprofile", "--norc"], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
    });
    this.child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      this.stdout += chunk;
      this.wake?.();
    });
    this.child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      this.stderr += chunk;
      this.wake?.();
    });
    this.child.on("exit", () => {
      this.exited = true;
      this.wake?.();
    });
  }

  /** Runs `command` (one line, or lines that belong together) and waits for its status. */
  async run(command: string, options: ShellRunOptions = {}): Promise<ShellResult> {
    if (this.exited) throw new Error(`the shell has exited; cannot run: ${command}`);
    this.stdout = "";
    this.stderr = "";
    const input =
      options.input === undefined
        ? "< /dev/null"
        : `<<'${this.marker}_input'\n${options.input.replace(/\n$/, "")}\n${this.marker}_input`;
    // The command runs in the shell itself (not a subshell), so what it sets stays set; its
    // status and a marker on each stream say where its output ends.
    this.child.stdin.write(
      `{\n${command}\n} ${input}\n__status=$?; printf '\\n${this.marker}%s\\n' "$__status"; printf '\\n${this.marker}\\n' >&2\n`,
    );
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    // Not anchored at the end: a job the command left in the background may write after them.
    const done = new RegExp(`\\n${this.marker}(\\d+)\\n`);
    const stderrEnd = `\n${this.marker}\n`;
    while (!(done.test(this.stdout) && this.stderr.includes(stderrEnd))) {
      if (this.exited) throw new Error(`the shell exited while running: ${command}\n${this.stderr}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `did not finish within ${options.timeoutMs ?? 60_000} ms: ${command}\n${this.stderr}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1_000));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
    const match = done.exec(this.stdout)!;
    return {
      command,
      code: Number(match[1]),
      stdout: this.stdout.slice(0, match.index),
      stderr: this.stderr.slice(0, this.stderr.indexOf(stderrEnd)),
    };
  }

  /**
   * Ends the shell and everything it started that is still running: SIGTERM to its process
   * group, so reson processes clean up as on Ctrl-C, then SIGKILL to what is left after
   * `graceMs`.
   */
  async close(graceMs = 5_000): Promise<void> {
    const group = this.child.pid;
    if (group === undefined) return;
    const signal = (name: NodeJS.Signals | 0) => {
      try {
        process.kill(-group, name);
        return true;
      } catch {
        return false; // The group is gone.
      }
    };
    if (!signal("SIGTERM")) return;
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && signal(0)) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    signal("SIGKILL");
  }
}
