// What `Store.gc(before)` deletes, as statements for one transaction on either backend, and the
// counts `gcPreview` takes of the same rows: old finished runs with everything of theirs, sessions
// left empty, done queue requests, old idempotency answers, settled channel messages, and the
// small channel and lease records nothing needs any more.
import type { Statement } from "./driver.js";
import type { GcReport } from "./types.js";

/**
 * A settled channel message is kept at least this long, whatever the cutoff: its row is what
 * makes a redelivery of it a no-op (`ChannelRepository.receive` inserts once per dedupe key), so
 * it must outlive every redelivery. Slack retries an event for about five minutes; Telegram's
 * offset (kept in channel_state, never deleted) already stops an acknowledged update, and an
 * unacknowledged one is held 24 hours at most; a webhook sender retries on its own schedule,
 * which a day covers too.
 */
export const CHANNEL_DEDUPE_WINDOW_MS = 86_400_000;

/** The two cutoffs of one gc: runs and the rest; channel messages (never later than now - window). */
export interface GcCutoffs {
  before: number;
  messagesBefore: number;
}

export function gcCutoffs(before: number, now: number): GcCutoffs {
  return { before, messagesBefore: Math.min(before, now - CHANNEL_DEDUPE_WINDOW_MS) };
}

// A trace gc may delete: it ended before the cutoff and is not running (a crashed run stays
// "running" until it is resumed or marked, and must never lose its steps).
const OLD_TRACES =
  "SELECT id FROM traces WHERE ended_at IS NOT NULL AND ended_at < ? AND status <> 'running'";
// A session gc may delete: no trace left and not touched since the cutoff.
const EMPTY_SESSIONS =
  "SELECT id FROM sessions WHERE updated_at < ? AND NOT EXISTS (SELECT 1 FROM traces WHERE traces.session_id = sessions.id)";

// The sub-agent traces among them: their turns go with them.
const OLD_CHILD_TRACES = `${OLD_TRACES} AND parent_trace_id IS NOT NULL`;
// The sessions gc leaves empty (and so deletes): not touched since the cutoff, no trace kept.
const EMPTIED_SESSIONS = `SELECT id FROM sessions WHERE updated_at < ? AND NOT EXISTS
  (SELECT 1 FROM traces t WHERE t.session_id = sessions.id AND t.id NOT IN (${OLD_TRACES}))`;

// A channel message gc may delete: settled (its answer went out, a refusal or pairing code
// included, or there was nothing to do) before the cutoff, and its run, if any, is not waiting or
// working (a message answered while its run still runs, or a crashed run left "running", stays).
// Messages received, queued, or with an answer waiting or being sent are never touched.
const SETTLED_MESSAGES = `WHERE status IN ('answered', 'ignored') AND updated_at < ?
  AND (run_id IS NULL OR (
    NOT EXISTS (SELECT 1 FROM run_requests q WHERE q.id = channel_inbound.run_id AND q.status IN ('queued', 'running'))
    AND NOT EXISTS (SELECT 1 FROM traces t WHERE t.id = channel_inbound.run_id AND t.status = 'running')))`;

/** What gc deletes would be counted as, the way it deletes (`reson gc --dry-run`). */
export function gcCounts({ before, messagesBefore }: GcCutoffs): Record<keyof GcReport, Statement> {
  const count = (sql: string, times: number): Statement => ({
    sql,
    params: Array.from({ length: times }, () => before),
  });
  return {
    traces: count(`SELECT count(*) AS n FROM traces WHERE id IN (${OLD_TRACES})`, 1),
    steps: count(`SELECT count(*) AS n FROM steps WHERE trace_id IN (${OLD_TRACES})`, 1),
    checkpoints: count(`SELECT count(*) AS n FROM checkpoints WHERE trace_id IN (${OLD_TRACES})`, 1),
    artifacts: count(`SELECT count(*) AS n FROM artifacts WHERE trace_id IN (${OLD_TRACES})`, 1),
    sessions: count(`SELECT count(*) AS n FROM sessions WHERE id IN (${EMPTIED_SESSIONS})`, 2),
    // A sub-agent's turns, and then every turn of a session left empty (counted once).
    turns: count(
      `SELECT count(*) AS n FROM turns WHERE trace_id IN (${OLD_CHILD_TRACES})
      OR (session_id IN (${EMPTIED_SESSIONS}) AND (trace_id IS NULL OR trace_id NOT IN (${OLD_CHILD_TRACES})))`,
      4,
    ),
    channelMessages: {
      sql: `SELECT count(*) AS n FROM channel_inbound ${SETTLED_MESSAGES}`,
      params: [messagesBefore],
    },
  };
}

/** The statements of one gc, each with the part of the report its changed rows count for. */
export function gcStatements({ before, messagesBefore }: GcCutoffs): {
  statements: Statement[];
  counts: (keyof GcReport | "subagentTurns" | undefined)[];
} {
  const plan: [keyof GcReport | "subagentTurns" | undefined, Statement][] = [
    // A run's events and prompts go with its trace.
    [undefined, { sql: `DELETE FROM run_events WHERE trace_id IN (${OLD_TRACES})`, params: [before] }],
    [
      undefined,
      {
        sql: `DELETE FROM run_prompt_uses WHERE prompt_id IN (SELECT id FROM run_prompts WHERE trace_id IN (${OLD_TRACES}))`,
        params: [before],
      },
    ],
    [undefined, { sql: `DELETE FROM run_prompts WHERE trace_id IN (${OLD_TRACES})`, params: [before] }],
    // A sub-agent's turns are no part of its session's conversation: they go with its trace.
    ["subagentTurns", { sql: `DELETE FROM turns WHERE trace_id IN (${OLD_CHILD_TRACES})`, params: [before] }],
    ["artifacts", { sql: `DELETE FROM artifacts WHERE trace_id IN (${OLD_TRACES})`, params: [before] }],
    ["steps", { sql: `DELETE FROM steps WHERE trace_id IN (${OLD_TRACES})`, params: [before] }],
    ["checkpoints", { sql: `DELETE FROM checkpoints WHERE trace_id IN (${OLD_TRACES})`, params: [before] }],
    ["traces", { sql: `DELETE FROM traces WHERE id IN (${OLD_TRACES})`, params: [before] }],
    // A session whose newest trace went points at the newest one left (or none).
    [
      undefined,
      {
        sql: `UPDATE sessions SET last_trace_id = (SELECT t.id FROM traces t WHERE t.session_id = sessions.id
          ORDER BY t.started_at DESC, t.id DESC LIMIT 1)
        WHERE last_trace_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM traces t WHERE t.id = sessions.last_trace_id)`,
        params: [],
      },
    ],
    ["turns", { sql: `DELETE FROM turns WHERE session_id IN (${EMPTY_SESSIONS})`, params: [before] }],
    ["sessions", { sql: `DELETE FROM sessions WHERE id IN (${EMPTY_SESSIONS})`, params: [before] }],
    // Queue requests done before the cutoff; answers kept for idempotency keys older than it.
    [
      undefined,
      {
        sql: `DELETE FROM run_requests WHERE status IN ('completed', 'failed', 'cancelled') AND updated_at < ?`,
        params: [before],
      },
    ],
    [undefined, { sql: "DELETE FROM idempotency_keys WHERE created_at < ?", params: [before] }],
    // Settled channel messages, kept for the dedupe window (CHANNEL_DEDUPE_WINDOW_MS).
    ["channelMessages", { sql: `DELETE FROM channel_inbound ${SETTLED_MESSAGES}`, params: [messagesBefore] }],
    // Channel state that can no longer matter: how far the sending of an answer got, once the
    // message is no longer being answered (or is gone); which chat a prompt was offered in and
    // the press on it, once the prompt is gone with its run, or was settled before the cutoff.
    [
      undefined,
      {
        sql: `DELETE FROM channel_state WHERE substr(key, 1, 5) = 'send:' AND NOT EXISTS
        (SELECT 1 FROM channel_inbound i WHERE i.id = substr(channel_state.key, 6) AND i.status IN ('reply', 'sending'))`,
        params: [],
      },
    ],
    [
      undefined,
      {
        sql: `DELETE FROM channel_state WHERE (substr(key, 1, 7) = 'prompt:' OR substr(key, 1, 6) = 'press:')
        AND NOT EXISTS (SELECT 1 FROM run_prompts p
          WHERE p.id = CASE WHEN substr(channel_state.key, 1, 7) = 'prompt:' THEN substr(channel_state.key, 8) ELSE substr(channel_state.key, 7) END
          AND (p.created_at >= ? OR (p.status = 'pending' AND (p.expires_at IS NULL OR p.expires_at >= ?))))`,
        params: [before, before],
      },
    ],
    // Pairing codes that expired before the cutoff and were never approved nor denied: the
    // stranger gets a new code by writing again, and nothing can approve an old one.
    [
      undefined,
      { sql: "DELETE FROM channel_pairings WHERE status = 'pending' AND expires_at < ?", params: [before] },
    ],
    // What a stranger was last told about pairing (channel-side, "pairing-told:<sender>"), once
    // they hold no code that is still pending at the cutoff: it only spaces out repeats of a code.
    [
      undefined,
      {
        sql: `DELETE FROM channel_state WHERE substr(key, 1, 13) = 'pairing-told:' AND NOT EXISTS
        (SELECT 1 FROM channel_pairings p WHERE p.channel = channel_state.channel
          AND p.sender_id = substr(channel_state.key, 14) AND p.status = 'pending' AND p.expires_at >= ?)`,
        params: [before],
      },
    ],
    // The leases of runs gone (or never stored: their process died before the first commit). A
    // request still in the queue keeps its lease row: its epoch must never start again at 1.
    [
      undefined,
      {
        sql: `DELETE FROM run_leases WHERE (released_at IS NOT NULL OR expires_at < ?)
        AND NOT EXISTS (SELECT 1 FROM traces t WHERE t.id = run_leases.trace_id)
        AND NOT EXISTS (SELECT 1 FROM run_requests q WHERE q.id = run_leases.trace_id)`,
        params: [before],
      },
    ],
  ];
  return { statements: plan.map(([, statement]) => statement), counts: plan.map(([count]) => count) };
}

/** The report of a gc from the rows each of its statements changed. */
export function gcReport(
  counts: readonly (keyof GcReport | "subagentTurns" | undefined)[],
  changed: readonly number[],
): GcReport {
  const report: GcReport = {
    sessions: 0,
    traces: 0,
    steps: 0,
    checkpoints: 0,
    artifacts: 0,
    turns: 0,
    channelMessages: 0,
  };
  for (const [index, key] of counts.entries()) {
    if (key === undefined) continue;
    report[key === "subagentTurns" ? "turns" : key] += changed[index] ?? 0;
  }
  return report;
}
