// How each record maps to a table row, shared by both backends: one description per table
// says which column holds which field and how it is encoded, so inserts, patches and reads
// of SQLite and PostgreSQL cannot drift apart.
import { ResonError } from "../core/errors.js";
import type {
  ArtifactRecord,
  CheckpointRecord,
  ExperienceRecord,
  MemoryItemRecord,
  MessageContext,
  SessionRecord,
  StepRecord,
  ToolStatsRecord,
  TraceRecord,
  TurnRecord,
} from "./types.js";

/** A value as bound to a statement: both drivers take these as they are (a Buffer is a BLOB, bytea). */
export type SqlValue = string | number | null | Buffer;
/** A row as the drivers return it: integers as numbers, JSON columns as their text. */
export type Row = Record<string, unknown>;

/**
 * text/int/json: required; "?" suffix: nullable. "envelope": a turn's MessageContext, kept
 * as `metadata.message_context` (seed 004) so more per-turn metadata can join it later.
 */
type Kind = "text" | "text?" | "int" | "int?" | "real" | "json" | "json?" | "envelope";

export interface Table<R> {
  name: string;
  /** Every field of the record: its column and kind. */
  fields: { readonly [K in keyof R]-?: readonly [column: string, kind: Kind] };
}

export const SESSIONS: Table<SessionRecord> = {
  name: "sessions",
  fields: {
    id: ["id", "text"],
    projectKey: ["project_key", "text"],
    workspace: ["workspace", "text"],
    title: ["title", "text"],
    status: ["status", "text"],
    settings: ["settings", "json"],
    usage: ["usage", "json"],
    lastTraceId: ["last_trace_id", "text?"],
    createdAt: ["created_at", "int"],
    updatedAt: ["updated_at", "int"],
  },
};

export const TURNS: Table<TurnRecord> = {
  name: "turns",
  fields: {
    id: ["id", "text"],
    sessionId: ["session_id", "text"],
    seq: ["seq", "int"],
    role: ["role", "text"],
    content: ["content", "json"],
    envelope: ["metadata", "envelope"],
    traceId: ["trace_id", "text?"],
    step: ["step", "int?"],
    createdAt: ["created_at", "int"],
  },
};

export const TRACES: Table<TraceRecord> = {
  name: "traces",
  fields: {
    id: ["id", "text"],
    sessionId: ["session_id", "text"],
    parentTraceId: ["parent_trace_id", "text?"],
    task: ["task", "text"],
    preset: ["preset", "text?"],
    provider: ["provider", "text"],
    model: ["model", "text"],
    baseUrl: ["base_url", "text?"],
    status: ["status", "text"],
    usage: ["usage", "json"],
    steps: ["steps", "int"],
    error: ["error", "json?"],
    startedAt: ["started_at", "int"],
    endedAt: ["ended_at", "int?"],
    updatedAt: ["updated_at", "int"],
  },
};

export const STEPS: Table<StepRecord> = {
  name: "steps",
  fields: {
    id: ["id", "text"],
    traceId: ["trace_id", "text"],
    parentId: ["parent_id", "text?"],
    seq: ["seq", "int"],
    kind: ["kind", "text"],
    status: ["status", "text"],
    data: ["data", "json"],
    createdAt: ["created_at", "int"],
    updatedAt: ["updated_at", "int"],
  },
};

export const CHECKPOINTS: Table<CheckpointRecord> = {
  name: "checkpoints",
  fields: {
    traceId: ["trace_id", "text"],
    step: ["step", "int"],
    state: ["state", "json"],
    updatedAt: ["updated_at", "int"],
  },
};

// Content is JSON text (a JSON string), not raw text: PostgreSQL's text cannot hold \u0000,
// which command output may contain, and this way both backends keep it exactly.
export const ARTIFACTS: Table<ArtifactRecord> = {
  name: "artifacts",
  fields: {
    id: ["id", "text"],
    traceId: ["trace_id", "text"],
    toolCallId: ["tool_call_id", "text"],
    name: ["name", "text"],
    content: ["content", "json"],
    chars: ["chars", "int"],
    createdAt: ["created_at", "int"],
  },
};

// Also text_hash (for the embedding cache) and forget_mark (see memory-plan.ts), written apart.
export const MEMORY_ITEMS: Table<MemoryItemRecord> = {
  name: "memory_items",
  fields: {
    id: ["id", "text"],
    projectKey: ["project_key", "text"],
    sessionId: ["session_id", "text?"],
    traceId: ["trace_id", "text?"],
    kind: ["kind", "text"],
    role: ["role", "text?"],
    text: ["text", "text"],
    provenance: ["provenance", "text"],
    createdAt: ["created_at", "int"],
  },
};

// Also terms (the text index's cut of condition, rule and keys), written apart by memory-plan.ts.
export const EXPERIENCES: Table<ExperienceRecord> = {
  name: "experiences",
  fields: {
    id: ["id", "text"],
    projectKey: ["project_key", "text?"],
    scope: ["scope", "text"],
    condition: ["condition", "text"],
    rule: ["rule", "text"],
    keys: ["keys", "json"],
    conditionFilter: ["condition_filter", "json?"],
    evidence: ["evidence", "json"],
    confidence: ["confidence", "real"],
    usageCount: ["usage_count", "int"],
    successCount: ["success_count", "int"],
    failureCount: ["failure_count", "int"],
    holdoutSuccessCount: ["holdout_success_count", "int"],
    holdoutFailureCount: ["holdout_failure_count", "int"],
    votes: ["votes", "int"],
    provenance: ["provenance", "text"],
    status: ["status", "text"],
    createdAt: ["created_at", "int"],
    updatedAt: ["updated_at", "int"],
    lastUsedAt: ["last_used_at", "int?"],
  },
};

/** The counters of a tool_stats row; codes and percentiles come from their own tables. */
export type ToolStatsCounters = Omit<ToolStatsRecord, "failuresByCode" | "p50Ms" | "p95Ms">;

export const TOOL_STATS: Table<ToolStatsCounters> = {
  name: "tool_stats",
  fields: {
    projectKey: ["project_key", "text"],
    tool: ["tool", "text"],
    calls: ["calls", "int"],
    successes: ["successes", "int"],
    failures: ["failures", "int"],
    totalDurationMs: ["total_duration_ms", "int"],
    lastCallAt: ["last_call_at", "int?"],
  },
};

/** The table's columns, comma-separated, in field order (no `SELECT *`: see postgres-driver). */
export function columnList<R>(table: Table<R>): string {
  return Object.values<readonly [string, Kind]>(table.fields)
    .map(([column]) => column)
    .join(", ");
}

function invalid(what: string, why: string): ResonError {
  return new ResonError("internal_error", `${what}: ${why}`, {
    hint: "This is a bug in the caller of the store: the record does not match its type.",
  });
}

/** JSON text of a value; `undefined` is stored as null (JSON has no undefined). */
export function toJson(value: unknown, what: string): string {
  if (value === undefined) return "null";
  try {
    return JSON.stringify(value);
  } catch (error) {
    throw invalid(what, `not JSON-serialisable (${error instanceof Error ? error.message : String(error)})`);
  }
}

function encode(value: unknown, kind: Kind, what: string): SqlValue {
  switch (kind) {
    case "text":
    case "text?":
      if (value === null || value === undefined) {
        if (kind === "text?") return null;
        throw invalid(what, "is required");
      }
      if (typeof value !== "string") throw invalid(what, `must be a string, got ${typeof value}`);
      return value;
    case "int":
    case "int?":
      if (value === null || value === undefined) {
        if (kind === "int?") return null;
        throw invalid(what, "is required");
      }
      if (typeof value !== "number" || !Number.isSafeInteger(value)) {
        throw invalid(what, `must be a whole number, got ${String(value)}`);
      }
      return value;
    case "real":
      if (typeof value !== "number" || !Number.isFinite(value)) {
        throw invalid(what, `must be a finite number, got ${String(value)}`);
      }
      return value;
    case "json":
      return toJson(value, what);
    case "json?":
      return value === null || value === undefined ? null : toJson(value, what);
    case "envelope":
      return value === null || value === undefined ? null : toJson({ message_context: value }, what);
  }
}

function decode(raw: unknown, kind: Kind, what: string): unknown {
  if (raw === null || raw === undefined) {
    if (kind === "text?" || kind === "int?" || kind === "json?" || kind === "envelope") return null;
    throw invalid(what, "is missing in the database");
  }
  switch (kind) {
    case "text":
    case "text?":
      return String(raw);
    case "int":
    case "int?":
    case "real":
      return typeof raw === "number" ? raw : Number(raw);
    case "json":
    case "json?":
      return JSON.parse(String(raw));
    case "envelope": {
      const metadata: unknown = JSON.parse(String(raw));
      if (typeof metadata !== "object" || metadata === null) return null;
      return ("message_context" in metadata ? metadata.message_context : null) as MessageContext | null;
    }
  }
}

/** Columns and values of a whole record, for an INSERT. */
export function toRow<R>(table: Table<R>, record: R): { columns: string[]; values: SqlValue[] } {
  const columns: string[] = [];
  const values: SqlValue[] = [];
  for (const field of Object.keys(table.fields) as (keyof R & string)[]) {
    const [column, kind] = table.fields[field];
    columns.push(column);
    values.push(encode(record[field], kind, `${table.name}.${field}`));
  }
  return { columns, values };
}

/**
 * Columns and values of the fields a patch sets, for an UPDATE. Only `allowed` fields count
 * (a patch cannot move a record to another key); fields set to undefined are left alone.
 */
export function patchToColumns<R, K extends keyof R & string>(
  table: Table<R>,
  patch: Partial<Pick<R, K>>,
  allowed: readonly K[],
): { columns: string[]; values: SqlValue[] } {
  const columns: string[] = [];
  const values: SqlValue[] = [];
  for (const field of allowed) {
    if (!(field in patch) || patch[field] === undefined) continue;
    const [column, kind] = table.fields[field];
    columns.push(column);
    values.push(encode(patch[field], kind, `${table.name}.${field}`));
  }
  return { columns, values };
}

/** A record from a row selected with `columnList(table)`. */
export function fromRow<R>(table: Table<R>, row: Row): R {
  const record: Record<string, unknown> = {};
  for (const field of Object.keys(table.fields) as (keyof R & string)[]) {
    const [column, kind] = table.fields[field];
    record[field] = decode(row[column], kind, `${table.name}.${field}`);
  }
  return record as R;
}
