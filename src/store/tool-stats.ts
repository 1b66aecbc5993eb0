// Per-tool statistics beyond the counters (schema 3): failures by error code in
// tool_failures, and a bounded window of durations in tool_durations for p50/p95.
//
// Percentiles: a ring of the last TOOL_DURATION_SAMPLES durations per (project, tool), kept
// as rows numbered by the call count (the row of call n replaces the row of call n − 200),
// so the percentiles are exact over recent calls and follow a tool that got slower, at a
// bounded cost (≤ 200 small rows per tool and project). Written with SQL both dialects
// accept; the percentiles are computed on read.
import type { Statement } from "./driver.js";
import type { SqlValue } from "./records.js";
import type { WriteOp } from "./types.js";

/** How many of a tool's latest durations (per project) p50/p95 are computed over. */
export const TOOL_DURATION_SAMPLES = 200;

/** The error code a failure recorded without one is counted under. */
export const UNKNOWN_ERROR_CODE = "unknown";

// max() differs between the dialects (SQLite's is scalar, PostgreSQL has GREATEST), so CASE.
const RECORD_TOOL_CALL = `INSERT INTO tool_stats
  (project_key, tool, calls, successes, failures, total_duration_ms, last_call_at) VALUES (?, ?, 1, ?, ?, ?, ?)
  ON CONFLICT (project_key, tool) DO UPDATE SET
    calls = tool_stats.calls + 1,
    successes = tool_stats.successes + excluded.successes,
    failures = tool_stats.failures + excluded.failures,
    total_duration_ms = tool_stats.total_duration_ms + excluded.total_duration_ms,
    last_call_at = CASE WHEN tool_stats.last_call_at IS NULL OR excluded.last_call_at > tool_stats.last_call_at
      THEN excluded.last_call_at ELSE tool_stats.last_call_at END`;

// The calls count just written (the row is locked by this transaction) numbers the sample.
const CALLS = "(SELECT calls FROM tool_stats WHERE project_key = ? AND tool = ?)";
const ADD_SAMPLE = `INSERT INTO tool_durations (project_key, tool, seq, duration_ms) VALUES (?, ?, ${CALLS}, ?)`;
const DROP_OLD_SAMPLES = `DELETE FROM tool_durations WHERE project_key = ? AND tool = ? AND seq <= ${CALLS} - ?`;
const COUNT_FAILURE = `INSERT INTO tool_failures (project_key, tool, code, failures) VALUES (?, ?, ?, 1)
  ON CONFLICT (project_key, tool, code) DO UPDATE SET failures = tool_failures.failures + 1`;

/** The statements of one recordToolCall, in order. */
export function recordToolCallStatements(op: Extract<WriteOp, { op: "recordToolCall" }>): Statement[] {
  // Durations come from performance.now() differences: whole milliseconds are enough.
  const durationMs = Math.max(0, Math.round(op.durationMs));
  const key: SqlValue[] = [op.projectKey, op.tool];
  const statements: Statement[] = [
    { sql: RECORD_TOOL_CALL, params: [...key, op.ok ? 1 : 0, op.ok ? 0 : 1, durationMs, op.at] },
    { sql: ADD_SAMPLE, params: [...key, ...key, durationMs] },
    { sql: DROP_OLD_SAMPLES, params: [...key, ...key, TOOL_DURATION_SAMPLES] },
  ];
  if (!op.ok) {
    const code = op.errorCode === undefined || op.errorCode === "" ? UNKNOWN_ERROR_CODE : op.errorCode;
    statements.push({ sql: COUNT_FAILURE, params: [...key, code] });
  }
  return statements;
}

/** The nearest-rank `p`th percentile (0 < p ≤ 100) of ascending `sorted`; null when empty. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? null;
}
