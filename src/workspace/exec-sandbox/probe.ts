// What the OS sandbox can promise on this machine, found by trying it: bwrap must really
// start a command with every namespace, no capabilities, no nested user namespaces and our
// seccomp filter. The answer is kept per process, and what bwrap showed is kept on disk for
// the next runs (probe-cache.ts); it carries the facts (for the status line, `reson doctor`
// and traces), the problems with their fixes, and what a launch needs.
import { accessSync, constants } from "node:fs";
import { access, readFile } from "node:fs/promises";
import { delimiter, isAbsolute, join } from "node:path";
import { Writable } from "node:stream";
import { installLine } from "../../core/install-hints.js";
import { spawnChild } from "../processes.js";
import { type CgroupKind, type CgroupSupport, detectCgroups } from "./cgroup.js";
import {
  forgetCheck,
  probeCacheFile,
  probeKey,
  type RememberedCheck,
  readRememberedCheck,
  rememberCheck,
} from "./probe-cache.js";
import { seccompArch, seccompFilter } from "./seccomp.js";

export type SandboxLevel = "enforced" | "none";

export interface SandboxFacts {
  /** Node's name for the CPU architecture. */
  arch: string;
  bwrapPath?: string;
  /** As bwrap prints it, e.g. "0.8.0". */
  bwrapVersion?: string;
  userNamespaces: boolean;
  /** bwrap ≥ 0.8 stops nested user namespaces itself; older ones rely on the seccomp filter. */
  disableUserns: boolean;
  seccomp: boolean;
  root: boolean;
  cgroup: CgroupKind;
  pidsLimit: "cgroup" | "prlimit" | "unavailable";
  memoryLimit: "cgroup" | "unavailable";
  /** Sets the file-size and open-file limits (and the process limit without a cgroup). */
  prlimitPath?: string;
  /** Landlock would need a helper binary (Node cannot call it), so it is not used. */
  landlock: "not used";
}

export interface SandboxProblem {
  what: string;
  fix: string;
}

export interface SandboxStatus {
  level: SandboxLevel;
  facts: SandboxFacts;
  problems: SandboxProblem[];
  /** One line for people, e.g. "sandbox: enforced (bwrap 0.8.0, seccomp, …)". */
  summary: string;
  /** Where per-command cgroups go (kind "none" when there are none). */
  cgroups: CgroupSupport;
}

export interface ProbeOptions {
  /** Run bwrap again, whatever this process or the cache on disk remembers (`reson doctor`). */
  force?: boolean;
  /** Use this bwrap (tests simulate a missing one); such a probe is never cached. */
  bwrapPath?: string;
}

/** Whether a probe may use the cache on disk ("read"), only refresh it ("write"), or neither. */
type CacheUse = "read" | "write" | "none";

const PROBE_TIMEOUT_MS = 10_000;
/** Found here first: a bwrap or prlimit earlier on PATH could be a workspace's own file. */
const SYSTEM_BIN_DIRS = ["/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin", "/sbin"];
const INSTALL_BWRAP = installLine("bubblewrap");

let cached: Promise<SandboxStatus> | undefined;

/** The sandbox this machine supports; cached after the first call unless `force` or `bwrapPath`. */
export function probeSandbox(options: ProbeOptions = {}): Promise<SandboxStatus> {
  if (options.bwrapPath !== undefined) return probe(options.bwrapPath, "none");
  // RESON_BWRAP names the bubblewrap to use (a build elsewhere than the system folders).
  if (!cached || options.force)
    cached = probe(process.env.RESON_BWRAP?.trim() || undefined, options.force ? "write" : "read");
  return cached;
}

/**
 * Forgets what was found (here and on disk), after bwrap failed to start a sandbox the
 * probe said would work: the next probe runs bwrap again.
 */
export async function forgetSandboxProbe(): Promise<void> {
  cached = undefined;
  await forgetCheck(probeCacheFile());
}

// Synchronous: a handful of access() calls cost less than as many thread-pool round trips.
function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findProgram(name: string, searchPath: boolean): string | undefined {
  const pathDirs = searchPath ? (process.env.PATH ?? "").split(delimiter).filter((d) => isAbsolute(d)) : [];
  for (const dir of [...SYSTEM_BIN_DIRS, ...pathDirs]) {
    const candidate = join(dir, name);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a probe command to its end (bounded), optionally feeding `fd3` as its fourth descriptor. */
function run(file: string, args: string[], fd3?: Buffer): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawnChild(file, args, {
      stdio: ["ignore", "pipe", "pipe", fd3 ? "pipe" : "ignore"],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), PROBE_TIMEOUT_MS);
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const extra = child.stdio[3];
    if (fd3 && extra instanceof Writable) {
      // EPIPE when bwrap exits before reading (an old bwrap rejecting an option): ignore.
      extra.on("error", () => {});
      extra.end(fd3);
    }
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: stderr || error.message });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function firstLine(text: string): string {
  return (
    text
      .trim()
      .split("\n")[0]
      ?.replace(/^bwrap: /, "") ?? ""
  );
}

async function readSysctl(path: string): Promise<string | undefined> {
  return (await readFile(path, "utf8").catch(() => undefined))?.trim();
}

/** The specific way user namespaces are switched off here, and how to switch them on. */
async function usernsProblem(stderr: string): Promise<SandboxProblem> {
  const what = `user namespaces are not allowed (${firstLine(stderr)})`;
  if ((await readSysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")) === "1") {
    return {
      what: `${what}; AppArmor restricts unprivileged user namespaces`,
      fix: "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or install an AppArmor profile for /usr/bin/bwrap that allows userns (Ubuntu 24.04+)",
    };
  }
  if ((await readSysctl("/proc/sys/kernel/unprivileged_userns_clone")) === "0") {
    return { what, fix: "sysctl -w kernel.unprivileged_userns_clone=1" };
  }
  if ((await readSysctl("/proc/sys/user/max_user_namespaces")) === "0") {
    return { what, fix: "sysctl -w user.max_user_namespaces=15000" };
  }
  const inContainer = await Promise.all(
    ["/.dockerenv", "/run/.containerenv"].map((marker) =>
      access(marker).then(
        () => true,
        () => false,
      ),
    ),
  );
  if (inContainer.includes(true)) {
    return {
      what: `${what}; the container's seccomp or AppArmor profile blocks them`,
      fix: "run the container with --security-opt seccomp=unconfined --security-opt apparmor=unconfined (or a seccomp profile that allows unshare and clone with CLONE_NEWUSER)",
    };
  }
  return {
    what,
    fix: "allow unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1 (Debian), kernel.apparmor_restrict_unprivileged_userns=0 (Ubuntu 24.04+), or relax the container's seccomp profile",
  };
}

// --as-pid-1: without it bwrap puts an init of its own in the PID namespace and exits as soon
// as the command has, while that init is still ending: an orphan for whoever adopts it.
const BASE_PROBE = ["--unshare-all", "--unshare-user", "--as-pid-1", "--cap-drop", "ALL"];
const PROBE_TAIL = ["--ro-bind", "/", "/", "--seccomp", "3", "--", "true"];
/** Part of the cache key: a change to the probe makes earlier answers stale. */
const PROBE_ARGS = [...BASE_PROBE, "--disable-userns", ...PROBE_TAIL];

interface BwrapCheck {
  ok: boolean;
  userNamespaces: boolean;
  disableUserns: boolean;
  seccomp: boolean;
  problem?: SandboxProblem;
}

/** Tries the real thing, then narrows a failure down to the missing piece. */
async function checkBwrap(bwrap: string, filter: Buffer): Promise<BwrapCheck> {
  const full = await run(bwrap, [...BASE_PROBE, "--disable-userns", ...PROBE_TAIL], filter);
  if (full.code === 0) return { ok: true, userNamespaces: true, disableUserns: true, seccomp: true };
  let disableUserns = true;
  let failure = full;
  if (/disable-userns/.test(full.stderr)) {
    // bwrap < 0.8: the seccomp filter refuses unshare and clone(CLONE_NEWUSER) on its own.
    disableUserns = false;
    failure = await run(bwrap, [...BASE_PROBE, ...PROBE_TAIL], filter);
    if (failure.code === 0) return { ok: true, userNamespaces: true, disableUserns, seccomp: true };
  }
  const userns = await run(bwrap, ["--unshare-user", "--ro-bind", "/", "/", "--", "true"]);
  if (userns.code !== 0) {
    return {
      ok: false,
      userNamespaces: false,
      disableUserns,
      seccomp: false,
      problem: await usernsProblem(userns.stderr),
    };
  }
  if (/seccomp/i.test(failure.stderr)) {
    return {
      ok: false,
      userNamespaces: true,
      disableUserns,
      seccomp: false,
      problem: {
        what: `the kernel refused the seccomp filter (${firstLine(failure.stderr)})`,
        fix: "use a kernel with CONFIG_SECCOMP_FILTER, and let the container load seccomp filters",
      },
    };
  }
  return {
    ok: false,
    userNamespaces: true,
    disableUserns,
    seccomp: false,
    problem: {
      what: `bubblewrap cannot start a sandbox (${firstLine(failure.stderr) || `exit code ${failure.code}`})`,
      fix: "run `bwrap --unshare-all --unshare-user --cap-drop ALL --ro-bind / / true` to see the full error",
    },
  };
}

function describeLimits(facts: SandboxFacts): string {
  const via = facts.cgroup === "none" ? "" : ` via cgroup ${facts.cgroup}`;
  if (facts.pidsLimit === "cgroup") return `pids+memory${via}`;
  if (facts.pidsLimit === "prlimit") return "pids via prlimit, memory unlimited";
  return "fork-bomb protection unavailable";
}

function summarise(level: SandboxLevel, facts: SandboxFacts, problems: SandboxProblem[]): string {
  if (level === "none") {
    const first = problems[0];
    return first ? `sandbox: NONE — ${first.what} (${first.fix})` : "sandbox: NONE";
  }
  const parts = [`bwrap ${facts.bwrapVersion ?? "?"}`, "seccomp", "no network", "private /tmp"];
  return `sandbox: enforced (${parts.join(", ")}; limits: ${describeLimits(facts)})`;
}

/** The bubblewrap to probe: RESON_BWRAP or the override, else the system's; undefined when none runs. */
function findBwrap(override: string | undefined): string | undefined {
  const bwrap = override ?? findProgram("bwrap", true);
  return bwrap && executable(bwrap) ? bwrap : undefined;
}

async function probe(bwrapOverride: string | undefined, cacheUse: CacheUse): Promise<SandboxStatus> {
  const root = process.getuid?.() === 0;
  const arch = seccompArch();
  const linux = process.platform === "linux";
  const bwrap = linux && arch ? findBwrap(bwrapOverride) : undefined;
  const filter = bwrap && arch ? seccompFilter(arch) : undefined;
  const key = bwrap && filter && cacheUse !== "none" ? probeKey(bwrap, PROBE_ARGS, filter) : undefined;
  const cacheFile = probeCacheFile();
  const remembered = key && cacheUse === "read" ? readRememberedCheck(cacheFile, key) : undefined;
  // Remembered, the cgroups need no new look either (making a test group costs milliseconds).
  const cgroups = remembered ? remembered.cgroups : linux ? await detectCgroups() : { kind: "none" as const };
  const prlimitPath = findProgram("prlimit", false);
  const facts: SandboxFacts = {
    arch: process.arch,
    userNamespaces: false,
    disableUserns: false,
    seccomp: false,
    root,
    cgroup: cgroups.kind,
    pidsLimit: cgroups.kind !== "none" ? "cgroup" : !root && prlimitPath ? "prlimit" : "unavailable",
    memoryLimit: cgroups.kind !== "none" ? "cgroup" : "unavailable",
    landlock: "not used",
  };
  if (prlimitPath) facts.prlimitPath = prlimitPath;
  const problems: SandboxProblem[] = [];
  const done = (level: SandboxLevel): SandboxStatus => ({
    level,
    facts,
    problems,
    summary: summarise(level, facts, problems),
    cgroups,
  });

  if (!linux) {
    problems.push({
      what: `no OS sandbox for ${process.platform} yet`,
      fix: "run reson on Linux with bubblewrap",
    });
    return done("none");
  }
  if (!arch) {
    problems.push({
      what: `no seccomp syscall table for the ${process.arch} architecture`,
      fix: "run reson on x86_64 or aarch64",
    });
    return done("none");
  }
  if (!bwrap || !filter) {
    problems.push({ what: "bubblewrap is not installed", fix: INSTALL_BWRAP });
    return done("none");
  }
  facts.bwrapPath = bwrap;
  if (remembered) {
    if (remembered.bwrapVersion) facts.bwrapVersion = remembered.bwrapVersion;
    facts.userNamespaces = true;
    facts.disableUserns = remembered.disableUserns;
    facts.seccomp = true;
  } else {
    const version = await run(bwrap, ["--version"]);
    const versionMatch = /(\d+\.\d+(?:\.\d+)?)/.exec(version.stdout);
    if (versionMatch) facts.bwrapVersion = versionMatch[1]!;

    const check = await checkBwrap(bwrap, filter);
    facts.userNamespaces = check.userNamespaces;
    facts.disableUserns = check.disableUserns;
    facts.seccomp = check.seccomp;
    if (check.problem) problems.push(check.problem);
    if (key && check.ok) {
      const found: RememberedCheck = { disableUserns: check.disableUserns, cgroups };
      if (facts.bwrapVersion) found.bwrapVersion = facts.bwrapVersion;
      await rememberCheck(cacheFile, key, found);
    }
    if (!check.ok) {
      if (cacheUse !== "none") await forgetCheck(cacheFile);
      return done("none");
    }
  }

  if (facts.pidsLimit === "unavailable") {
    problems.push(
      root
        ? {
            what: `fork-bomb protection unavailable: running as root without a writable cgroup (${cgroups.reason})`,
            fix: "mount the cgroup file system read-write (cgroup v1 pids and memory, or v2 with them delegated), or run reson as a non-root user",
          }
        : {
            what: "fork-bomb protection unavailable: prlimit is not installed",
            fix: "apt-get install util-linux",
          },
    );
  }
  if (facts.memoryLimit === "unavailable") {
    problems.push({
      what: "commands have no memory limit (no writable cgroup)",
      fix: "run reson in a cgroup with the memory controller delegated to it (e.g. systemd-run --user --scope -p Delegate=yes reson …)",
    });
  }
  if (!prlimitPath) {
    problems.push({
      what: "no file-size or open-file limits: prlimit is not installed",
      fix: "apt-get install util-linux",
    });
  }
  return done("enforced");
}
