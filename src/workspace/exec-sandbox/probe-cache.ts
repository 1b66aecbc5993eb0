// What the bubblewrap probe found, kept in $RESON_HOME/cache/sandbox-probe.json so a run
// does not start bwrap three times before its first step. An entry counts only for the
// same kernel boot, user, namespaces, process restrictions, sysctls, bubblewrap file and
// probe; anything unreadable, malformed or different is ignored and probed again. Only a
// working sandbox is kept: a failure is probed every time, so fixing it shows at once.
import { lstat, mkdir, readFile, readlink, realpath, rm } from "node:fs/promises";
import { join } from "node:path";
import { resonHome } from "../../config/index.js";
import { writeFileAtomic } from "../../core/atomic-write.js";

/** What a successful probe found out by running bwrap. */
export interface RememberedCheck {
  bwrapVersion?: string;
  /** bwrap ≥ 0.8 (--disable-userns works). */
  disableUserns: boolean;
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

const text = (path: string) =>
  readFile(path, "utf8").then(
    (t) => t.trim(),
    () => null,
  );

/**
 * Everything the probe's answer depends on, as one string; undefined when the kernel boot
 * cannot be told (no /proc), and then nothing is cached.
 */
export async function probeKey(
  bwrapPath: string,
  probeArgs: readonly string[],
  filter: Buffer,
): Promise<string | undefined> {
  const [bootId, bwrapStat, bwrapReal, sysctls, namespaces, status] = await Promise.all([
    text("/proc/sys/kernel/random/boot_id"),
    lstat(bwrapPath).catch(() => undefined),
    realpath(bwrapPath).catch(() => undefined),
    Promise.all(SYSCTLS.map(text)),
    Promise.all(NAMESPACES.map((ns) => readlink(`/proc/self/ns/${ns}`).catch(() => null))),
    text("/proc/self/status"),
  ]);
  if (!bootId || !bwrapStat || !bwrapReal) return undefined;
  const real = bwrapReal === bwrapPath ? bwrapStat : await lstat(bwrapReal).catch(() => undefined);
  if (!real) return undefined;
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
  });
}

function isRemembered(value: unknown): value is RememberedCheck {
  if (typeof value !== "object" || value === null) return false;
  const check = value as Record<string, unknown>;
  const keys = Object.keys(check);
  if (!keys.every((k) => k === "bwrapVersion" || k === "disableUserns")) return false;
  if (typeof check.disableUserns !== "boolean") return false;
  return (
    check.bwrapVersion === undefined ||
    (typeof check.bwrapVersion === "string" && /^[\d.]{1,20}$/.test(check.bwrapVersion))
  );
}

/** The remembered check for exactly this key, or undefined (absent, unreadable, malformed, stale). */
export async function readRememberedCheck(file: string, key: string): Promise<RememberedCheck | undefined> {
  const raw = await readFile(file, "utf8").catch(() => undefined);
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
