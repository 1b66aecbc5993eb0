// Per-command control groups: the only limit on processes that holds for root (RLIMIT_NPROC
// is not enforced for uid 0) and the only memory limit that counts every process of a
// command together. Groups are made beneath reson's own cgroup (so limits set on reson
// still apply), in a `reson` folder, named `<agent pid>-<n>`; groups left by an agent that
// died are removed before an agent makes its first.
import { access, mkdir, readdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { isWithin } from "../../core/path-within.js";
import { processAlive } from "../../core/process-alive.js";

export type CgroupKind = "v1" | "v2" | "none";

export interface CgroupSupport {
  kind: CgroupKind;
  /** Folders new groups are made in: v1 one per controller hierarchy, v2 the same folder twice. */
  pidsParent?: string;
  memoryParent?: string;
  /** Why no group can be made, when kind is "none". */
  reason?: string;
}

export interface CgroupLimits {
  pids: number;
  memoryBytes: number;
}

export interface CgroupUsage {
  /** Times a fork was refused because the process limit was reached. */
  pidsLimitHits: number;
  /** Processes the kernel killed because the memory limit was reached. */
  oomKills: number;
}

export interface CommandCgroup {
  /** The `cgroup.procs` files a process writes its pid to, to join the group before bwrap starts. */
  procsFiles: string[];
  usage(): Promise<CgroupUsage>;
  /** Kills anything left in the group and removes it. */
  remove(): Promise<void>;
}

interface Mount {
  root: string;
  mountPoint: string;
  fsType: string;
  superOptions: string[];
}

/** mountinfo writes spaces and other odd bytes in paths as octal escapes (\040). */
function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** /proc/self/mountinfo: "id parent dev root mountpoint opts [tags] - fstype source superopts". */
function parseMounts(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split("\n")) {
    const [left, right] = line.split(" - ");
    if (!left || !right) continue;
    const fields = left.split(" ");
    const [fsType, , superOptions = ""] = right.split(" ");
    if (!fsType || fields.length < 5) continue;
    mounts.push({
      root: unescapeMountPath(fields[3]!),
      mountPoint: unescapeMountPath(fields[4]!),
      fsType,
      superOptions: superOptions.split(","),
    });
  }
  return mounts;
}

/** /proc/self/cgroup: "id:controllers:path"; v2 is the line with id 0 and no controllers. */
function parseMembership(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    const controllers = match[2]!;
    if (controllers === "") out.set("", match[3]!);
    for (const name of controllers.split(",")) if (name) out.set(name, match[3]!);
  }
  return out;
}

/** The folder of our own group in a hierarchy mounted at `mount`. */
function ownFolder(mount: Mount, path: string): string {
  const inside = relative(mount.root, path);
  // Under a cgroup namespace the path may already be relative to the mount's root.
  return join(mount.mountPoint, isWithin(path, mount.root) ? inside : path);
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Makes `<parent>/reson` and proves we may create groups in it. */
async function writableParent(own: string): Promise<string | undefined> {
  const parent = join(own, "reson");
  const probe = join(parent, `probe-${process.pid}`);
  try {
    await mkdir(parent, { recursive: true });
    await mkdir(probe);
    await rmdir(probe);
    return parent;
  } catch {
    return undefined;
  }
}

async function detectV2(
  mounts: Mount[],
  membership: Map<string, string>,
): Promise<CgroupSupport | undefined> {
  const mount = mounts.find((m) => m.fsType === "cgroup2");
  const path = membership.get("");
  if (!mount || path === undefined) return undefined;
  const own = ownFolder(mount, path);
  const available = (await readFile(join(own, "cgroup.controllers"), "utf8").catch(() => "")).split(/\s+/);
  if (!available.includes("pids") || !available.includes("memory")) return undefined;
  // Fails (EBUSY) unless our group is the root: a v2 group with processes cannot hand
  // controllers to its children. Then v2 is not delegated to us and we say so.
  const enabled = await writeFile(join(own, "cgroup.subtree_control"), "+pids +memory").then(
    () => true,
    () => false,
  );
  const parent = enabled ? await writableParent(own) : undefined;
  if (!parent) return undefined;
  const delegated = await writeFile(join(parent, "cgroup.subtree_control"), "+pids +memory").then(
    () => true,
    () => false,
  );
  return delegated ? { kind: "v2", pidsParent: parent, memoryParent: parent } : undefined;
}

async function detectV1(
  mounts: Mount[],
  membership: Map<string, string>,
): Promise<CgroupSupport | undefined> {
  const parents: Record<"pids" | "memory", string | undefined> = { pids: undefined, memory: undefined };
  for (const controller of ["pids", "memory"] as const) {
    const mount = mounts.find((m) => m.fsType === "cgroup" && m.superOptions.includes(controller));
    const path = membership.get(controller);
    if (!mount || path === undefined) return undefined;
    parents[controller] = await writableParent(ownFolder(mount, path));
    if (!parents[controller]) return undefined;
  }
  return { kind: "v1", pidsParent: parents.pids!, memoryParent: parents.memory! };
}

/** Removes groups whose agent is gone (SIGKILLed mid-command); they are empty by then. */
async function sweepStale(parent: string): Promise<void> {
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    const owner = /^(\d+)-\d+$/.exec(name);
    if (owner && !processAlive(Number(owner[1]))) await rmdir(join(parent, name)).catch(() => {});
  }
}

/** Finds a hierarchy where reson may create per-command groups with pids and memory limits. */
export async function detectCgroups(): Promise<CgroupSupport> {
  const [mountinfo, cgroups] = await Promise.all([
    readFile("/proc/self/mountinfo", "utf8").catch(() => ""),
    readFile("/proc/self/cgroup", "utf8").catch(() => ""),
  ]);
  const mounts = parseMounts(mountinfo);
  const membership = parseMembership(cgroups);
  const support = (await detectV2(mounts, membership)) ?? (await detectV1(mounts, membership));
  if (!support) {
    const reason = mounts.some((m) => m.fsType.startsWith("cgroup"))
      ? "no writable cgroup with the pids and memory controllers"
      : "no cgroup file system is mounted";
    return { kind: "none", reason };
  }
  return support;
}

let counter = 0;
let swept: Promise<void> | undefined;

/** Sums "name N" lines of a cgroup events file for the given names. */
async function countEvents(file: string, names: string[]): Promise<number> {
  const text = await readFile(file, "utf8").catch(() => "");
  let total = 0;
  for (const line of text.split("\n")) {
    const [name, value] = line.split(" ");
    if (name && names.includes(name)) total += Number(value) || 0;
  }
  return total;
}

async function killMembers(folder: string): Promise<void> {
  const procs = await readFile(join(folder, "cgroup.procs"), "utf8").catch(() => "");
  for (const pid of procs.split("\n").filter(Boolean)) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** rmdir fails with EBUSY while a process is in the group: kill what is left, then retry (bounded). */
async function removeGroup(folder: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    try {
      await rmdir(folder);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code !== "EBUSY") throw error;
    }
    await killMembers(folder);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function writeLimits(
  kind: CgroupKind,
  pids: string,
  memory: string,
  limits: CgroupLimits,
): Promise<void> {
  const memoryBytes = String(limits.memoryBytes);
  await writeFile(join(pids, "pids.max"), String(limits.pids));
  if (kind === "v2") {
    await writeFile(join(memory, "memory.max"), memoryBytes);
    // Swap would let a command go past memory.max; absent when swap accounting is off.
    await writeFile(join(memory, "memory.swap.max"), "0").catch(() => {});
    return;
  }
  await writeFile(join(memory, "memory.limit_in_bytes"), memoryBytes);
  if (await exists(join(memory, "memory.memsw.limit_in_bytes"))) {
    await writeFile(join(memory, "memory.memsw.limit_in_bytes"), memoryBytes).catch(() => {});
  }
}

/** A fresh group (one per hierarchy for v1) with the limits written in, ready to be joined. */
export async function createCommandCgroup(
  support: CgroupSupport,
  limits: CgroupLimits,
): Promise<CommandCgroup> {
  if (support.kind === "none" || !support.pidsParent || !support.memoryParent) {
    throw new Error("createCommandCgroup needs a detected cgroup");
  }
  swept ??= Promise.all(
    [...new Set([support.pidsParent, support.memoryParent])].map((parent) => sweepStale(parent)),
  ).then(() => {});
  await swept;
  counter += 1;
  const name = `${process.pid}-${counter}`;
  const pids = join(support.pidsParent, name);
  const memory = join(support.memoryParent, name);
  const folders = [...new Set([pids, memory])];
  try {
    for (const folder of folders) await mkdir(folder);
    await writeLimits(support.kind, pids, memory, limits);
  } catch (error) {
    for (const folder of folders) await rmdir(folder).catch(() => {});
    throw error;
  }
  const memoryEvents = support.kind === "v2" ? "memory.events" : "memory.oom_control";
  return {
    procsFiles: folders.map((folder) => join(folder, "cgroup.procs")),
    async usage() {
      const [pidsLimitHits, oomKills] = await Promise.all([
        countEvents(join(pids, "pids.events"), ["max"]),
        countEvents(join(memory, memoryEvents), ["oom_kill"]),
      ]);
      return { pidsLimitHits, oomKills };
    },
    async remove() {
      for (const folder of folders) await removeGroup(folder);
    },
  };
}
