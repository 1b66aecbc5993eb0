// Running one shell command: its own process group (so a timeout or an abort reaches every
// process it started), stdin on /dev/null, stdout and stderr merged in order into one
// bounded capture, and a result that is data (exit code, signal, timedOut, aborted), not a
// throw. The OS sandbox (bubblewrap) wraps this in a later issue.
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { sleep, throwIfAborted } from "../core/abort.js";
import { ResonError } from "../core/errors.js";
import { OutputCapture } from "./output-capture.js";

export const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
/** Between SIGTERM to the group and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 2_000;
/**
 * After the shell exits, how long to wait for the output pipes to close. A background
 * process (`server &`) keeps them open; it is left running and its later output dropped.
 */
const EXIT_DRAIN_MS = 250;
/** After SIGKILL, the longest wait for the pipes (a process may have left the group). */
const CLOSE_AFTER_KILL_MS = 1_000;
const GROUP_POLL_MS = 25;

export interface CommandOptions {
  /** Wall-clock limit; default 120 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Output kept (head and tail halves); default 1 MiB. */
  maxOutputBytes?: number;
}

export interface CommandSpec extends CommandOptions {
  command: string;
  cwd: string;
  env: Record<string, string>;
  shell: string;
  killGraceMs?: number;
}

export interface CommandResult {
  command: string;
  /** The shell's exit code; null when it was ended by a signal. */
  exitCode: number | null;
  /** The signal that ended the shell, if one did. */
  signal: NodeJS.Signals | null;
  /** stdout and stderr interleaved as written, cut in the middle past `maxOutputBytes`. */
  output: string;
  /** Bytes the command wrote in all, including any not kept. */
  outputBytes: number;
  truncated: boolean;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
}

/** bash when the machine has it (people write bash), else the POSIX shell. */
export function defaultShell(): string {
  for (const candidate of ["/bin/bash", "/usr/bin/bash"]) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; try the next
    }
  }
  return "/bin/sh";
}

function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether any process of the group is still running. kill(-pgid, 0) alone also counts
 * zombies, and an orphan's zombie lingers where PID 1 is slow to reap (containers, VMs),
 * so on Linux the group's members are read from /proc.
 */
async function groupAlive(pgid: number): Promise<boolean> {
  if (!signalGroup(pgid, 0)) return false;
  const pids = await readdir("/proc").catch(() => undefined);
  if (!pids) return true;
  for (const pid of pids) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    // "pid (comm) state ppid pgrp ..."; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z") return true;
  }
  return false;
}

/** SIGTERM to the whole group, then SIGKILL once the grace period is over if any is left. */
async function killGroup(pid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pid, "SIGTERM")) return;
  const deadline = performance.now() + graceMs;
  while (performance.now() < deadline) {
    await sleep(GROUP_POLL_MS);
    if (!(await groupAlive(pid))) return;
  }
  signalGroup(pid, "SIGKILL");
}

export function runCommand(spec: CommandSpec): Promise<CommandResult> {
  throwIfAborted(spec.signal);
  const started = performance.now();
  const capture = new OutputCapture(spec.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
  // The outer shell points stderr at stdout and execs the real one, so both streams share
  // one pipe and keep their order, and error messages still name the user's command.
  const child = spawn(spec.shell, ["-c", 'exec "$0" -c "$1" 2>&1', spec.shell, spec.command], {
    cwd: spec.cwd,
    env: spec.env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });

  return new Promise<CommandResult>((resolve, reject) => {
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let timedOut = false;
    let aborted = false;
    let terminating: Promise<void> | undefined;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];

    const cleanup = () => {
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const finish = () => {
      if (settled) return;
      cleanup();
      resolve({
        command: spec.command,
        exitCode,
        signal: exitSignal,
        output: capture.text(),
        outputBytes: capture.totalBytes,
        truncated: capture.truncated,
        timedOut,
        aborted,
        durationMs: Math.round(performance.now() - started),
      });
    };
    const terminate = () => {
      if (terminating || settled || child.pid === undefined) return;
      terminating = killGroup(child.pid, spec.killGraceMs ?? DEFAULT_KILL_GRACE_MS).then(() => {
        if (!settled) timers.push(setTimeout(finish, CLOSE_AFTER_KILL_MS));
      });
    };
    function onAbort() {
      aborted = true;
      terminate();
    }

    child.stdout.on("data", (chunk: Buffer) => capture.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => capture.push(chunk));
    child.on("error", (error) => {
      if (settled) return;
      cleanup();
      reject(
        new ResonError("command_failed", `Could not start ${spec.shell}: ${error.message}`, { cause: error }),
      );
    });
    child.on("exit", (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      if (!terminating) timers.push(setTimeout(finish, EXIT_DRAIN_MS));
    });
    child.on("close", () => {
      if (terminating) void terminating.then(finish);
      else finish();
    });

    const timeoutMs = spec.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    timers.push(
      setTimeout(() => {
        timedOut = true;
        terminate();
      }, timeoutMs),
    );
    spec.signal?.addEventListener("abort", onAbort, { once: true });
  });
}
