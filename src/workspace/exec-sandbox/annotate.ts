// Telling a sandbox refusal from an ordinary failure: a read-only file system outside the
// workspace, EPERM on a Unix socket or a mount, no network, a limit reached. The model gets
// one machine-readable line ("blocked by sandbox: …") so it stops retrying variations of a
// command the sandbox will never allow (and never asks to leave the sandbox).
import { realpathSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { isWithin } from "../../core/path-within.js";
import type { DiskLimitHit } from "../disk-watch.js";
import type { WorkspacePolicy } from "../policy.js";
import { holdsTarget, type ProtectedTarget, targetCovering } from "../protected-targets.js";
import { TMP_BYTES } from "./bwrap-args.js";
import type { CgroupUsage } from "./cgroup.js";

export interface DenialContext {
  output: string;
  exitCode: number | null;
  policy: WorkspacePolicy;
  /** The protected paths the command ran with. */
  targets: readonly ProtectedTarget[];
  cwd: string;
  /** From the command's cgroup, when it had one. */
  usage?: CgroupUsage;
  outputLimitExceeded: boolean;
  diskLimitExceeded?: DiskLimitHit | undefined;
}

const PREFIX = "blocked by sandbox:";
/** A shell reports a child killed by SIGXFSZ (file size limit) as 128 + 25. */
const EXIT_SIGXFSZ = 153;

export function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ["GiB", 1024 ** 3],
    ["MiB", 1024 ** 2],
    ["KiB", 1024],
  ] as const) {
    if (bytes >= size && bytes % (size / 1024) === 0) return `${+(bytes / size).toFixed(1)} ${unit}`;
  }
  return `${bytes} bytes`;
}

/**
 * The path an error message names, as shells, coreutils, Python and Node write it: `message`
 * as they spell it ("Read-only file system"), `code` Node's errno name ("EROFS").
 */
function namedPath(output: string, message: string, code: string): string | undefined {
  const patterns = [
    new RegExp(`${code}: [^,\\n]+, \\w+ '([^']+)'`), // Node: EROFS: read-only file system, open '/etc/x'
    new RegExp(`${message}: ['"]?([^'"\\s]+)`), // Python: [Errno 30] Read-only file system: '/etc/x'
    new RegExp(String.raw`([^\s'"\u2018\u2019\x60]+)['"\u2019\x60]?: ` + message), // sh, bash, coreutils: /etc/x: / '/etc/x':
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(output);
    if (match) return match[1];
  }
  return undefined;
}

function readOnlyPath(output: string): string | undefined {
  return namedPath(output, "Read-only file system", "EROFS");
}

/** `path` with the links of its folder resolved, as the write really went (a link out of the workspace). */
function hostPath(path: string): string {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return path;
  }
}

function writeDenial(context: DenialContext): string {
  const { policy } = context;
  const named = readOnlyPath(context.output);
  if (!named) {
    return policy.readOnly
      ? `${PREFIX} the workspace is read-only for this command`
      : `${PREFIX} write outside the workspace (only ${policy.root} and /tmp are writable)`;
  }
  const path = hostPath(resolve(context.cwd, named));
  if (!isWithin(path, policy.root) && !policy.writeExtra.some((dir) => isWithin(path, dir))) {
    return `${PREFIX} write outside the workspace (${path}; only ${policy.root} and /tmp are writable)`;
  }
  const inside = relative(policy.root, path) || ".";
  const target = targetCovering(context.targets, inside);
  if (target) return protectedDenial(target, inside);
  if (policy.readOnly) return `${PREFIX} the workspace is read-only for this command`;
  return `${PREFIX} ${inside} is read-only for commands`;
}

/**
 * A protected path that did not exist is an empty read-only folder while the command runs, so
 * writing a file there fails with EISDIR: `echo x > .envrc`.
 */
function placeholderDenial(context: DenialContext): string | undefined {
  const named = namedPath(context.output, "Is a directory", "EISDIR");
  if (!named) return undefined;
  const path = hostPath(resolve(context.cwd, named));
  if (!isWithin(path, context.policy.root)) return undefined;
  const inside = relative(context.policy.root, path) || ".";
  const target = targetCovering(context.targets, inside);
  return target ? protectedDenial(target, inside) : undefined;
}

/**
 * A write refused because `inside` is a protected path; for what a run keeps only once it has
 * read untrusted content, the reason too, so the model stops and the user knows what to do.
 */
function protectedDenial(target: ProtectedTarget, inside: string): string {
  if (target.entry.kind === "installs")
    return (
      `${PREFIX} ${inside} is read-only for commands once a run has read untrusted content: ` +
      `${target.entry.reader}; install or change packages in a run that has not`
    );
  return `${PREFIX} ${inside} is protected (read-only for commands)`;
}

/**
 * Protected paths and the folders holding them are mount points inside the sandbox, so moving
 * or replacing one fails with EBUSY: `mv .git .git-old`, git's rename of a new .git/config.
 */
function busyDenial(context: DenialContext): string | undefined {
  const { policy } = context;
  for (const line of context.output.split("\n")) {
    if (!/Device or resource busy|EBUSY/.test(line)) continue;
    for (const match of line.matchAll(/['"\u2018]([^'"\u2019]+)['"\u2019]/g)) {
      const path = hostPath(resolve(context.cwd, match[1]!));
      if (!isWithin(path, policy.root)) continue;
      const inside = relative(policy.root, path) || ".";
      const target = targetCovering(context.targets, inside);
      if (target) return protectedDenial(target, inside);
      if (inside !== "." && holdsTarget(context.targets, inside)) {
        return `${PREFIX} ${inside} holds protected paths and cannot be moved or replaced`;
      }
    }
  }
  return undefined;
}

/** What an EPERM was about, from the words around it. */
function permissionDenial(output: string): string {
  const topics: Array<[RegExp, string]> = [
    [/\bunshare\b|namespace|\bnsenter\b/i, "creating namespaces"],
    [/\bmount\b|remount/i, "mounting file systems"],
    [/\.sock\b|AF_UNIX|\bsocket\b|connect EPERM/i, "Unix sockets (ssh-agent, docker and other host daemons)"],
    [/ptrace|strace|\bgdb\b/i, "ptrace"],
    [/keyctl|keyring/i, "kernel keyrings"],
    [/\bbpf\b|perf_event/i, "bpf and perf events"],
    [/io_uring/i, "io_uring"],
    [/chown|chgrp|changing ownership/i, "changing file ownership (commands run without capabilities)"],
  ];
  const topic = topics.find(([pattern]) => pattern.test(output))?.[1];
  const refused = "mounts, namespaces, Unix sockets, ptrace, bpf and keyrings are refused";
  return topic
    ? `${PREFIX} ${topic} not allowed (${refused})`
    : `${PREFIX} operation not permitted (${refused})`;
}

const NO_NETWORK =
  /Network is unreachable|Temporary failure in name resolution|Could not resolve host|Name or service not known|No address associated with hostname|getaddrinfo|ENOTFOUND|EAI_AGAIN|ENETUNREACH|Connection refused|ECONNREFUSED/;

/** What the disk quota stopped a command for, as the end of a sentence. */
export function diskLimitDenial(hit: DiskLimitHit, quotaBytes: number): string {
  switch (hit) {
    case "quota":
      return `disk quota of ${formatBytes(quotaBytes)} reached (the command grew the disk's use by more); the command was stopped`;
    case "full":
      return "the disk is nearly full; the command was stopped";
    case "inodes":
      return "the disk is nearly out of inodes (too many files); the command was stopped";
  }
}

/** A line for the model when the command was stopped or refused by the sandbox; undefined otherwise. */
export function sandboxDenial(context: DenialContext): string | undefined {
  const { policy, output, usage } = context;
  const { limits } = policy;
  if (context.outputLimitExceeded) {
    return `${PREFIX} output limit of ${formatBytes(limits.outputBytes)} reached; the command was stopped`;
  }
  if (context.diskLimitExceeded) {
    return `${PREFIX} ${diskLimitDenial(context.diskLimitExceeded, limits.diskBytes)}`;
  }
  if (usage && usage.oomKills > 0) {
    return `${PREFIX} memory limit of ${formatBytes(limits.memoryBytes)} reached; the kernel killed a process`;
  }
  // From the cgroup's count, or (with prlimit instead of a cgroup) from the shell's complaint.
  const forkRefused = /fork: (retry: )?Resource temporarily unavailable|Cannot fork/.test(output);
  if ((usage && usage.pidsLimitHits > 0) || forkRefused) {
    return `${PREFIX} process limit of ${limits.pids} reached; forks were refused`;
  }
  if (context.exitCode === 0) return undefined;
  if (context.exitCode === EXIT_SIGXFSZ || /File size limit exceeded/i.test(output)) {
    return `${PREFIX} file size limit of ${formatBytes(limits.fileSizeBytes)} reached`;
  }
  if (/Too many open files|EMFILE/.test(output))
    return `${PREFIX} open files limit of ${limits.openFiles} reached`;
  if (/Read-only file system|EROFS/i.test(output)) return writeDenial(context);
  if (/Is a directory|EISDIR/.test(output)) {
    const denial = placeholderDenial(context);
    if (denial) return denial;
  }
  if (/Device or resource busy|EBUSY/.test(output)) {
    const denial = busyDenial(context);
    if (denial) return denial;
  }
  if (/Operation not permitted|EPERM|mount: .*permission denied/i.test(output))
    return permissionDenial(output);
  if (policy.network === "none" && NO_NETWORK.test(output)) {
    return `${PREFIX} no network access (commands run without a network)`;
  }
  if (/No space left on device|ENOSPC/.test(output) && /(^|[\s'"])\/tmp\//m.test(output)) {
    return `${PREFIX} /tmp is full (it holds at most ${formatBytes(TMP_BYTES)} inside the sandbox)`;
  }
  return undefined;
}
