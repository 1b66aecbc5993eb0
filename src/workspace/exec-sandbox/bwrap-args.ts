// The bubblewrap command line for one command, compiled from the workspace policy: the
// whole system read-only, private /tmp, /run and /dev/shm, the hidden folders (home, reson's
// own) as empty tmpfs, the workspace writable, its protected paths read-only again, no
// network, no capabilities. `bwrapArgs` is pure (the facts about the disk are gathered
// first by `gatherPathFacts`), so the argv can be checked as a snapshot.
import { lstat, realpath, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { isWithin } from "../../core/path-within.js";
import type { WorkspacePolicy } from "../policy.js";
import type { ProtectionPlan } from "./protected-paths.js";
import { assertSafeWritable } from "./safe-root.js";

export interface PathInfo {
  kind: "dir" | "file" | "other";
  /** With every symbolic link resolved. */
  realPath: string;
  /** The last component itself is a symbolic link. */
  symlink: boolean;
}

/** What exists on disk among the paths the policy names, by absolute path; missing ones are absent. */
export type PathFacts = ReadonlyMap<string, PathInfo>;

export interface BwrapPlan {
  policy: WorkspacePolicy;
  facts: PathFacts;
  /** What keeps the protected paths read-only (protected-paths.ts). */
  protection: Pick<ProtectionPlan, "readOnly" | "placeholders" | "mountPoints" | "scratch">;
  /** The home folder (for the unsafe-root check). */
  home: string;
  cwd: string;
  /** bwrap ≥ 0.8; older ones rely on the seccomp filter alone. */
  disableUserns: boolean;
  seccompFd: number;
  /** The rlimit prelude inside the sandbox; absent when prlimit is not installed. */
  prlimit?: { path: string; nproc: boolean };
  shell: string;
  command: string;
}

/** tmpfs sizes: bounded so a command cannot fill the machine's memory through them. */
export const TMP_BYTES = 256 * 1024 ** 2;
export const SHM_BYTES = 64 * 1024 ** 2;
export const RUN_BYTES = 16 * 1024 ** 2;
/** For hidden folders: the home folder stays usable for caches and dotfiles a command writes. */
export const HIDDEN_BYTES = 64 * 1024 ** 2;

const PRIVATE_TMPFS: ReadonlyArray<readonly [string, number]> = [
  ["/tmp", TMP_BYTES],
  ["/dev/shm", SHM_BYTES],
  ["/run", RUN_BYTES],
];

/** The folders outside the workspace a sandboxed command can write (each its own, private). */
export const PRIVATE_WRITABLE_DIRS: readonly string[] = PRIVATE_TMPFS.map(([path]) => path);

/**
 * The folders that must become mount points so that a hidden folder inside the workspace cannot
 * be renamed away: its ancestors below the root.
 */
function hiddenAncestors(policy: WorkspacePolicy): string[] {
  const hiddenInside = policy.readDeny.filter((path) => path !== policy.root && isWithin(path, policy.root));
  const ancestors = new Set<string>();
  for (const target of hiddenInside) {
    for (let dir = dirname(target); dir !== policy.root && isWithin(dir, policy.root); dir = dirname(dir)) {
      ancestors.add(dir);
    }
  }
  return [...ancestors];
}

/** Looks up every path `bwrapArgs` may mount: what it is, and where its links lead. */
export async function gatherPathFacts(policy: WorkspacePolicy): Promise<PathFacts> {
  const paths = new Set([
    ...policy.readDeny,
    ...policy.writeExtra,
    ...policy.readOnlyExtra,
    ...hiddenAncestors(policy),
  ]);
  const facts = new Map<string, PathInfo>();
  await Promise.all(
    [...paths].map(async (path) => {
      try {
        const [link, info, real] = await Promise.all([lstat(path), stat(path), realpath(path)]);
        const kind = info.isDirectory() ? "dir" : info.isFile() ? "file" : "other";
        facts.set(path, { kind, realPath: real, symlink: link.isSymbolicLink() });
      } catch {
        // absent (or a dangling link): nothing to mount
      }
    }),
  );
  return facts;
}

function byDepth(a: string, b: string): number {
  return a.split("/").length - b.split("/").length || (a < b ? -1 : a > b ? 1 : 0);
}

/** The bwrap arguments (without "bwrap") that run `plan.command` under `plan.policy`. */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const { policy, facts } = plan;
  assertSafeWritable(policy.root, "workspace root", policy.readDeny, plan.home);
  for (const dir of policy.writeExtra)
    assertSafeWritable(dir, "extra writable folder", policy.readDeny, plan.home);

  // --as-pid-1: the command is the PID namespace's init, so when bwrap exits nothing of the
  // sandbox is left (with bwrap's own init there, bwrap exits while that init still ends).
  const args = ["--die-with-parent", "--new-session", "--unshare-all", "--unshare-user", "--as-pid-1"];
  if (plan.disableUserns) args.push("--disable-userns");
  args.push("--cap-drop", "ALL", "--hostname", "sandbox");
  if (policy.network === "host") args.push("--share-net");
  args.push("--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--ro-bind", "/proc/sys", "/proc/sys");
  for (const [path, bytes] of PRIVATE_TMPFS) args.push("--size", String(bytes), "--tmpfs", path);

  // Hidden folders come before the workspace when they hold it (a workspace under $HOME stays
  // visible) and after it when it holds them (reson's folder inside the workspace stays hidden).
  const extras = policy.writeExtra.filter((dir) => facts.get(dir)?.kind === "dir");
  const insideWritable = (path: string) => [policy.root, ...extras].some((dir) => isWithin(path, dir));
  const hidden = new Map<string, PathInfo["kind"]>();
  for (const path of policy.readDeny) {
    const info = facts.get(path);
    if (info) hidden.set(info.realPath, info.kind);
  }
  const covered: string[] = PRIVATE_TMPFS.map(([path]) => path);
  const hide = (path: string) => {
    if (hidden.get(path) === "dir") args.push("--size", String(HIDDEN_BYTES), "--tmpfs", path);
    else args.push("--ro-bind", "/dev/null", path);
    covered.push(path);
  };
  const late: string[] = [];
  for (const path of [...hidden.keys()].sort(byDepth)) {
    if (insideWritable(path)) late.push(path);
    else if (!covered.some((dir) => isWithin(path, dir))) hide(path);
  }

  // Toolchains on PATH inside a hidden folder (~/.cargo, ~/.pyenv) are shown again, read-only.
  for (const dir of policy.readOnlyExtra) {
    const info = facts.get(dir);
    if (info?.kind === "dir" && covered.some((hiddenDir) => isWithin(dir, hiddenDir)) && !insideWritable(dir))
      args.push("--ro-bind", info.realPath, dir);
  }

  const bind = policy.readOnly ? "--ro-bind" : "--bind";
  args.push(bind, policy.root, policy.root);
  for (const dir of extras) args.push(bind, dir, dir);

  // Existing ancestors of protected and hidden paths become mount points, so they cannot be
  // renamed away (mv .git elsewhere, then a fresh .git/hooks; mv the folder holding reson's,
  // then a fresh settings.json where reson will look); the protected paths are re-bound
  // read-only, and the missing ones get an empty read-only folder in their place.
  if (!policy.readOnly) {
    const ancestors = new Set(plan.protection.mountPoints);
    for (const dir of hiddenAncestors(policy)) {
      const info = facts.get(dir);
      if (info?.kind === "dir" && !info.symlink) ancestors.add(dir);
    }
    for (const dir of [...ancestors].sort(byDepth)) args.push("--bind", dir, dir);
  }
  const outsideLate = (path: string) => !late.some((dir) => isWithin(path, dir));
  for (const real of [...new Set(plan.protection.readOnly)].filter(outsideLate).sort(byDepth))
    args.push("--ro-bind", real, real);
  // A read-only folder's caches (node_modules/.vite): private and empty, over the read-only bind.
  for (const path of [...(plan.protection.scratch ?? [])].filter(outsideLate).sort(byDepth))
    args.push("--size", String(TMP_BYTES), "--tmpfs", path);
  for (const path of [...plan.protection.placeholders].filter(outsideLate).sort(byDepth))
    args.push("--perms", "0555", "--tmpfs", path, "--remount-ro", path);
  // Last: a bind is taken from the host's view, so one mounted after a hidden folder's tmpfs
  // would show the folder again.
  for (const path of late) hide(path);

  args.push("--chdir", plan.cwd, "--seccomp", String(plan.seccompFd), "--");
  if (plan.prlimit) {
    const { limits } = policy;
    args.push(plan.prlimit.path, `--fsize=${limits.fileSizeBytes}`, `--nofile=${limits.openFiles}`);
    // RLIMIT_NPROC counts the user's processes machine-wide: only the fallback without a cgroup.
    if (plan.prlimit.nproc) args.push(`--nproc=${limits.pids}`);
    args.push("--");
  }
  args.push(plan.shell, "-c", plan.command);
  return args;
}
