// The queue of runs: requests wait "queued" until a worker claims one, which takes the run's
// lease (a new epoch) in the same transaction, so the request's holder and the lease's holder
// are always the same; every later change of the request is fenced by that epoch. A worker that
// dies leaves its request "running" under an expired lease: the next claim takes it back (no
// sweeper), or fails it once its attempts are used up. One run at a time per session, in order.
import { ResonError, type SerializedError } from "../core/errors.js";
import type { Statement, StatementFailed, TxQuery } from "./driver.js";
import { type Kind, leaseColumns, leaseFromRow, leaseLostError, NOW_MS } from "./lease.js";
import type { Notice, Notices } from "./notices.js";
import { type Row, type SqlValue, toJson } from "./records.js";
import type {
  LeaseFence,
  LeaseHolder,
  LeaseRepository,
  RunLease,
  RunQueueRepository,
  RunRequestRecord,
  RunRequestStatus,
  WriteOp,
} from "./types.js";

/** Claims a run gets before a run whose workers keep dying is failed. */
export const DEFAULT_MAX_ATTEMPTS = 3;
/** Requests a claim may pass over (failed as lost, cancelled, or leased elsewhere) before it gives up. */
const MAX_CLAIM_STEPS = 64;

/**
 * Extra wait before a run whose worker died is taken back, in lease TTLs (the lease's own
 * expires_at − renewed_at), by its claims so far: none the first time, then 1, 3 and 7 TTLs.
 */
const REDEATH_BACKOFF_SQL =
  "((l.expires_at - l.renewed_at) * (CASE WHEN r.attempts <= 1 THEN 0 WHEN r.attempts = 2 THEN 1 WHEN r.attempts = 3 THEN 3 ELSE 7 END))";

const COLUMNS = `id, session_id, task, spec, status, attempts, max_attempts, not_before, last_error,
  cancel_requested, idempotency_key, created_at, updated_at, worker, lease_epoch`;

const nullable = (value: unknown) => (value === null || value === undefined ? null : value);

function fromRow(row: Row): RunRequestRecord {
  const lastError = nullable(row.last_error);
  const key = nullable(row.idempotency_key);
  const worker = nullable(row.worker);
  const epoch = nullable(row.lease_epoch);
  return {
    id: String(row.id),
    sessionId: String(row.session_id),
    task: String(row.task),
    spec: JSON.parse(String(row.spec)),
    status: String(row.status) as RunRequestStatus,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    notBefore: Number(row.not_before),
    lastError: lastError === null ? null : (JSON.parse(String(lastError)) as SerializedError),
    cancelRequested: Number(row.cancel_requested) !== 0,
    idempotencyKey: key === null ? null : String(key),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    worker: worker === null ? null : String(worker),
    leaseEpoch: epoch === null ? null : Number(epoch),
  };
}

function usage(message: string): ResonError {
  return new ResonError("usage_error", message);
}

function wholeAtLeast(name: string, value: number, least: number): void {
  if (!Number.isSafeInteger(value) || value < least) {
    throw usage(`A run request's ${name} must be a whole number ≥ ${least}, not ${value}.`);
  }
}

function workerLost(request: RunRequestRecord): SerializedError {
  return {
    code: "worker_lost",
    message: `Run ${request.id} was taken ${request.attempts} times and its worker stopped renewing the lease each time; it is not tried again.`,
    hint: "Look at the workers' logs for crashes or machines that went away, then start the run again (its steps so far are kept).",
    details: { attempts: request.attempts, maxAttempts: request.maxAttempts, worker: request.worker },
  };
}

export function runQueueRepository(context: {
  kind: Kind;
  query: (sql: string, params: SqlValue[]) => Promise<Row[]>;
  commit: (
    ops: readonly WriteOp[],
    options: {
      fence: LeaseFence;
      first: Statement[];
      last: Statement[];
      notices: Notice[];
      explain: (error: StatementFailed) => Promise<Error>;
    },
  ) => Promise<void>;
  transaction: <T>(work: (query: TxQuery) => Promise<T>) => Promise<T>;
  leases: LeaseRepository;
  notices: Notices;
}): RunQueueRepository {
  const { kind, query, transaction, notices } = context;
  const now = NOW_MS[kind];
  const select = `SELECT ${COLUMNS} FROM run_requests`;
  const get = async (id: string) => {
    const rows = await query(`${select} WHERE id = ?`, [id]);
    return rows[0] ? fromRow(rows[0]) : undefined;
  };
  // The lease of a request may be taken when nobody holds it (none yet, released, expired).
  // A run whose worker died is taken back as soon as its lease expires the first time; one
  // whose workers keep dying (a run that crashes its worker, a machine that keeps failing)
  // waits longer each time: one more lease TTL after the second death, 3 after the third, then 7.
  const leaseFree = `(l.trace_id IS NULL OR l.released_at IS NOT NULL OR l.expires_at <= ${now})`;
  // PostgreSQL: claimers pass over each other's rows instead of waiting; SQLite's BEGIN
  // IMMEDIATE lets one claimer in at a time, so there is nothing to skip.
  const lock = kind === "postgres" ? " FOR UPDATE OF r SKIP LOCKED" : "";
  const candidate = (passed: number, locked = true) =>
    `SELECT ${COLUMNS.replace(/(\w+)/g, "r.$1")} FROM run_requests r LEFT JOIN run_leases l ON l.trace_id = r.id
     WHERE ${leaseFree} AND (
       (r.status = 'running' AND (l.trace_id IS NULL OR l.released_at IS NOT NULL
         OR l.expires_at + ${REDEATH_BACKOFF_SQL} <= ${now}))
       OR (r.status = 'queued' AND r.not_before <= ${now} AND NOT EXISTS (
         SELECT 1 FROM run_requests e WHERE e.session_id = r.session_id AND e.status IN ('queued', 'running')
           AND (e.created_at < r.created_at OR (e.created_at = r.created_at AND e.id < r.id))))
     )${passed > 0 ? ` AND r.id NOT IN (${Array(passed).fill("?").join(", ")})` : ""}
     ORDER BY r.created_at, r.id LIMIT 1${locked ? lock : ""}`;
  // Takes the lease with a new epoch, only while it is free (a CLI may have taken it meanwhile).
  const takeLease = `INSERT INTO run_leases (trace_id, epoch, holder_id, host, pid, role, acquired_at, renewed_at, expires_at, released_at)
     VALUES (?, 1, ?, ?, ?, ?, ${now}, ${now}, ${now} + ?, NULL)
     ON CONFLICT (trace_id) DO UPDATE SET epoch = run_leases.epoch + 1, holder_id = excluded.holder_id,
       host = excluded.host, pid = excluded.pid, role = excluded.role, acquired_at = excluded.acquired_at,
       renewed_at = excluded.renewed_at, expires_at = excluded.expires_at, released_at = NULL
     WHERE run_leases.released_at IS NOT NULL OR run_leases.expires_at <= ${now}
     RETURNING ${leaseColumns(kind)}`;
  // Ends a dead worker's lease for good: a new epoch, released, so its late writes all fail.
  const revokeLease = `UPDATE run_leases SET epoch = epoch + 1, released_at = ${now}, expires_at = ${now}
     WHERE trace_id = ?`;
  const releaseLease = `UPDATE run_leases SET released_at = ${now}, expires_at = ${now}
     WHERE trace_id = ? AND epoch = ? AND released_at IS NULL`;

  const claimIn = async (
    tx: TxQuery,
    holder: LeaseHolder,
    ttlMs: number,
  ): Promise<{ request: RunRequestRecord; lease: RunLease } | undefined> => {
    const passed: string[] = [];
    for (let step = 0; step < MAX_CLAIM_STEPS; step++) {
      const [row] = await tx(candidate(passed.length), passed);
      if (!row) return undefined;
      const request = fromRow(row);
      passed.push(request.id);
      if (
        request.status === "running" &&
        (request.cancelRequested || request.attempts >= request.maxAttempts)
      ) {
        // Its worker died: a cancelled run ends here, and one out of attempts fails.
        const [status, error] = request.cancelRequested
          ? (["cancelled", null] as const)
          : (["failed", workerLost(request)] as const);
        await tx(
          `UPDATE run_requests SET status = ?, last_error = COALESCE(?, last_error), updated_at = ${now} WHERE id = ?`,
          [status, error === null ? null : toJson(error, "run_requests.last_error"), request.id],
        );
        await tx(revokeLease, [request.id]);
        continue;
      }
      const [leaseRow] = await tx(takeLease, [
        request.id,
        holder.id,
        holder.host,
        holder.pid,
        holder.role,
        ttlMs,
      ]);
      if (!leaseRow) continue;
      const lease = leaseFromRow(leaseRow);
      const [claimed] = await tx(
        `UPDATE run_requests SET status = 'running', attempts = attempts + 1, worker = ?, lease_epoch = ?,
           updated_at = ${now} WHERE id = ? RETURNING ${COLUMNS}`,
        [holder.id, lease.epoch, request.id],
      );
      if (!claimed)
        throw new ResonError("internal_error", `Run request ${request.id} vanished while claimed.`);
      return { request: fromRow(claimed), lease };
    }
    return undefined;
  };

  /**
   * Changes a running request under its fence, with the run's last writes (`ops`), and releases
   * its lease, all or nothing: the request must still carry the fence's epoch (its row is
   * changed first, as a claim locks it first), and the lease must still be at it.
   */
  const fenced = async (
    fence: LeaseFence,
    update: Statement,
    ops: readonly WriteOp[],
    notices: Notice[] = [],
  ): Promise<RunRequestRecord> => {
    await context.commit(ops, {
      fence,
      first: [{ ...update, mustChangeOne: true }],
      last: [{ sql: releaseLease, params: [fence.traceId, fence.epoch] }],
      notices,
      explain: async (error) => {
        if (error.reason !== "missing_row") {
          return new ResonError(
            "store_unavailable",
            `Run ${fence.traceId} could not be updated: ${error.message}`,
            {
              hint: "Nothing was written. Try again; if it keeps failing, check the database.",
              cause: error.cause,
            },
          );
        }
        if (!(await get(fence.traceId))) {
          return new ResonError("not_found", `There is no run request ${fence.traceId}.`, {
            hint: "Only runs taken from the queue (queue.claim) are finished through it.",
          });
        }
        return leaseLostError(fence, await context.leases.get(fence.traceId));
      },
    });
    const request = await get(fence.traceId);
    if (!request) throw new ResonError("internal_error", `Run request ${fence.traceId} vanished.`);
    return request;
  };
  const owned = "WHERE id = ? AND status = 'running' AND lease_epoch = ?";

  return {
    enqueue: async (input) => {
      const maxAttempts = input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
      wholeAtLeast("maxAttempts", maxAttempts, 1);
      const key = input.idempotencyKey ?? null;
      let rows: Row[];
      try {
        // A second request under the same key inserts nothing (also when two race: the loser
        // waits for the winner's commit) and reads the first.
        rows = await query(
          `INSERT INTO run_requests (${COLUMNS}) VALUES (?, ?, ?, ?, 'queued', 0, ?, ${now}, NULL, 0, ?, ${now}, ${now}, NULL, NULL)
           ON CONFLICT (idempotency_key) DO NOTHING RETURNING ${COLUMNS}`,
          [input.id, input.sessionId, input.task, toJson(input.spec, "run_requests.spec"), maxAttempts, key],
        );
      } catch (error) {
        if (await get(input.id)) {
          throw new ResonError("store_conflict", `Run ${input.id} is already queued.`, {
            hint: "Give each run a new id; to make a repeated request safe, send an idempotency key.",
            cause: error,
          });
        }
        throw error;
      }
      if (rows[0]) {
        const notice: Notice = { kind: "queue" };
        // Wake-ups for other processes' workers follow the commit (a separate statement: the
        // insert committed on its own; a lost wake-up only delays a worker until its next poll).
        for (const statement of notices.statements([notice])) await query(statement.sql, statement.params);
        notices.committed([notice]);
        return { request: fromRow(rows[0]), created: true };
      }
      const [first] = await query(`${select} WHERE idempotency_key = ?`, [key]);
      if (!first) throw new ResonError("store_unavailable", "A run request's idempotency key vanished.");
      return { request: fromRow(first), created: false };
    },

    claim: async (holder, options) => {
      wholeAtLeast("lease ttlMs", options.ttlMs, 1);
      // An idle worker polls: a plain read first spares the empty queue a write transaction
      // (on SQLite, the file's write lock). A request that arrives just after waits for the next poll.
      if ((await query(candidate(0, false), [])).length === 0) return undefined;
      return transaction((tx) => claimIn(tx, holder, options.ttlMs));
    },

    finish: async (fence, status, error = null, options = {}) => {
      if (!["completed", "failed", "cancelled"].includes(status)) {
        throw usage(`A run ends completed, failed or cancelled, not ${String(status)}.`);
      }
      const update = {
        sql: `UPDATE run_requests SET status = ?, last_error = ?, updated_at = ${now} ${owned}`,
        params: [
          status,
          error === null ? null : toJson(error, "run_requests.last_error"),
          fence.traceId,
          fence.epoch,
        ],
      };
      return fenced(fence, update, options.ops ?? []);
    },

    retryLater: async (fence, error, delayMs, options = {}) => {
      wholeAtLeast("retry delayMs", delayMs, 0);
      return fenced(
        fence,
        {
          // A graceful release (no error) gives its attempt back; a cancelled run stays stopped.
          sql: `UPDATE run_requests SET
            status = CASE WHEN cancel_requested <> 0 THEN 'cancelled' ELSE 'queued' END,
            attempts = CASE WHEN ? = 1 AND attempts > 0 THEN attempts - 1 ELSE attempts END,
            not_before = ${now} + ?, last_error = COALESCE(?, last_error), updated_at = ${now} ${owned}`,
          params: [
            error === null ? 1 : 0,
            delayMs,
            error === null ? null : toJson(error, "run_requests.last_error"),
            fence.traceId,
            fence.epoch,
          ],
        },
        options.ops ?? [],
        [{ kind: "queue" }],
      );
    },

    requestCancel: async (id) => {
      const changed = await query(
        `UPDATE run_requests SET
           status = CASE WHEN status = 'queued' THEN 'cancelled' ELSE status END,
           cancel_requested = CASE WHEN status = 'running' THEN 1 ELSE cancel_requested END,
           updated_at = ${now}
         WHERE id = ? AND status IN ('queued', 'running') RETURNING id`,
        [id],
      );
      if (changed.length > 0) {
        // The run's worker hears of it at once (PostgreSQL), instead of at its next look.
        const notice: Notice = { kind: "cancel", runId: id };
        for (const statement of notices.statements([notice])) await query(statement.sql, statement.params);
        notices.committed([notice]);
      }
      return get(id);
    },

    get,
    listBySession: async (sessionId) =>
      (await query(`${select} WHERE session_id = ? ORDER BY created_at, id`, [sessionId])).map(fromRow),
    list: async (options = {}) => {
      const params: SqlValue[] = [];
      let where = "";
      if (options.status !== undefined) {
        where = "WHERE status = ? ";
        params.push(options.status);
      }
      let limit = "";
      if (options.limit !== undefined) {
        wholeAtLeast("list limit", options.limit, 1);
        limit = " LIMIT ?";
        params.push(options.limit);
      }
      return (await query(`${select} ${where}ORDER BY created_at, id${limit}`, params)).map(fromRow);
    },

    depth: async () => {
      const [row] = await query(
        `SELECT SUM(CASE WHEN status = 'queued' THEN 1 ELSE 0 END) AS queued,
                SUM(CASE WHEN status = 'running' THEN 1 ELSE 0 END) AS running,
                ${now} - MIN(CASE WHEN status = 'queued' THEN created_at END) AS oldest
         FROM run_requests WHERE status IN ('queued', 'running')`,
        [],
      );
      const oldest = nullable(row?.oldest);
      return {
        queued: Number(row?.queued ?? 0),
        running: Number(row?.running ?? 0),
        oldestQueuedAgeMs: oldest === null ? null : Math.max(0, Number(oldest)),
      };
    },

    subscribe: (listener, options) =>
      notices.subscribe((notice) => {
        if (notice.kind === "queue") listener({ kind: "queued" });
        if (notice.kind === "cancel") listener({ kind: "cancel_requested", runId: notice.runId });
      }, options),
  };
}
