// Turns the operations of a batch into SQL statements (one per operation), and a failed
// statement back into an error that names the operation and the record.
import { ResonError } from "../core/errors.js";
import type { FailureReason, Statement } from "./driver.js";
import type { Kind } from "./lease.js";
import { memorySubject, type PlanContext, planMemoryWrite } from "./memory-plan.js";
import {
  ARTIFACTS,
  CHECKPOINTS,
  patchToColumns,
  SESSIONS,
  STEPS,
  type Table,
  TRACES,
  TURNS,
  toRow,
} from "./records.js";
import { appendEventsError, appendEventsStatements } from "./run-events.js";
import { openPromptStatement } from "./run-prompts.js";
import { recordToolCallStatements } from "./tool-stats.js";
import type {
  ArtifactRecord,
  MemoryWriteOp,
  RunWriteOp,
  SessionRecord,
  TraceRecord,
  WriteOp,
} from "./types.js";

type Patchable<R, Fixed extends keyof R> = Exclude<keyof R & string, Fixed>;

const SESSION_PATCH: readonly Patchable<SessionRecord, "id" | "projectKey" | "createdAt">[] = [
  "workspace",
  "title",
  "status",
  "settings",
  "usage",
  "lastTraceId",
  "updatedAt",
];
const TRACE_PATCH: readonly Patchable<TraceRecord, "id" | "sessionId" | "startedAt">[] = [
  "parentTraceId",
  "task",
  "preset",
  "provider",
  "model",
  "baseUrl",
  "status",
  "usage",
  "steps",
  "error",
  "endedAt",
  "updatedAt",
];
const STEP_PATCH: readonly ("status" | "data" | "updatedAt")[] = ["status", "data", "updatedAt"];

function insert<R>(table: Table<R>, record: R): Statement {
  const { columns, values } = toRow(table, record);
  return {
    sql: `INSERT INTO ${table.name} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
    params: values,
  };
}

/** An UPDATE of the patched fields; undefined when the patch sets nothing. */
function update<R, K extends keyof R & string>(
  table: Table<R>,
  key: string,
  id: string,
  patch: Partial<Pick<R, K>>,
  allowed: readonly K[],
): Statement | undefined {
  const { columns, values } = patchToColumns(table, patch, allowed);
  if (columns.length === 0) return undefined;
  return {
    sql: `UPDATE ${table.name} SET ${columns.map((c) => `${c} = ?`).join(", ")} WHERE ${key} = ?`,
    params: [...values, id],
    mustChangeOne: true,
  };
}

const ARTIFACT_UPDATES = ["trace_id", "tool_call_id", "name", "content", "chars", "created_at"]
  .map((column) => `${column} = excluded.${column}`)
  .join(", ");

/** An upsert of the artifact; its content must be a string and `chars` its length. */
function putArtifact(artifact: ArtifactRecord): Statement {
  if (typeof artifact.content !== "string" || artifact.chars !== artifact.content.length) {
    throw new ResonError(
      "internal_error",
      "artifacts.content must be a string of artifacts.chars characters.",
      {
        hint: "This is a bug in the caller of the store: the record does not match its type.",
      },
    );
  }
  const { sql, params } = insert(ARTIFACTS, artifact);
  return { sql: `${sql} ON CONFLICT (id) DO UPDATE SET ${ARTIFACT_UPDATES}`, params };
}

const PUT_CHECKPOINT = `INSERT INTO checkpoints (trace_id, step, state, updated_at) VALUES (?, ?, ?, ?)
  ON CONFLICT (trace_id) DO UPDATE SET step = excluded.step, state = excluded.state, updated_at = excluded.updated_at`;

type CoreWriteOp = Exclude<WriteOp, MemoryWriteOp | RunWriteOp>;

export function isRunWrite(op: WriteOp): op is RunWriteOp {
  return op.op === "appendEvents" || op.op === "openPrompt";
}

const MEMORY_OPS: ReadonlySet<string> = new Set<MemoryWriteOp["op"]>([
  "appendMemory",
  "putEmbedding",
  "cacheEmbedding",
  "setIndexIdentity",
  "insertExperience",
  "updateExperience",
  "voteExperience",
  "recordExperienceUse",
  "recordOutcome",
]);

export function isMemoryWrite(op: WriteOp): op is MemoryWriteOp {
  return MEMORY_OPS.has(op.op);
}

/** The statements that carry out one operation; none for an empty patch (nothing to do). */
export function planWrite(op: WriteOp, context: PlanContext & { kind: Kind }): Statement[] {
  if (isMemoryWrite(op)) return planMemoryWrite(op, context);
  if (op.op === "appendEvents") return appendEventsStatements(op);
  if (op.op === "openPrompt") return [openPromptStatement(context.kind, op.prompt)];
  if (op.op === "recordToolCall") return recordToolCallStatements(op);
  const statement = planOne(op);
  return statement ? [statement] : [];
}

function planOne(op: Exclude<CoreWriteOp, { op: "recordToolCall" }>): Statement | undefined {
  switch (op.op) {
    case "insertSession":
      return insert(SESSIONS, op.session);
    case "updateSession":
      return update(SESSIONS, "id", op.id, op.patch, SESSION_PATCH);
    case "appendTurn":
      return insert(TURNS, op.turn);
    case "insertTrace":
      return insert(TRACES, op.trace);
    case "updateTrace":
      return update(TRACES, "id", op.id, op.patch, TRACE_PATCH);
    case "insertStep":
      return insert(STEPS, op.step);
    case "updateStep":
      return update(STEPS, "id", op.id, op.patch, STEP_PATCH);
    case "putCheckpoint": {
      const { values } = toRow(CHECKPOINTS, op.checkpoint);
      return { sql: PUT_CHECKPOINT, params: values };
    }
    case "putArtifact":
      return putArtifact(op.artifact);
  }
}

/** What the operation was about, in words, for an error message. */
function subject(op: Exclude<WriteOp, { op: "appendEvents" }>, reason: FailureReason): string {
  if (isMemoryWrite(op)) return memorySubject(op, reason === "duplicate");
  switch (op.op) {
    case "insertSession":
      return reason === "duplicate" ? `session ${op.session.id} already exists` : `session ${op.session.id}`;
    case "updateSession":
      return `no session ${op.id}`;
    case "appendTurn":
      if (reason === "duplicate")
        return `turn ${op.turn.seq} of session ${op.turn.sessionId} is already stored`;
      return `session ${op.turn.sessionId} does not exist`;
    case "insertTrace":
      if (reason === "duplicate") return `trace ${op.trace.id} already exists`;
      return op.trace.parentTraceId
        ? `session ${op.trace.sessionId} or parent trace ${op.trace.parentTraceId} does not exist`
        : `session ${op.trace.sessionId} does not exist`;
    case "updateTrace":
      return `no trace ${op.id}`;
    case "insertStep":
      if (reason === "duplicate") return `step ${op.step.id} already exists`;
      return `trace ${op.step.traceId} does not exist`;
    case "updateStep":
      return `no step ${op.id}`;
    case "putCheckpoint":
      return `trace ${op.checkpoint.traceId} does not exist`;
    case "putArtifact":
      return `trace ${op.artifact.traceId} does not exist`;
    case "recordToolCall":
      return `tool ${op.tool}`;
    case "openPrompt":
      return `prompt ${op.prompt.id} already exists`;
  }
}

/** The error of a batch whose operation `index` failed; nothing of the batch was stored. */
export function batchError(
  ops: readonly WriteOp[],
  index: number,
  reason: FailureReason,
  cause: unknown,
): ResonError {
  const op = ops[index];
  const hint = "Nothing of this batch was stored.";
  if (!op) return new ResonError("store_unavailable", "The store refused a batch.", { hint, cause });
  // A gap or a seq taken: the one failure an append has (its run's writer must read the last seq).
  if (op.op === "appendEvents") return appendEventsError(op, cause);
  const where = `${op.op} (operation ${index + 1} of ${ops.length})`;
  const details = { op: op.op, index };
  if (reason === "duplicate") {
    return new ResonError("store_conflict", `${where} was refused: ${subject(op, reason)}.`, {
      hint,
      details,
      cause,
    });
  }
  if (reason === "missing_reference" || reason === "missing_row") {
    return new ResonError("not_found", `${where} was refused: ${subject(op, reason)}.`, {
      hint,
      details,
      cause,
    });
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return new ResonError("store_unavailable", `${where} failed: ${message}`, { hint, details, cause });
}
