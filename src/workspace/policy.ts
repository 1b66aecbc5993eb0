// The workspace policy: one description of what tools may touch, compiled to two enforcement
// points: the in-process path checks of the file tools and the OS sandbox around commands.
// It is built from user-level settings only; workspace files may tighten it, never relax it.

import { homedir } from "node:os";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { isBelow, isWithin } from "../core/path-within.js";
import type { NestedRepositories } from "./nested-repositories.js";
import {
  DEFAULT_PROTECTED_KINDS,
  PROTECTED_LIST,
  type ProtectedEntry,
  type ProtectedKind,
} from "./protected-list.js";
import { realPathOf } from "./root-risk.js";

/**
 * Folders in the home folder that hold credentials or keys: never shown to commands whole,
 * even when a tool on PATH lives inside one (then only that PATH folder is shown).
 */
const CREDENTIAL_HOME_DIRS = new Set([
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".config",
  ".docker",
  ".kube",
  ".local",
  ".password-store",
  ".gcloud",
  ".terraform.d",
]);

/** Whether commands can reach the network: not at all (default), or the host's network. */
export type NetworkPolicy = "none" | "host";

export interface CommandLimits {
  /** Wall-clock limit when the call names none. */
  timeoutMs: number;
  /** Processes and threads the command may have at once. */
  pids: number;
  /** Memory the command may use, in bytes. */
  memoryBytes: number;
  /** Largest file a command may write, in bytes. */
  fileSizeBytes: number;
  /** Open files per process. */
  openFiles: number;
  /** Output kept from a command, in bytes; the command is stopped past it. */
  outputBytes: number;
  /**
   * How much a command may grow the use of the workspace's file system (bytes written and not
   * deleted, on that file system, while it runs); it is stopped past it.
   */
  diskBytes: number;
}

export const DEFAULT_COMMAND_LIMITS: CommandLimits = {
  timeoutMs: 120_000,
  pids: 512,
  memoryBytes: 4 * 1024 ** 3,
  fileSizeBytes: 1024 ** 3,
  openFiles: 4096,
  outputBytes: 1024 * 1024,
  diskBytes: 8 * 1024 ** 3,
};

export interface WorkspacePolicy {
  /** The workspace's real absolute path. */
  root: string;
  /**
   * The protected list (protected-list.ts): paths relative to the root that commands cannot
   * change and file tools change only as each entry's `edits` says, of the kinds below.
   * Renaming or deleting an ancestor is refused too.
   */
  protected: readonly ProtectedEntry[];
  /** The kinds of `protected` enforced: `executes` always; `steers` too once a run read untrusted content. */
  protectedKinds: readonly ProtectedKind[];
  /** The user's home folder (git's config there names what git runs). */
  home: string;
  /**
   * The repositories below the root, protected like its own `.git` (nested-repositories.ts):
   * looked for once, shared by every policy made from this one (absent: looked for every time).
   */
  nested?: NestedRepositories;
  /**
   * Paths relative to the root that file tools neither read nor write and walks skip, and
   * that commands cannot see (they are in `readDeny` too): reson's own folder, when the
   * workspace holds it, as named and where it really is.
   */
  sealed: readonly string[];
  /** Absolute folders commands cannot see (an empty tmpfs in their place). */
  readDeny: readonly string[];
  /** Extra absolute folders commands may write (opt-in, by the user). */
  writeExtra: readonly string[];
  /**
   * Folders inside hidden ones that commands may still read: the toolchains on PATH that live
   * in the home folder (~/.cargo, ~/.pyenv, ~/.nvm…), so `python3` or `cargo` keep working.
   */
  readOnlyExtra: readonly string[];
  /** Plan mode and explore agents: the workspace itself is read-only. */
  readOnly: boolean;
  network: NetworkPolicy;
  limits: CommandLimits;
}

export interface PolicyOptions {
  /** reson's own folder ($RESON_HOME); hidden from commands, and sealed when inside the root. */
  resonHome?: string;
  /** Default PROTECTED_LIST. */
  protected?: readonly ProtectedEntry[];
  /** Default ["executes"]. */
  protectedKinds?: readonly ProtectedKind[];
  readDeny?: readonly string[];
  writeExtra?: readonly string[];
  readOnly?: boolean;
  network?: NetworkPolicy;
  limits?: Partial<CommandLimits>;
  /** The PATH commands get; its folders under the home folder stay readable. Default process.env.PATH. */
  path?: string;
  /** Default the user's home folder. */
  home?: string;
  /**
   * The repositories below the root as another part of the run found them (the permission
   * gate's, which asks about their protected files): one look for both. Default: looked for anew.
   */
  nested?: NestedRepositories;
}

/** For each PATH folder under `home`: the top folder it belongs to (or itself, inside a credential folder). */
export function toolchainFolders(pathVariable: string, home: string): string[] {
  const found = new Set<string>();
  for (const dir of pathVariable.split(":")) {
    if (!isAbsolute(dir) || !isBelow(dir, home)) continue;
    const rel = relative(home, dir);
    const top = rel.split(sep)[0]!;
    found.add(CREDENTIAL_HOME_DIRS.has(top) ? dir : `${home}${sep}${top}`);
  }
  return [...found].sort();
}

/** The policy for a workspace at `root` (a real path), with reson's defaults. */
export function workspacePolicy(root: string, options: PolicyOptions = {}): WorkspacePolicy {
  const home = options.home ?? homedir();
  const readDeny = new Set<string>([home, "/root", "/run", ...(options.readDeny ?? [])]);
  const sealed = new Set<string>();
  if (options.resonHome) {
    for (const path of new Set([resolve(options.resonHome), realPathOf(options.resonHome)])) {
      readDeny.add(path);
      if (isWithin(path, root)) sealed.add(relative(root, path) || ".");
    }
  }
  return {
    root,
    protected: options.protected ?? PROTECTED_LIST,
    protectedKinds: options.protectedKinds ?? DEFAULT_PROTECTED_KINDS,
    home,
    nested: options.nested ?? {},
    sealed: [...sealed],
    readDeny: [...readDeny],
    writeExtra: options.writeExtra ?? [],
    readOnlyExtra: toolchainFolders(options.path ?? process.env.PATH ?? "", home),
    readOnly: options.readOnly ?? false,
    network: options.network ?? "none",
    limits: { ...DEFAULT_COMMAND_LIMITS, ...options.limits },
  };
}

/** Whether the root-relative `path` ("." for the root) is sealed or beneath a sealed path. */
export function isSealed(policy: WorkspacePolicy, path: string): boolean {
  return policy.sealed.some((entry) => entry === "." || path === entry || path.startsWith(`${entry}/`));
}

/** The policy with the entries of `kinds` enforced as well (a run that read untrusted content adds `steers`). */
export function withProtectedKinds(
  policy: WorkspacePolicy,
  kinds: readonly ProtectedKind[],
): WorkspacePolicy {
  if (kinds.every((kind) => policy.protectedKinds.includes(kind))) return policy;
  return { ...policy, protectedKinds: [...new Set([...policy.protectedKinds, ...kinds])] };
}
