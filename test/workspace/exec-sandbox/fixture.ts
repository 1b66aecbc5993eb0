// Real sandboxed runs for the exec-sandbox tests: a temporary base folder under /var/tmp (so
// folders "outside" the workspace are visible, read-only, inside the sandbox; /tmp is private
// there), a workspace in it, the machine's real probe, and helpers to run commands and to look
// for processes from the host side. Without a working bwrap the suites skip locally and FAIL in
// CI (see probe.test.ts).
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type CommandResult, runCommand } from "../../../src/workspace/command.js";
import { probeSandbox, type SandboxStatus } from "../../../src/workspace/exec-sandbox/probe.js";
import { type PolicyOptions, type WorkspacePolicy, workspacePolicy } from "../../../src/workspace/policy.js";
import { skipWithout } from "../../support/requirements.js";

export const status: SandboxStatus = await probeSandbox();
/** Skip (locally, recorded for the skip block) when this machine cannot sandbox; CI never skips. */
export const noSandbox = await skipWithout("sandbox", "every sandbox suite");

export interface Fixture {
  base: string;
  root: string;
  /** A folder beside the workspace with a canary file; visible inside the sandbox, read-only. */
  outside: string;
  policy(options?: PolicyOptions): WorkspacePolicy;
  run(command: string, options?: RunOptions): Promise<CommandResult>;
  write(files: Record<string, string>): Promise<void>;
  cleanup(): Promise<void>;
}

export interface RunOptions {
  policy?: WorkspacePolicy;
  timeoutMs?: number;
  env?: Record<string, string>;
  signal?: AbortSignal;
  cwd?: string;
}

export const CANARY = "SANDBOX-CANARY-5d1e";

/** The environment the workspace gives commands (PATH and HOME), nothing else of ours. */
export function commandEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", LANG: "C.UTF-8" };
}

export async function makeFixture(): Promise<Fixture> {
  await mkdir("/var/tmp", { recursive: true });
  const base = await realpath(await mkdtemp("/var/tmp/reson-exec-"));
  const root = join(base, "ws");
  const outside = join(base, "outside");
  await mkdir(root);
  await mkdir(outside);
  await writeFile(join(outside, "secret.txt"), `${CANARY}\n`);
  const policy = (options: PolicyOptions = {}) => workspacePolicy(root, options);
  return {
    base,
    root,
    outside,
    policy,
    run: (command, options = {}) =>
      runCommand({
        command,
        cwd: options.cwd ?? root,
        env: options.env ?? commandEnv(),
        shell: "/bin/bash",
        timeoutMs: options.timeoutMs ?? 20_000,
        ...(options.signal ? { signal: options.signal } : {}),
        sandbox: { policy: options.policy ?? policy(), status },
      }),
    async write(files) {
      for (const [name, content] of Object.entries(files)) {
        const path = join(root, name);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, content);
      }
    },
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

/** Host pids whose command line contains `marker` (the sandbox's processes are visible from here). */
export async function processesMatching(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    if (cmdline.split("\0").includes(marker) && state !== "Z") found.push(Number(name));
  }
  return found;
}

/** Polls (bounded, about 3 s) until `check` holds; returns whether it did. */
export async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let attempt = 0; attempt < 150; attempt += 1) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}
