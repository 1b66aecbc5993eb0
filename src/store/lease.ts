// Run leases: which process executes a run now, for how long, and the epoch that fences every
// write of the run. Times come from the database's clock, so holders on several machines agree
// on what has expired; each acquire is a compare-and-swap on the epoch, so of racing acquirers
// exactly one wins, and a writer whose epoch moved on can never commit again.
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { ResonError } from "../core/errors.js";
import { humanDuration } from "../core/human-duration.js";
import type { Statement } from "./driver.js";
import type { Row, SqlValue } from "./records.js";
import type {
  AcquireOptions,
  LeaseFence,
  LeaseHolder,
  LeaseRepository,
  LeaseState,
  RunLease,
} from "./types.js";

/**
 * The database's clock in epoch milliseconds, as an SQL expression: one instant for the whole
 * statement, so a lease's acquired, renewed and expiry times written together agree (SQLite's
 * 'now' holds for a statement's step; PostgreSQL's clock_timestamp() would move between the
 * columns of one row, statement_timestamp() does not).
 */
export const NOW_MS = {
  sqlite: "CAST(unixepoch('subsec') * 1000 AS INTEGER)",
  postgres: "(extract(epoch FROM statement_timestamp()) * 1000)::bigint",
} as const;

export type Kind = keyof typeof NOW_MS;

const COLUMNS =
  "trace_id, epoch, holder_id, host, pid, role, acquired_at, renewed_at, expires_at, released_at";

/** The lease columns and its state by the database's clock, as `leaseFromRow` reads them. */
export function leaseColumns(kind: Kind): string {
  const now = NOW_MS[kind];
  return `${COLUMNS}, CASE WHEN released_at IS NOT NULL THEN 'released' WHEN expires_at > ${now} THEN 'held' ELSE 'expired' END AS state`;
}

export function leaseFromRow(row: Row): RunLease {
  return {
    traceId: String(row.trace_id),
    epoch: Number(row.epoch),
    holder: {
      id: String(row.holder_id),
      host: String(row.host),
      pid: Number(row.pid),
      role: String(row.role),
    },
    acquiredAt: Number(row.acquired_at),
    renewedAt: Number(row.renewed_at),
    expiresAt: Number(row.expires_at),
    releasedAt: row.released_at === null || row.released_at === undefined ? null : Number(row.released_at),
    state: String(row.state) as LeaseState,
  };
}

/** A holder for this process: host, pid and a random part, and what it is. */
export function leaseHolder(role: string): LeaseHolder {
  const host = hostname();
  const random = Math.random().toString(36).slice(2, 8).padEnd(6, "0");
  return { id: `${host}:${process.pid}:${random}`, host, pid: process.pid, role };
}

/**
 * Whether the holder's process still runs: true or false for a process on this host, undefined
 * for one elsewhere (nothing here can tell). A zombie (exited, not yet reaped) counts as gone.
 */
export function holderAlive(holder: LeaseHolder): boolean | undefined {
  if (holder.host !== hostname()) return undefined;
  if (holder.pid === process.pid) return true;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ESRCH") return false;
    // EPERM: it exists, under another user.
    return code === "EPERM" ? true : undefined;
  }
  try {
    const stat = readFileSync(`/proc/${holder.pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return true;
  }
}

/** "reson resume (pid 4242 on build-box)". */
export function describeHolder(holder: LeaseHolder): string {
  return `${holder.role} (pid ${holder.pid} on ${holder.host})`;
}

function clock(ms: number, nowMs: number): string {
  const at = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  const time = `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
  const sameDay = new Date(nowMs).toDateString() === at.toDateString();
  return sameDay ? time : `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${time}`;
}

/** How long ago, in whole seconds ("0 s", "7 s", "3 min 20 s"). */
function span(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds < 10 ? `${seconds} s` : humanDuration(seconds * 1000);
}

/** "since 14:03:05 (2 min ago)". */
export function leaseSince(lease: RunLease, nowMs: number = Date.now()): string {
  return `since ${clock(lease.acquiredAt, nowMs)} (${span(nowMs - lease.acquiredAt)} ago)`;
}

type Refusal = "held" | "held_force" | "expired_alive";

/** Why the run cannot be taken, naming who holds it and since when, and what to do. */
function leasedError(lease: RunLease, why: Refusal, nowMs: number): ResonError {
  const run = `Run ${lease.traceId}`;
  const who = describeHolder(lease.holder);
  const since = leaseSince(lease, nowMs);
  const local = lease.holder.host === hostname();
  const details = {
    traceId: lease.traceId,
    holder: lease.holder,
    epoch: lease.epoch,
    acquiredAt: lease.acquiredAt,
    renewedAt: lease.renewedAt,
    expiresAt: lease.expiresAt,
    state: lease.state,
  };
  const expiresIn = `its lease was renewed ${span(nowMs - lease.renewedAt)} ago and runs until ${clock(lease.expiresAt, nowMs)}`;
  if (why === "expired_alive") {
    return new ResonError(
      "run_leased",
      `${run} is held by ${who} ${since}. Its lease expired ${span(nowMs - lease.expiresAt)} ago, but that process is still alive (stopped or stuck?).`,
      {
        hint: `To take the run over anyway, resume it with --force (\`reson resume ${lease.traceId} --force\`); that process then stops at its next write without committing anything.`,
        details,
      },
    );
  }
  const wait = local
    ? `Wait for it to finish, or stop it (kill ${lease.holder.pid}); a stopped process frees the run at once.`
    : `Wait for it to finish; if ${lease.holder.host} is gone, the run can be resumed once the lease expires.`;
  if (why === "held_force") {
    return new ResonError(
      "run_leased",
      `${run} is held by ${who} ${since}, and ${expiresIn}: --force only takes over a lease that has expired.`,
      { hint: wait, details },
    );
  }
  return new ResonError("run_leased", `${run} is held by ${who} ${since}; ${expiresIn}.`, {
    hint: `${wait} If it is stuck, once its lease has expired \`reson resume ${lease.traceId} --force\` takes it over.`,
    details,
  });
}

/** The error of a write or renewal whose epoch is no longer the run's. */
export function leaseLostError(fence: LeaseFence, current?: RunLease): ResonError {
  const now = current
    ? current.epoch !== fence.epoch
      ? ` It is now held by ${describeHolder(current.holder)} ${leaseSince(current)}.`
      : " It was released."
    : "";
  return new ResonError(
    "lease_lost",
    `This process lost the lease of run ${fence.traceId} (epoch ${fence.epoch}) and stopped without writing anything more.${now}`,
    {
      hint: "Another process took the run over (its lease had expired, for example while this one was stopped); follow it there, or `reson trace show` the run.",
      details: { traceId: fence.traceId, epoch: fence.epoch, ...(current ? { holder: current.holder } : {}) },
    },
  );
}

/**
 * The statement that fences a batch: it changes the lease's row only while the lease is still
 * at the fence's epoch and not released, so a batch whose writer lost the run fails whole. On
 * PostgreSQL it also locks the row, so a takeover waits for the batch or the batch sees it.
 */
export function fenceStatement(fence: LeaseFence): Statement {
  return {
    sql: "UPDATE run_leases SET epoch = epoch WHERE trace_id = ? AND epoch = ? AND released_at IS NULL",
    params: [fence.traceId, fence.epoch],
    mustChangeOne: true,
  };
}

function checkTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) {
    throw new ResonError("usage_error", `A lease's ttlMs must be a whole number ≥ 1, not ${ttlMs}.`);
  }
}

/** Acquires retry after losing a race this often before giving up with the winner's name. */
const MAX_ACQUIRE_ATTEMPTS = 8;

export function leaseRepository(context: {
  kind: Kind;
  query: (sql: string, params: SqlValue[]) => Promise<Row[]>;
}): LeaseRepository {
  const { kind, query } = context;
  const now = NOW_MS[kind];
  const select = `SELECT ${leaseColumns(kind)} FROM run_leases`;
  const insert =
    `INSERT INTO run_leases (${COLUMNS}) VALUES (?, 1, ?, ?, ?, ?, ${now}, ${now}, ${now} + ?, NULL) ` +
    `ON CONFLICT (trace_id) DO NOTHING RETURNING ${leaseColumns(kind)}`;
  const takeOver = (condition: string) =>
    `UPDATE run_leases SET epoch = epoch + 1, holder_id = ?, host = ?, pid = ?, role = ?, ` +
    `acquired_at = ${now}, renewed_at = ${now}, expires_at = ${now} + ?, released_at = NULL ` +
    `WHERE trace_id = ? AND epoch = ?${condition} RETURNING ${leaseColumns(kind)}`;
  // A free lease: released, or expired by the database's clock at the moment of the swap (a
  // late renewal by its holder wins over the takeover).
  const takeFree = takeOver(` AND (released_at IS NOT NULL OR expires_at <= ${now})`);
  // A lease whose holder's process is gone: whatever its expiry says.
  const takeFromDead = takeOver("");
  const renew =
    `UPDATE run_leases SET renewed_at = ${now}, expires_at = ${now} + ? ` +
    `WHERE trace_id = ? AND epoch = ? AND released_at IS NULL RETURNING ${leaseColumns(kind)}`;
  const release =
    `UPDATE run_leases SET released_at = ${now}, expires_at = ${now} ` +
    `WHERE trace_id = ? AND epoch = ? AND released_at IS NULL RETURNING trace_id`;

  const get = async (traceId: string) => {
    const rows = await query(`${select} WHERE trace_id = ?`, [traceId]);
    return rows[0] ? leaseFromRow(rows[0]) : undefined;
  };

  return {
    get,
    listHeld: async () =>
      (
        await query(
          `${select} WHERE released_at IS NULL AND expires_at > ${now} ORDER BY acquired_at, trace_id`,
          [],
        )
      ).map(leaseFromRow),

    acquire: async (traceId, holder, options: AcquireOptions) => {
      checkTtl(options.ttlMs);
      const who: SqlValue[] = [holder.id, holder.host, holder.pid, holder.role];
      let current: RunLease | undefined;
      for (let attempt = 0; attempt < MAX_ACQUIRE_ATTEMPTS; attempt++) {
        current = await get(traceId);
        let rows: Row[];
        if (!current) {
          rows = await query(insert, [traceId, ...who, options.ttlMs]);
        } else {
          const alive = holderAlive(current.holder);
          let sql: string;
          if (current.state === "held") {
            if (alive !== false) {
              throw leasedError(current, options.force ? "held_force" : "held", Date.now());
            }
            sql = takeFromDead;
          } else if (current.state === "expired" && alive === true && !options.force) {
            throw leasedError(current, "expired_alive", Date.now());
          } else {
            sql = alive === false ? takeFromDead : takeFree;
          }
          rows = await query(sql, [...who, options.ttlMs, traceId, current.epoch]);
        }
        // Lost a race (another acquired, or the holder renewed): look again.
        if (rows[0]) return leaseFromRow(rows[0]);
      }
      throw leasedError(current ?? (await get(traceId))!, "held", Date.now());
    },

    renew: async (fence, ttlMs) => {
      checkTtl(ttlMs);
      const rows = await query(renew, [ttlMs, fence.traceId, fence.epoch]);
      return rows[0] ? leaseFromRow(rows[0]) : undefined;
    },

    release: async (fence) => (await query(release, [fence.traceId, fence.epoch])).length === 1,
  };
}
