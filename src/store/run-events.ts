// Each run's committed events, numbered 1, 2, 3… per run: the source of truth of the SSE stream,
// so a client rejoining with Last-Event-ID reads every later event from here, hours later.
// Appends go through `apply` (fenced with the run's other writes) and refuse any gap or reuse.
import { ResonError } from "../core/errors.js";
import type { NoticeTransport, Statement } from "./driver.js";
import { liveTextRelay } from "./live-text.js";
import type { Notice, Notices } from "./notices.js";
import { type Row, type SqlValue, toJson } from "./records.js";
import type { RunEventRecord, RunEventRepository, RunWriteOp } from "./types.js";

type AppendEvents = Extract<RunWriteOp, { op: "appendEvents" }>;

const COLUMNS = "trace_id, seq, type, step, ts, data";

function fromRow(row: Row): RunEventRecord {
  return {
    traceId: String(row.trace_id),
    seq: Number(row.seq),
    type: String(row.type),
    step: Number(row.step),
    ts: Number(row.ts),
    data: JSON.parse(String(row.data)),
  };
}

function conflict(op: AppendEvents, why: string): ResonError {
  return new ResonError("store_conflict", `Events of run ${op.traceId} were refused: ${why}.`, {
    hint: "Nothing of this batch was stored. Read the run's last seq (store.events.lastSeq) and number the events from the next one.",
    details: { traceId: op.traceId, firstSeq: op.events[0]?.seq },
  });
}

/**
 * The statements of an append. Seqs of a run are gap-free from 1 by induction: the primary key
 * refuses a seq taken (also by a racing append, once it commits), and an append after seq 1
 * needs its predecessor stored (a statement that must find it), so nothing can leave a hole.
 */
export function appendEventsStatements(op: AppendEvents): Statement[] {
  const [first] = op.events;
  if (!first) return [];
  op.events.forEach((event, i) => {
    if (!Number.isSafeInteger(event.seq) || event.seq !== first.seq + i) {
      throw conflict(op, `their seqs must be contiguous, and event ${i + 1} has seq ${event.seq}`);
    }
    if (!Number.isSafeInteger(event.step) || !Number.isSafeInteger(event.ts)) {
      throw new ResonError(
        "internal_error",
        `Event ${event.seq} of run ${op.traceId} has a step or ts that is not a whole number.`,
        { hint: "This is a bug in the caller of the store: the record does not match its type." },
      );
    }
  });
  if (first.seq < 1) throw conflict(op, `seqs start at 1, not ${first.seq}`);
  const predecessor: Statement[] =
    first.seq === 1
      ? []
      : [
          {
            sql: "UPDATE run_events SET seq = seq WHERE trace_id = ? AND seq = ?",
            params: [op.traceId, first.seq - 1],
            mustChangeOne: true,
          },
        ];
  return [
    ...predecessor,
    ...op.events.map((event) => ({
      sql: `INSERT INTO run_events (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`,
      params: [
        op.traceId,
        event.seq,
        event.type,
        event.step,
        event.ts,
        toJson(event.data, "run_events.data"),
      ],
    })),
  ];
}

/** The error of an append that was refused by the database: a gap or a seq already taken. */
export function appendEventsError(op: AppendEvents, cause: unknown): ResonError {
  const error = conflict(op, `the first must be the stored last seq + 1 (${op.events[0]?.seq} is not)`);
  return new ResonError(error.code, error.message, { hint: error.hint, details: error.details, cause });
}

/** What listeners hear once the append has committed. */
export function appendEventsNotice(op: AppendEvents): Notice | undefined {
  const last = op.events.at(-1);
  return last ? { kind: "events", traceId: op.traceId, lastSeq: last.seq } : undefined;
}

export function runEventRepository(context: {
  query: (sql: string, params: SqlValue[]) => Promise<Row[]>;
  notices: Notices;
  /** The live text's own channel, where the backend has one. */
  liveText: NoticeTransport | undefined;
}): RunEventRepository {
  const { query, notices } = context;
  return {
    ...liveTextRelay({ query, transport: context.liveText }),
    list: async (traceId, options = {}) => {
      const params: SqlValue[] = [traceId, options.after ?? 0];
      let limit = "";
      if (options.limit !== undefined) {
        limit = " LIMIT ?";
        params.push(options.limit);
      }
      const rows = await query(
        `SELECT ${COLUMNS} FROM run_events WHERE trace_id = ? AND seq > ? ORDER BY seq${limit}`,
        params,
      );
      return rows.map(fromRow);
    },
    lastSeq: async (traceId) => {
      const rows = await query("SELECT MAX(seq) AS last FROM run_events WHERE trace_id = ?", [traceId]);
      const last = rows[0]?.last;
      return last === null || last === undefined ? 0 : Number(last);
    },
    subscribe: (listener, options) =>
      notices.subscribe((notice) => {
        if (notice.kind === "events") listener(notice.traceId, notice.lastSeq);
      }, options),
  };
}
