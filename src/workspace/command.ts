// Running one shell command: its own process group (so a timeout or an abort reaches every
// process it started), stdin on /dev/null, stdout and stderr merged in order into one
// bounded capture, and a result that is data (exit code, signal, timedOut, aborted), not a
// throw. Given a policy and an enforced sandbox status, the command runs inside bubblewrap
// (exec-sandbox/): then the policy's limits apply and the result says what the sandbox refused.
import { accessSync, constants } from "node:fs";
import { Writable } from "node:stream";
import { sleep, throwIfAborted } from "../core/abort.js";
import { ResonError } from "../core/errors.js";
import {
  discardSandboxLaunch,
  finishSandboxedCommand,
  prepareSandboxedCommand,
  type SandboxLaunch,
  startupFailure,
} from "./exec-sandbox/launch.js";
import { forgetSandboxProbe, type SandboxStatus } from "./exec-sandbox/probe.js";
import { OutputCapture } from "./output-capture.js";
import type { WorkspacePolicy } from "./policy.js";
import { groupRunning, spawnChild, stopSupervisor } from "./processes.js";

export const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
/** Between SIGTERM to the group and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 2_000;
/**
 * After the shell exits, how long to wait for the output pipes to close. A background
 * process (`server &`) keeps them open; it is left running (until reson exits: see
 * processes.ts) and its later output dropped. (In the sandbox nothing outlives the shell:
 * its PID namespace ends with it.)
 */
const EXIT_DRAIN_MS = 250;
/** After SIGKILL, the longest wait for the pipes (a process may have left the group). */
const CLOSE_AFTER_KILL_MS = 1_000;
const GROUP_POLL_MS = 25;

export interface CommandOptions {
  /** Wall-clock limit; default 120 s (the policy's limit when sandboxed). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Output kept (head and tail halves); default 1 MiB. */
  maxOutputBytes?: number;
  /** Variables added to the command's environment (secrets the executor fills in on purpose). */
  extraEnv?: Record<string, string>;
  /**
   * More root-relative paths this command may not change, on top of the policy's protected ones
   * (in the OS sandbox: read-only, and whatever it makes there is removed after it).
   */
  protect?: readonly string[];
  /**
   * Masks the output as it arrives, before it is kept: a value split across two reads is still
   * caught, and the head-and-tail cut can never leave half of one visible.
   */
  outputFilter?: OutputFilter;
}

/** A streaming text filter over raw output bytes (e.g. a secret masker). */
export interface OutputFilter {
  push(chunk: Uint8Array): string;
  end(): string;
}

export interface CommandSandbox {
  policy: WorkspacePolicy;
  status: SandboxStatus;
}

export interface CommandSpec extends CommandOptions {
  command: string;
  cwd: string;
  env: Record<string, string>;
  shell: string;
  killGraceMs?: number;
  /**
   * Run under this policy: inside bwrap when the status is "enforced", plainly otherwise (the
   * caller decides whether that may happen). Either way the policy's timeout and output limit apply.
   */
  sandbox?: CommandSandbox;
  /** Stop the command once it has written this many bytes; default: the policy's, else never. */
  stopAfterOutputBytes?: number;
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
  /** Stopped because it wrote more than `stopAfterOutputBytes`. */
  outputLimitExceeded: boolean;
  durationMs: number;
  /** Ran inside the OS sandbox. */
  sandboxed: boolean;
  /** What the sandbox had to put right afterwards (a protected path created or changed). */
  warnings?: string[];
  /** Set when the failure was the sandbox's doing, e.g. "blocked by sandbox: write outside the workspace". */
  sandboxDenial?: string;
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

/** SIGTERM to the whole group, then SIGKILL once the grace period is over if any is left. */
async function killGroup(pid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pid, "SIGTERM")) return;
  const deadline = performance.now() + graceMs;
  while (performance.now() < deadline) {
    await sleep(GROUP_POLL_MS);
    if (!groupRunning(pid)) return;
  }
  signalGroup(pid, "SIGKILL");
}

/** How to start the process: plainly, or the sandbox wrapper with the seccomp filter on fd 3. */
interface Launch {
  file: string;
  args: string[];
  env: Record<string, string>;
  seccomp?: Buffer;
  stdio: Array<"ignore" | "pipe" | number>;
  /**
   * Sandboxed processes are killed at once: they run in another session, out of reach of
   * SIGTERM to the group. The sandbox's PID 1 goes first (its PID namespace ends with it), so
   * bwrap reaps it and exits by itself instead of leaving it to whoever adopts orphans.
   */
  killAtOnce: boolean;
}

interface RawResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  capture: OutputCapture;
  timedOut: boolean;
  aborted: boolean;
  outputLimitExceeded: boolean;
}

interface RunLimits {
  timeoutMs: number;
  maxOutputBytes: number;
  stopAfterOutputBytes: number | undefined;
}

function runProcess(spec: CommandSpec, launch: Launch, limits: RunLimits): Promise<RawResult> {
  const capture = new OutputCapture(limits.maxOutputBytes);
  const child = spawnChild(launch.file, launch.args, {
    cwd: spec.cwd,
    env: launch.env,
    stdio: launch.stdio,
    group: true,
    supervisor: launch.killAtOnce,
  });
  const stdout = child.stdout!;
  const stderr = child.stderr!;
  const seccompPipe = child.stdio[3];
  if (launch.seccomp && seccompPipe instanceof Writable) {
    // EPIPE if the wrapper dies before bwrap reads the filter; the exit code tells that story.
    seccompPipe.on("error", () => {});
    seccompPipe.end(launch.seccomp);
  }

  return new Promise<RawResult>((resolve, reject) => {
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let timedOut = false;
    let aborted = false;
    let outputLimitExceeded = false;
    let terminating: Promise<void> | undefined;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];

    const cleanup = () => {
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
      stdout.destroy();
      stderr.destroy();
    };
    const finish = () => {
      if (settled) return;
      cleanup();
      if (spec.outputFilter) capture.push(Buffer.from(spec.outputFilter.end()));
      resolve({ exitCode, signal: exitSignal, capture, timedOut, aborted, outputLimitExceeded });
    };
    const terminate = () => {
      if (terminating || settled || child.pid === undefined) return;
      const pid = child.pid;
      const stopping = launch.killAtOnce
        ? stopSupervisor(pid)
        : killGroup(pid, spec.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
      terminating = stopping.then(() => {
        if (!settled) timers.push(setTimeout(finish, CLOSE_AFTER_KILL_MS));
      });
    };
    function onAbort() {
      aborted = true;
      terminate();
    }
    const onData = (chunk: Buffer) => {
      capture.push(spec.outputFilter ? Buffer.from(spec.outputFilter.push(chunk)) : chunk);
      if (limits.stopAfterOutputBytes !== undefined && capture.totalBytes > limits.stopAfterOutputBytes) {
        outputLimitExceeded = true;
        terminate();
      }
    };

    stdout.on("data", onData);
    stderr.on("data", onData);
    child.on("error", (error) => {
      if (settled) return;
      cleanup();
      reject(
        new ResonError("command_failed", `Could not start ${launch.file}: ${error.message}`, {
          cause: error,
        }),
      );
    });
    child.on("exit", (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      // Stopped through its PID 1, bwrap reports the SIGKILL as exit code 128 + 9.
      if (terminating && launch.killAtOnce && code === 128 + 9) {
        exitCode = null;
        exitSignal = "SIGKILL";
      }
      if (!terminating) timers.push(setTimeout(finish, EXIT_DRAIN_MS));
    });
    child.on("close", () => {
      if (terminating) void terminating.then(finish);
      else finish();
    });

    timers.push(
      setTimeout(() => {
        timedOut = true;
        terminate();
      }, limits.timeoutMs),
    );
    spec.signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export async function runCommand(spec: CommandSpec): Promise<CommandResult> {
  throwIfAborted(spec.signal);
  const started = performance.now();
  const policy = spec.sandbox?.policy;
  const limits: RunLimits = {
    timeoutMs: spec.timeoutMs ?? policy?.limits.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    maxOutputBytes: spec.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    stopAfterOutputBytes: spec.stopAfterOutputBytes ?? policy?.limits.outputBytes,
  };
  const sandbox: SandboxLaunch | undefined =
    spec.sandbox?.status.level === "enforced"
      ? await prepareSandboxedCommand({
          ...spec.sandbox,
          command: spec.command,
          cwd: spec.cwd,
          env: spec.env,
          shell: spec.shell,
        })
      : undefined;
  if (sandbox && spec.signal?.aborted) {
    await discardSandboxLaunch(sandbox);
    throwIfAborted(spec.signal);
  }
  // Unsandboxed, an outer shell points stderr at stdout and execs the real one, so both
  // streams share one pipe and keep their order, and error messages still name the user's
  // command. (The sandbox wrapper does the same for bwrap.)
  const launch: Launch = sandbox
    ? { ...sandbox, killAtOnce: true }
    : {
        file: spec.shell,
        args: ["-c", 'exec "$0" -c "$1" 2>&1', spec.shell, spec.command],
        env: spec.env,
        stdio: ["ignore", "pipe", "pipe"],
        killAtOnce: false,
      };

  let raw: RawResult;
  try {
    raw = await runProcess(spec, launch, limits);
  } catch (error) {
    if (sandbox) await discardSandboxLaunch(sandbox);
    throw error;
  }
  const output = raw.capture.text();
  const result: CommandResult = {
    command: spec.command,
    exitCode: raw.exitCode,
    signal: raw.signal,
    output,
    outputBytes: raw.capture.totalBytes,
    truncated: raw.capture.truncated,
    timedOut: raw.timedOut,
    aborted: raw.aborted,
    outputLimitExceeded: raw.outputLimitExceeded,
    durationMs: 0,
    sandboxed: sandbox !== undefined,
  };
  if (sandbox && policy) {
    const outcome = await finishSandboxedCommand(sandbox, policy, {
      output,
      exitCode: raw.exitCode,
      outputLimitExceeded: raw.outputLimitExceeded,
      cwd: spec.cwd,
    });
    const failure = startupFailure(output, raw.exitCode);
    if (failure) {
      // The probe (perhaps remembered from an earlier run) said it would: ask bwrap again next time.
      await forgetSandboxProbe();
      throw new ResonError("sandbox_unavailable", `The sandbox could not start: ${failure}`, {
        hint: "The command did not run. `reson doctor` shows what the sandbox needs on this machine.",
      });
    }
    if (outcome.warnings.length > 0) result.warnings = outcome.warnings;
    if (outcome.sandboxDenial) result.sandboxDenial = outcome.sandboxDenial;
  }
  result.durationMs = Math.round(performance.now() - started);
  return result;
}
