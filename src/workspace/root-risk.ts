// Which folders may be a workspace. A workspace gives the model's tools the run of a folder
// (with acceptEdits, every file in it), so the whole file system, a system folder and reson's
// own folder never are one; the home folder, a folder above it, and a folder that holds
// reson's own folder are one only once the user trusts it. Compared by real path.
import { readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { isBelow, isWithin } from "../core/path-within.js";
import { MAX_SYMLINK_HOPS } from "./sandbox.js";

/** Folders whose whole content belongs to the system (every user's, or the OS's). */
export const SYSTEM_DIRS: ReadonlySet<string> = new Set([
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/home",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/media",
  "/mnt",
  "/opt",
  "/proc",
  "/root",
  "/run",
  "/sbin",
  "/srv",
  "/sys",
  "/tmp",
  "/usr",
  "/usr/bin",
  "/usr/include",
  "/usr/lib",
  "/usr/libexec",
  "/usr/local",
  "/usr/local/bin",
  "/usr/sbin",
  "/usr/share",
  "/usr/src",
  "/var",
  "/var/cache",
  "/var/lib",
  "/var/log",
  "/var/run",
  "/var/tmp",
]);

/** The folder of $RESON_HOME that holds the workspaces reson creates. */
export const WORKSPACES_DIR = "workspaces";

/** Kernel file systems: nothing beneath them is a workspace. */
export const KERNEL_TREES: readonly string[] = ["/proc", "/sys", "/dev"];

/**
 * Folders that hold only what the OS installed (programs, libraries, the boot loader): nothing
 * beneath them is a workspace either. /usr/local and /usr/src hold the machine owner's own
 * programs and sources, so folders beneath those may be (the folders themselves may not).
 * Beneath /etc, /var, /opt or /srv a folder may be a workspace: a site, a service's config.
 */
const OS_TREES: readonly string[] = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/usr"];
const OWNER_TREES: readonly string[] = ["/usr/local", "/usr/src"];

export type RootRisk =
  /** An ordinary folder. */
  | { kind: "none" }
  /** Never a workspace, whatever the user says. */
  | { kind: "refused"; reason: string }
  /** A workspace only once the user trusts it. */
  | { kind: "broad"; reason: string };

export interface RootPlaces {
  /** The user's home folder. */
  home: string;
  /** reson's own folder ($RESON_HOME). */
  resonHome: string;
}

/**
 * The real path of `path`, or, when it does not exist yet, the real path of its deepest
 * existing ancestor with the missing names after it. A symlink that leads nowhere (yet) is
 * followed to where it points: whatever is made through it would land there.
 */
export function realPathOf(path: string, hops = 0): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = dirname(absolute);
    if (parent === absolute) return absolute;
    const realParent = realPathOf(parent, hops);
    const link = hops < MAX_SYMLINK_HOPS ? linkTarget(join(realParent, basename(absolute))) : undefined;
    if (link !== undefined) return realPathOf(resolve(realParent, link), hops + 1);
    return join(realParent, basename(absolute));
  }
}

function linkTarget(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** How risky `root` (a real path) is as a workspace, next to the home folder and $RESON_HOME. */
export function workspaceRootRisk(root: string, places: RootPlaces): RootRisk {
  const home = realPathOf(places.home);
  const resonHome = realPathOf(places.resonHome);
  if (root === "/") return { kind: "refused", reason: "it is the whole file system" };
  if (KERNEL_TREES.some((tree) => isWithin(root, tree)))
    return { kind: "refused", reason: "it is a kernel file system" };
  // Registered workspaces reson made live in $RESON_HOME/workspaces/<name>: each of those is
  // a workspace like any project folder (the sandbox shows a root inside a hidden folder, and
  // keeps the rest of reson's folder hidden); the workspaces folder itself is not.
  if (isBelow(root, join(resonHome, WORKSPACES_DIR))) return { kind: "none" };
  if (isWithin(root, resonHome)) {
    return {
      kind: "refused",
      reason: `it is inside reson's own folder ($RESON_HOME, ${resonHome}), which tools never change`,
    };
  }
  // Before the system folders: root's home is /root.
  if (root === home) return { kind: "broad", reason: "it is your home folder" };
  if (SYSTEM_DIRS.has(root)) return { kind: "refused", reason: "it is a system folder" };
  if (OS_TREES.some((tree) => isWithin(root, tree)) && !OWNER_TREES.some((tree) => isBelow(root, tree)))
    return { kind: "refused", reason: "it holds what the operating system installed" };
  if (isBelow(home, root)) return { kind: "broad", reason: `it contains your home folder (${home})` };
  if (isBelow(resonHome, root)) {
    return {
      kind: "broad",
      reason: `it contains reson's own folder ($RESON_HOME, ${resonHome}): its settings, permissions and secrets`,
    };
  }
  return { kind: "none" };
}
