// Runs the built reson CLI as a child process, the way a user or a script does.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const CLI = resolve(import.meta.dirname, "../../bin/reson.js");

/** Environment without the developer's keys or settings, so tests see only what they set. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/API_KEY|TOKEN|SECRET|^RESON_|^OLLAMA_|^OPENAI_|^ANTHROPIC_/i.test(key)) continue;
    env[key] = value;
  }
  // Nothing listens here: the Ollama probe must find no local model.
  env.OLLAMA_HOST = "127.0.0.1:9";
  env.NO_COLOR = "1";
  // No reflection calls the scripted model server would have to answer (learning tests turn it on).
  env.RESON_MEMORY_REFLECT = "off";
  // No rule withheld at random (holdout): a test that expects a lesson in context gets it.
  env.RESON_MEMORY_HOLDOUT = "0";
  return { ...env, ...extra };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  /** Called with the child once it is running (to send signals). */
  onSpawn?: (child: ChildProcess) => void;
  /** Called with every stdout chunk as it arrives. */
  onStdout?: (chunk: string, child: ChildProcess) => void;
  timeoutMs?: number;
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return runWith(process.execPath, [CLI, ...args], options);
}

/** Runs `file` (the CLI, or a program that runs it) the way runCli does. */
export function runWith(file: string, args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd ?? process.cwd(),
      env: options.env ?? cleanEnv(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `${file} ${args.join(" ")} did not exit within ${options.timeoutMs ?? 20_000} ms\n${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 20_000);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      options.onStdout?.(chunk, child);
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    options.onSpawn?.(child);
    child.stdin.end(options.input ?? "");
  });
}

/** Parses --json output; every line must be one JSON event. */
export function parseEvents(stdout: string): Array<Record<string, unknown> & { type: string }> {
  return stdout
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown> & { type: string });
}

export interface TempDir {
  path: string;
  /**
   * A $RESON_HOME beside the folder (not made until reson makes it), removed with it: a
   * workspace that holds reson's own folder is refused, so it cannot go inside.
   */
  home: string;
  remove(): void;
}

export function tempDir(prefix = "reson-test-"): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  const home = `${path}.home`;
  return {
    path,
    home,
    remove: () => {
      rmSync(path, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    },
  };
}
