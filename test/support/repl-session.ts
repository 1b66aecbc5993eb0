// The interactive terminal (`reson` with no subcommand) as a child process driven through
// pipes: lines typed in, stdout and stderr read back as they arrive.
import { type ChildProcess, spawn } from "node:child_process";
import { CLI } from "./cli.js";

export interface ReplSession {
  child: ChildProcess;
  /** stdout and stderr, interleaved as they arrived. */
  readonly output: string;
  send(line: string): void;
  /** Resolves when `text` appears in the output after `from` (default: anywhere). */
  waitFor(text: string | RegExp, from?: number): Promise<number>;
  exited: Promise<number | null>;
}

export function startRepl(args: string[], cwd: string, env: NodeJS.ProcessEnv): ReplSession {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  const waiters = new Set<() => void>();
  const onData = (chunk: string) => {
    output += chunk;
    for (const check of [...waiters]) check();
  };
  child.stdout!.setEncoding("utf8").on("data", onData);
  child.stderr!.setEncoding("utf8").on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    child,
    get output() {
      return output;
    },
    send: (line) => child.stdin!.write(`${line}\n`),
    waitFor: (text, from = 0) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const rest = output.slice(from);
          const at = typeof text === "string" ? rest.indexOf(text) : rest.search(text);
          if (at < 0) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(from + at + 1);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${String(text)}; output:\n${output}`));
        }, 15_000);
        waiters.add(check);
        check();
      }),
    exited,
  };
}
