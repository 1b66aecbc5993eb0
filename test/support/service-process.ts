// Long-running reson processes for the service tests (`reson serve`, `reson worker`): started
// with their own environment, their log lines collected, stopped or killed on demand, and all
// of them killed at the end of a test so nothing outlives it.
import { type ChildProcess, spawn } from "node:child_process";
import { CLI } from "./cli.js";

export interface ServiceProcess {
  readonly child: ChildProcess;
  /** Everything written to stderr (the log) and stdout so far. */
  readonly stderr: () => string;
  readonly stdout: () => string;
  /** Resolves with the first stderr/stdout text matching, or rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or signal) once the process has exited. */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): void;
}

const started = new Set<ChildProcess>();

export function startReson(
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string },
): ServiceProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: options.env,
    cwd: options.cwd ?? process.cwd(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.add(child);
  let err = "";
  let out = "";
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    err += chunk;
    notify();
  });
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
    notify();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("exit", (code, signal) => {
      started.delete(child);
      resolve({ code, signal });
      notify();
    });
  });
  return {
    child,
    stderr: () => err,
    stdout: () => out,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = (err + out).match(pattern);
          if (match) {
            cleanup();
            resolve(match);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            cleanup();
            reject(new Error(`reson ${args[0]} exited before printing ${pattern}:\n${err}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`reson ${args[0]} did not print ${pattern} within ${timeoutMs} ms:\n${err}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    exited: () => exit,
    kill: (signal = "SIGTERM") => {
      child.kill(signal);
    },
  };
}

/** Kills every process startReson started that is still running (for afterEach). */
export async function killAllReson(): Promise<void> {
  const waits = [...started].map(
    (child) =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  );
  await Promise.all(waits);
}
