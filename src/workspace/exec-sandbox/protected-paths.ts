// How the sandbox keeps the protected list (protected-targets.ts) out of a command's reach.
// An existing protected path is bound read-only over itself; one that does not exist yet gets a
// read-only empty folder in its place (a placeholder: bwrap makes the mount point, and it is
// removed again, in parallel off the main thread, once no running command needs it,
// placeholder-registry.ts), so nothing can be planted there
// even while the command runs; the folders between the workspace and a protected path become
// mount points, which cannot be renamed away. A protected path that is a symbolic link can
// still be replaced (a mount cannot sit on a link), so links alone are compared after the
// command and put back. Symbolic links are never followed out of what commands can write.
// Looked up with synchronous fs: a few dozen lstat calls, each cheaper than a trip through the
// thread pool.
import { lstatSync, mkdirSync, readlinkSync, realpathSync } from "node:fs";
import { rm, symlink } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { isWithin } from "../../core/path-within.js";
import type { WorkspacePolicy } from "../policy.js";
import { type ProtectedTarget, protectedTargets } from "../protected-targets.js";
import { claimPlaceholders, type PlaceholderClaim, releasePlaceholders } from "./placeholder-registry.js";

export interface ProtectionPlan {
  targets: ProtectedTarget[];
  /** Real paths of existing protected paths (or of a file in the way of one), bound read-only. */
  readOnly: string[];
  /** Missing protected paths (or their topmost missing folder): an empty read-only folder while the command runs. */
  placeholders: string[];
  /** Existing folders between a writable folder and a protected path, made mount points. */
  mountPoints: string[];
  /**
   * Cache folders inside a read-only protected folder (its entry's `scratch`), real paths: each
   * an empty private tmpfs for the command, so the tool works and nothing it writes stays.
   */
  scratch?: string[];
  /** Protected paths (or folders on the way) that are symbolic links, with where they pointed. */
  links: Map<string, string>;
  /** The placeholders' registration while the command runs. */
  claim?: PlaceholderClaim;
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function readlinkOrUndefined(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** Follows `target` down from the writable folder `base`, adding what protects it to `plan`. */
interface Walk {
  writable: readonly string[];
  /** Placeholders other running commands stand on: still placeholders, though they exist. */
  inUse: ReadonlySet<string>;
}

function protectOne(target: string, base: string, walk: Walk, plan: ProtectionPlan): void {
  let current = base;
  const names = relative(base, target).split(sep).filter(Boolean);
  for (let index = 0; index < names.length; index += 1) {
    const next = `${current}${sep}${names[index]}`;
    const last = index === names.length - 1;
    const info = lstatOrUndefined(next);
    if (!info || walk.inUse.has(next)) {
      plan.placeholders.push(next);
      return;
    }
    if (info.isSymbolicLink()) {
      plan.links.set(next, readlinkOrUndefined(next) ?? "");
      const real = realpathOrUndefined(next);
      // A dangling link, or one out of what commands can write: the link itself is all there is to guard.
      if (!real || !walk.writable.some((dir) => isWithin(real, dir))) return;
      current = real;
      if (last) plan.readOnly.push(real);
      continue;
    }
    if (last || !info.isDirectory()) {
      plan.readOnly.push(next);
      return;
    }
    plan.mountPoints.push(next);
    current = next;
  }
}

/**
 * What keeps `policy`'s protected paths read-only for one command, looked up on disk now. The
 * placeholders it names count as in use until `settleProtection`.
 */
export async function planProtection(policy: WorkspacePolicy): Promise<ProtectionPlan> {
  const targets = protectedTargets(policy);
  const empty = (): ProtectionPlan => ({
    targets,
    readOnly: [],
    placeholders: [],
    mountPoints: [],
    links: new Map(),
  });
  // A read-only workspace (plan mode) has nothing to protect, and no mount point can be made in it.
  if (policy.readOnly) return empty();
  const writable = [policy.root, ...policy.writeExtra];
  let plan = empty();
  // Looked at under the placeholder registry's lock: no removal of another command's can
  // happen between seeing a placeholder and registering this command on it.
  const claim = await claimPlaceholders(policy.root, (inUse) => {
    plan = empty();
    const walk: Walk = { writable, inUse };
    for (const target of targets) {
      const base = writable.find((dir) => isWithin(target.path, dir));
      if (base !== undefined && target.path !== base) protectOne(target.path, base, walk, plan);
    }
    plan.readOnly = [...new Set(plan.readOnly)];
    plan.mountPoints = [...new Set(plan.mountPoints)];
    // A placeholder inside a folder already bound read-only could not be made (and is not needed).
    plan.placeholders = [...new Set(plan.placeholders)].filter(
      (path) => !plan.readOnly.some((dir) => isWithin(path, dir)),
    );
    return plan.placeholders;
  });
  plan.claim = claim;
  plan.scratch = scratchFolders(targets, plan.readOnly);
  return plan;
}

/**
 * The cache folders of the read-only targets that have some (node_modules' `.vite`…), made
 * where missing: a mount needs a folder to stand on, and Vite and Vitest fail when they cannot
 * make theirs. An empty folder in an ignored one, where the tool would make it anyway.
 */
function scratchFolders(targets: readonly ProtectedTarget[], readOnly: readonly string[]): string[] {
  const found: string[] = [];
  for (const target of targets) {
    if (!target.entry.scratch) continue;
    const real = realpathOrUndefined(target.path);
    if (!real || !readOnly.includes(real) || !lstatOrUndefined(real)?.isDirectory()) continue;
    for (const name of target.entry.scratch) {
      const folder = join(real, name);
      if (!lstatOrUndefined(folder)) {
        try {
          mkdirSync(folder);
        } catch {
          continue; // made meanwhile, or not possible: then the command finds it as it is
        }
      }
      const info = lstatOrUndefined(folder);
      if (info?.isDirectory() && !info.isSymbolicLink()) found.push(folder);
    }
  }
  return [...new Set(found)];
}

/** Removes the plan's placeholders that no other command needs (the command could not start). */
export async function releaseProtection(plan: ProtectionPlan): Promise<void> {
  if (plan.claim) await releasePlaceholders(plan.claim);
}

/**
 * After the command: removes the placeholders no other command needs (only while still empty:
 * whatever reson or the user put there from outside stays), and puts back any protected link
 * the command replaced. Returns one warning per link it had to act on.
 */
export async function settleProtection(plan: ProtectionPlan, policy: WorkspacePolicy): Promise<string[]> {
  const released = plan.claim ? releasePlaceholders(plan.claim) : Promise.resolve();
  const warnings: string[] = [];
  for (const [path, target] of plan.links) {
    const now = lstatOrUndefined(path);
    if (now?.isSymbolicLink() && readlinkOrUndefined(path) === target) continue;
    const named = relative(policy.root, path).split(sep).join("/");
    try {
      if (now) await rm(path, { recursive: true, force: true });
      await symlink(target, path);
      warnings.push(`restored ${named}: the command changed it, but it is protected`);
    } catch {
      warnings.push(`${named} is protected but the command changed it, and it could not be restored`);
    }
  }
  await released;
  return warnings;
}
