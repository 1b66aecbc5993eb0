// Runs the CLI as the only child of PID 1 in a fresh PID namespace (util-linux unshare; a
// user namespace too when not root), so every process it starts and leaves behind lands
// with that PID 1, which lists them (reaper.mjs) instead of letting the system adopt them.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { CLI, type CliOptions, type CliResult, runWith } from "./cli.js";

const REAPER = resolve(import.meta.dirname, "reaper.mjs");

export interface LeftProcess {
  pid: number;
  comm: string;
  /** "Z" for a zombie nobody reaped. */
  state: string;
}

export interface IsolatedResult extends CliResult {
  /** What was still in the namespace the moment reson exited. */
  left: LeftProcess[];
}

export function unshareArgs(): string[] {
  const asRoot = process.getuid?.() === 0;
  return [...(asRoot ? [] : ["--user", "--map-root-user"]), "--pid", "--fork", "--mount-proc"];
}

/** `reson <args>` in its own PID namespace; `scratch` is a folder for the reaper's report. */
export async function runCliIsolated(
  args: string[],
  scratch: string,
  options: CliOptions = {},
): Promise<IsolatedResult> {
  const report = join(scratch, `reaper-${Date.now()}.json`);
  const result = await runWith(
    "unshare",
    [...unshareArgs(), process.execPath, REAPER, report, process.execPath, CLI, ...args],
    options,
  );
  const { code, left } = JSON.parse(readFileSync(report, "utf8")) as {
    code: number | null;
    left: LeftProcess[];
  };
  return { ...result, code, left };
}
