// Approvals and questions a run waits on, answered by another process (over HTTP): the run opens
// a prompt with its writes, the answer is a compare-and-swap from "pending" (of racing answers
// one wins), and expiry is by the database's clock so every process agrees on it.
import { ResonError } from "../core/errors.js";
import type { Statement } from "./driver.js";
import { type Kind, NOW_MS } from "./lease.js";
import type { Notice, Notices } from "./notices.js";
import { type Row, type SqlValue, toJson } from "./records.js";
import type {
  ApplyOptions,
  RunPromptInput,
  RunPromptKind,
  RunPromptRecord,
  RunPromptRepository,
  RunPromptStatus,
  WriteOp,
} from "./types.js";

const KINDS: readonly RunPromptKind[] = ["permission", "question"];

function columns(kind: Kind): string {
  const now = NOW_MS[kind];
  // A pending prompt whose time ran out reads as expired before anyone marks it.
  return `id, trace_id, kind, payload, answer, created_at, answered_at, expires_at, used_at,
    CASE WHEN status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ${now} THEN 'expired' ELSE status END AS status`;
}

/** The prompts with when their answer was acted on (run_prompt_uses' names are all its own). */
const PROMPTS = "run_prompts LEFT JOIN run_prompt_uses ON prompt_id = id";

function fromRow(row: Row): RunPromptRecord {
  return {
    id: String(row.id),
    traceId: String(row.trace_id),
    kind: String(row.kind) as RunPromptKind,
    payload: JSON.parse(String(row.payload)),
    status: String(row.status) as RunPromptStatus,
    answer: row.answer === null || row.answer === undefined ? null : JSON.parse(String(row.answer)),
    createdAt: Number(row.created_at),
    answeredAt: row.answered_at === null || row.answered_at === undefined ? null : Number(row.answered_at),
    expiresAt: row.expires_at === null || row.expires_at === undefined ? null : Number(row.expires_at),
    usedAt: row.used_at === null || row.used_at === undefined ? null : Number(row.used_at),
  };
}

/** The insert of a new pending prompt; times by the database's clock. */
export function openPromptStatement(kind: Kind, prompt: RunPromptInput): Statement {
  if (!KINDS.includes(prompt.kind)) {
    throw new ResonError(
      "internal_error",
      `A prompt's kind is permission or question, not ${String(prompt.kind)}.`,
      {
        hint: "This is a bug in the caller of the store: the record does not match its type.",
      },
    );
  }
  const timeout = prompt.timeoutMs;
  if (timeout !== null && (!Number.isSafeInteger(timeout) || timeout < 0)) {
    throw new ResonError(
      "usage_error",
      `A prompt's timeoutMs must be a whole number ≥ 0 or null, not ${timeout}.`,
    );
  }
  const now = NOW_MS[kind];
  return {
    sql: `INSERT INTO run_prompts (id, trace_id, kind, payload, status, answer, created_at, answered_at, expires_at)
      VALUES (?, ?, ?, ?, 'pending', NULL, ${now}, NULL, CASE WHEN ? < 0 THEN NULL ELSE ${now} + ? END)`,
    params: [
      prompt.id,
      prompt.traceId,
      prompt.kind,
      toJson(prompt.payload, "run_prompts.payload"),
      timeout ?? -1,
      timeout ?? 0,
    ],
  };
}

export function runPromptRepository(context: {
  kind: Kind;
  query: (sql: string, params: SqlValue[]) => Promise<Row[]>;
  apply: (ops: readonly WriteOp[], options?: ApplyOptions) => Promise<void>;
  notices: Notices;
}): RunPromptRepository {
  const { kind, query, notices } = context;
  const now = NOW_MS[kind];
  const select = `SELECT ${columns(kind)} FROM ${PROMPTS}`;
  const get = async (id: string) => {
    const rows = await query(`${select} WHERE id = ?`, [id]);
    return rows[0] ? fromRow(rows[0]) : undefined;
  };

  /**
   * Moves a pending prompt on in one statement (of racing ones, one changes it); then tells the
   * listeners. The wake-up follows the commit: one lost to a crash in between only leaves the
   * waiting run to its next poll of `get`.
   */
  const settle = async (sql: string, params: SqlValue[]): Promise<boolean> => {
    const [row] = await query(sql, params);
    if (!row) return false;
    const notice: Notice = { kind: "prompt", traceId: String(row.trace_id), promptId: String(row.id) };
    for (const statement of notices.statements([notice])) await query(statement.sql, statement.params);
    notices.committed([notice]);
    return true;
  };
  const stillPending = `status = 'pending' AND (expires_at IS NULL OR expires_at > ${now})`;

  return {
    open: async (prompt, options = {}) => {
      await context.apply([{ op: "openPrompt", prompt }], options);
      const opened = await get(prompt.id);
      if (!opened)
        throw new ResonError("not_found", `Prompt ${prompt.id} was opened but cannot be read back.`);
      return opened;
    },
    answer: async (id, answer) => {
      const answered = await settle(
        `UPDATE run_prompts SET status = 'answered', answer = ?, answered_at = ${now}
         WHERE id = ? AND ${stillPending} RETURNING id, trace_id`,
        [toJson(answer, "run_prompts.answer"), id],
      );
      if (answered) return "answered";
      const prompt = await get(id);
      if (!prompt) return "not_found";
      return prompt.status === "answered" ? "already_answered" : "expired";
    },
    get,
    listPending: async (traceId) => {
      const where = traceId === undefined ? "" : " AND trace_id = ?";
      const rows = await query(
        `${select} WHERE ${stillPending}${where} ORDER BY created_at, id`,
        traceId === undefined ? [] : [traceId],
      );
      return rows.map(fromRow);
    },
    listOfRun: async (traceId) =>
      (await query(`${select} WHERE trace_id = ? ORDER BY created_at, id`, [traceId])).map(fromRow),
    use: async (id) =>
      (
        await query(
          `INSERT INTO run_prompt_uses (prompt_id, used_at) SELECT id, ${now} FROM run_prompts WHERE id = ?
           ON CONFLICT (prompt_id) DO NOTHING RETURNING prompt_id`,
          [id],
        )
      ).length === 1,
    expire: (id) =>
      settle(
        `UPDATE run_prompts SET status = 'expired', answered_at = NULL WHERE id = ? AND status = 'pending'
         RETURNING id, trace_id`,
        [id],
      ),
    subscribe: (listener, options) =>
      notices.subscribe((notice) => {
        if (notice.kind === "prompt") listener(notice.traceId, notice.promptId);
      }, options),
  };
}
