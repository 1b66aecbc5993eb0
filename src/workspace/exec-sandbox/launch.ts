// One sandboxed command from start to finish, minus the process handling (command.ts does
// that): the argv, the environment, the seccomp bytes for fd 3, a fresh cgroup, and the
// checks afterwards (protected paths, limits hit, what a failure was about).
//
// The process tree: /bin/sh joins the cgroup and execs bwrap, with stderr merged into stdout,
// so everything bwrap starts is counted from its first instruction. bwrap (--die-with-parent)
// dies with reson; its PID namespace takes every process of the command with it.
import { openSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { homedir } from "node:os";
import { ResonError } from "../../core/errors.js";
import type { DiskLimitHit } from "../disk-watch.js";
import type { WorkspacePolicy } from "../policy.js";
import { sandboxDenial } from "./annotate.js";
import { bwrapArgs, gatherPathFacts } from "./bwrap-args.js";
import { type CgroupUsage, type CommandCgroup, createCommandCgroup } from "./cgroup.js";
import { forgetSandboxProbe, type SandboxStatus } from "./probe.js";
import {
  type ProtectionPlan,
  planProtection,
  releaseProtection,
  settleProtection,
} from "./protected-paths.js";
import { type SeccompArch, seccompArch, seccompFilter } from "./seccomp.js";

/** The descriptor bwrap reads the seccomp filter from (stdio index 3 of the spawned process). */
export const SECCOMP_FD = 3;
/** Exit code of the wrapper when it cannot join the cgroup (bwrap never started). */
const JOIN_FAILED = 125;
const WRAPPER_NAME = "reson-sandbox";
// $1 is how many cgroup.procs files follow; then bwrap's argv. Paths arrive as arguments,
// never spliced into the script, so no quoting can go wrong.
const WRAPPER = `n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || { echo "${WRAPPER_NAME}: cannot join the cgroup $1" >&2; exit ${JOIN_FAILED}; }; shift; n=$((n - 1)); done; exec "$@" 2>&1`;

export interface SandboxRequest {
  policy: WorkspacePolicy;
  status: SandboxStatus;
  command: string;
  cwd: string;
  env: Record<string, string>;
  shell: string;
}

export interface SandboxLaunch {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** Written to the spawned process's fd 3, where bwrap reads it. */
  seccomp: Buffer;
  /** spawn's stdio: 0-2 as usual, 3 the seccomp pipe, then /dev/null over inherited descriptors. */
  stdio: Array<"ignore" | "pipe" | number>;
  cgroup?: CommandCgroup;
  protection: ProtectionPlan;
}

export interface SandboxOutcome {
  warnings: string[];
  sandboxDenial?: string;
}

const O_CLOEXEC = 0o2000000;

/** An inotify instance's descriptor, as /proc/self/fd names it. */
const INOTIFY_LINK = "anon_inode:inotify";
/**
 * Whether each inotify descriptor was inheritable when its fdinfo was read, by number. The
 * kernel writes a line per watch into an inotify instance's fdinfo (with a file handle each),
 * so with the ~500 watches workspace snapshots keep on a 10,000-file repository, reading it took
 * ~1 ms of the loop's thread at every command (bench/results/snapshot-2026-12-06b.md).
 * Close-on-exec is set when a descriptor is made and no code of reson clears it, so the verdict
 * holds while the number still names an inotify instance (libuv makes its own with IN_CLOEXEC;
 * one inherited from whoever started reson keeps its number, and stays listed as inherited).
 */
const inotifyVerdicts = new Map<number, boolean>();

function linkOf(fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/**
 * Descriptors every child of reson inherits: left open without O_CLOEXEC by whoever started
 * reson (Node opens its own with it). bwrap passes them on, and an inherited socket is a
 * channel the seccomp filter cannot see, so the sandbox gets /dev/null in their place.
 */
function inheritedDescriptors(): number[] {
  const out: number[] = [];
  let names: string[] = [];
  try {
    names = readdirSync("/proc/self/fdinfo");
  } catch {
    return out;
  }
  const seen = new Set<number>();
  for (const name of names) {
    const fd = Number(name);
    if (fd < 3) continue;
    const inotify = linkOf(fd) === INOTIFY_LINK;
    if (inotify) seen.add(fd);
    const known = inotify ? inotifyVerdicts.get(fd) : undefined;
    if (known !== undefined) {
      if (known) out.push(fd);
      continue;
    }
    let info = "";
    try {
      info = readFileSync(`/proc/self/fdinfo/${name}`, "utf8");
    } catch {
      continue; // closed meanwhile (the readdir's own descriptor)
    }
    const flags = /flags:\s*([0-7]+)/.exec(info);
    const inherited = flags !== null && (Number.parseInt(flags[1]!, 8) & O_CLOEXEC) === 0;
    if (inherited) out.push(fd);
    // Asked again only after the number named something else.
    if (inotify && flags) inotifyVerdicts.set(fd, inherited);
  }
  for (const fd of inotifyVerdicts.keys()) if (!seen.has(fd)) inotifyVerdicts.delete(fd);
  return out;
}

let devNull: number | undefined;

function sandboxStdio(): Array<"ignore" | "pipe" | number> {
  const stdio: Array<"ignore" | "pipe" | number> = ["ignore", "pipe", "pipe", "pipe"];
  for (const fd of inheritedDescriptors()) {
    if (fd <= SECCOMP_FD) continue;
    devNull ??= openSync("/dev/null", "r");
    while (stdio.length < fd) stdio.push("ignore");
    stdio[fd] = devNull;
  }
  return stdio;
}

const filters = new Map<SeccompArch, Buffer>();

function filterFor(arch: SeccompArch): Buffer {
  let filter = filters.get(arch);
  if (!filter) {
    filter = seccompFilter(arch);
    filters.set(arch, filter);
  }
  return filter;
}

/** Builds everything a sandboxed run needs; throws `sandbox_refused` for an unsafe policy. */
export async function prepareSandboxedCommand(request: SandboxRequest): Promise<SandboxLaunch> {
  const { policy, status } = request;
  const arch = seccompArch();
  if (status.level !== "enforced" || !status.facts.bwrapPath || !arch) {
    throw new ResonError("sandbox_unavailable", `The sandbox is not available here: ${status.summary}`, {
      hint: status.problems[0]?.fix,
    });
  }
  const facts = await gatherPathFacts(policy);
  const protection = await planProtection(policy);
  const prlimitPath = status.facts.prlimitPath;
  let bwrap: string[];
  try {
    bwrap = bwrapArgs({
      policy,
      facts,
      protection,
      home: homedir(),
      cwd: request.cwd,
      disableUserns: status.facts.disableUserns,
      seccompFd: SECCOMP_FD,
      ...(prlimitPath ? { prlimit: { path: prlimitPath, nproc: status.facts.pidsLimit === "prlimit" } } : {}),
      shell: request.shell,
      command: request.command,
    });
  } catch (error) {
    await releaseProtection(protection);
    throw error;
  }
  let cgroup: CommandCgroup | undefined;
  if (status.cgroups.kind !== "none") {
    cgroup = await createCommandCgroup(status.cgroups, policy.limits).catch(async (error: unknown) => {
      await releaseProtection(protection);
      // Perhaps remembered from an earlier run (probe-cache.ts): look at the cgroups afresh next time.
      await forgetSandboxProbe();
      throw new ResonError("sandbox_unavailable", `Could not create the command's cgroup: ${String(error)}`, {
        hint: "Check that reson may write to the cgroup file system, or run `reson doctor`.",
        cause: error,
      });
    });
  }
  const files = cgroup?.procsFiles ?? [];
  return {
    file: "/bin/sh",
    args: ["-c", WRAPPER, WRAPPER_NAME, String(files.length), ...files, status.facts.bwrapPath, ...bwrap],
    // HOME keeps its path (an empty tmpfs when hidden); nothing else of the caller's leaks in.
    env: { ...request.env, HOME: request.env.HOME ?? homedir(), TMPDIR: "/tmp", TERM: "dumb" },
    seccomp: filterFor(arch),
    stdio: sandboxStdio(),
    ...(cgroup ? { cgroup } : {}),
    protection,
  };
}

/** bwrap's own complaint when the sandbox never started (then no user command ran). */
export function startupFailure(output: string, exitCode: number | null): string | undefined {
  if (exitCode === 1 && output.startsWith("bwrap: ")) return output.split("\n")[0];
  if (exitCode === JOIN_FAILED && output.includes(`${WRAPPER_NAME}: `))
    return output.trim().split("\n").pop();
  return undefined;
}

export interface FinishedRun {
  output: string;
  exitCode: number | null;
  outputLimitExceeded: boolean;
  diskLimitExceeded: DiskLimitHit | undefined;
  cwd: string;
}

/** After the command: limits hit, the cgroup removed, protected paths put right, the denial named. */
export async function finishSandboxedCommand(
  launch: SandboxLaunch,
  policy: WorkspacePolicy,
  run: FinishedRun,
): Promise<SandboxOutcome> {
  let usage: CgroupUsage | undefined;
  if (launch.cgroup) {
    usage = await launch.cgroup.usage();
    await launch.cgroup.remove();
  }
  const warnings = await settleProtection(launch.protection, policy);
  const denial = sandboxDenial({
    ...run,
    policy,
    targets: launch.protection.targets,
    ...(usage ? { usage } : {}),
  });
  return { warnings, ...(denial ? { sandboxDenial: denial } : {}) };
}

/** Releases what `prepareSandboxedCommand` made when the command could not be started. */
export async function discardSandboxLaunch(launch: SandboxLaunch): Promise<void> {
  await launch.cgroup?.remove();
  await releaseProtection(launch.protection);
}
