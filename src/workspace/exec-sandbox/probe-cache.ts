// What the bubblewrap probe found, kept in $RESON_HOME/cache/sandbox-probe.json so a run
// does not start bwrap three times (and make a test cgroup) before its first step. An entry
// counts only for the same kernel boot, user, namespaces, process restrictions, sysctls,
// cgroup membership and mounts, bubblewrap file and probe; anything unreadable, malformed
// or different is ignored and probed again. Only a working sandbox is kept: a failure is
// probed every time, so fixing it shows at once.
import { lstatSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { resonHome } from "../../config/index.js";
import { writeFileAtomic } from "../../core/atomic-write.js";
import type { CgroupSupport } from "./cgroup.js";

/** What a successful probe found out by running bwrap, and where command cgroups go. */
export interface RememberedCheck {
  bwrapVersion?: string;
  /** bwrap ≥ 0.8 (--disable-userns works). */
  disableUserns: boolean;
  cgroups: CgroupSupport;
}

/** Read by the probe for its hints; a change (sysctl -w) must lead to a new probe. */
const SYSCTLS = [
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/user/max_user_namespaces",
];
// A container (same kernel, other user or mount namespace) may allow other things.
const NAMESPACES = ["user", "mnt"];
/** From /proc/self/status: what limits this process (a container's seccomp, capabilities). */
const STATUS_FIELDS = ["NoNewPrivs", "Seccomp", "Seccomp_filters", "CapEff", "CapBnd"];

export function probeCacheFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(resonHome(env), "cache", "sandbox-probe.json");
}

// Synchronous, like the reads of the entry: small files, read on every run's way to its
// first step, cost less so than as thread-pool round trips.
function text(path: string): string | null {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return null;
  }
}

function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/**
 * Everything the probe's answer depends on, as one string; undefined when the kernel boot
 * cannot be told (no /proc), and then nothing is cached.
 */
export function probeKey(
  bwrapPath: string,
  probeArgs: readonly string[],
  filter: Buffer,
): string | undefined {
  const bootId = text("/proc/sys/kernel/random/boot_id");
  const bwrapStat = attempt(() => lstatSync(bwrapPath));
  const bwrapReal = attempt(() => realpathSync(bwrapPath));
  if (!bootId || !bwrapStat || !bwrapReal) return undefined;
  const real = bwrapReal === bwrapPath ? bwrapStat : attempt(() => lstatSync(bwrapReal));
  if (!real) return undefined;
  const sysctls = SYSCTLS.map(text);
  const namespaces = NAMESPACES.map((ns) => attempt(() => readlinkSync(`/proc/self/ns/${ns}`)) ?? null);
  const status = text("/proc/self/status");
  const cgroup = text("/proc/self/cgroup");
  const mounts = text("/proc/self/mountinfo");
  const statusLines = (status ?? "")
    .split("\n")
    .filter((line) => STATUS_FIELDS.includes(line.split(":")[0] ?? ""))
    .map((line) => line.replace(/\s+/g, " "));
  return JSON.stringify({
    bootId,
    uid: process.getuid?.(),
    gid: process.getgid?.(),
    euid: process.geteuid?.(),
    arch: process.arch,
    bwrap: {
      path: bwrapPath,
      realPath: bwrapReal,
      dev: real.dev,
      ino: real.ino,
      size: real.size,
      mode: real.mode,
      uid: real.uid,
      mtimeMs: real.mtimeMs,
      ctimeMs: real.ctimeMs,
    },
    probe: probeArgs,
    filter: filter.toString("base64"),
    sysctls,
    namespaces,
    status: statusLines,
    cgroup,
    // Mount ids and parents change with every mount elsewhere: only the cgroup file systems.
    cgroupMounts: (mounts ?? "")
      .split("\n")
      .filter((line) => / - cgroup2? /.test(line))
      .map((line) => line.split(" ").slice(3).join(" ")),
  });
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isFolder = (value: unknown) => typeof value === "string" && value.startsWith("/");

function isCgroupSupport(value: unknown): value is CgroupSupport {
  if (!isObject(value)) return false;
  if (value.kind === "none") return value.reason === undefined || typeof value.reason === "string";
  return (
    (value.kind === "v1" || value.kind === "v2") && isFolder(value.pidsParent) && isFolder(value.memoryParent)
  );
}

function isRemembered(value: unknown): value is RememberedCheck {
  if (!isObject(value)) return false;
  if (!Object.keys(value).every((k) => ["bwrapVersion", "disableUserns", "cgroups"].includes(k)))
    return false;
  if (typeof value.disableUserns !== "boolean" || !isCgroupSupport(value.cgroups)) return false;
  return (
    value.bwrapVersion === undefined ||
    (typeof value.bwrapVersion === "string" && /^[\d.]{1,20}$/.test(value.bwrapVersion))
  );
}

/** The remembered check for exactly this key, or undefined (absent, unreadable, malformed, stale). */
export function readRememberedCheck(file: string, key: string): RememberedCheck | undefined {
  const raw = attempt(() => readFileSync(file, "utf8"));
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const entry = parsed as { key?: unknown; check?: unknown };
  if (entry.key !== key || !isRemembered(entry.check)) return undefined;
  return entry.check;
}

/** Best effort: a home folder that cannot be written only costs the next run a probe. */
export async function rememberCheck(file: string, key: string, check: RememberedCheck): Promise<void> {
  try {
    await mkdir(join(file, ".."), { recursive: true, mode: 0o700 });
    await writeFileAtomic(file, `${JSON.stringify({ key, check })}\n`, { mode: 0o600 });
  } catch {
    // not cached
  }
}

export async function forgetCheck(file: string): Promise<void> {
  await rm(file, { force: true }).catch(() => {});
}
