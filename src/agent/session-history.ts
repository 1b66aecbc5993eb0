// A session's history as its next run sees it, and /compact: the oldest turns of a session
// replaced by a summary for later runs (the turns themselves stay in the store).
import {
  applyCompaction,
  type HistoryEntry,
  RequestEstimator,
  SUMMARY_SYSTEM_PROMPT,
  summaryRequestText,
  transcriptOf,
  turnsToHistory,
} from "../context/index.js";
import { ResonError } from "../core/errors.js";
import { addUsage } from "../core/usage.js";
import type { Provider } from "../providers/index.js";
import type { SessionRecord, Store, TurnRecord } from "../store/index.js";
import { closeOpenToolCalls, conversationTurns } from "./resume.js";

export interface SessionCompaction {
  turns: number;
  summaryChars: number;
  beforeTokens: number;
  afterTokens: number;
}

/** The turns no rewind took out (reson rewind without --files-only). */
function keptTurns(turns: TurnRecord[], session: SessionRecord): TurnRecord[] {
  const rewound = session.settings.rewound ?? [];
  if (rewound.length === 0) return turns;
  return turns.filter(
    (turn) => !rewound.some((range) => turn.seq >= range.fromSeq && turn.seq < range.toSeq),
  );
}

/** A session's turns as the next run sees them: after a /compact, the summary and what followed. */
export async function sessionHistory(store: Store, session: SessionRecord): Promise<HistoryEntry[]> {
  const turns = keptTurns((await conversationTurns(store, session.id)).conversation, session);
  const compaction = session.settings.compaction;
  if (!compaction) return closeOpenToolCalls(turnsToHistory(turns));
  // The compacted turns are read too, for the skills loaded there: they stay beside the summary.
  const compacted = turnsToHistory(turns.filter((t) => t.seq < compaction.upToSeq));
  const kept = closeOpenToolCalls(turnsToHistory(turns.filter((t) => t.seq >= compaction.upToSeq)));
  const summary = { upTo: compacted.length, summary: compaction.summary, count: compaction.count };
  return applyCompaction([...compacted, ...kept], summary, -1);
}

/**
 * Summarises a session's history so far with the summary model (the terminal's /compact):
 * later runs of the session see the summary instead of the turns before it, except the
 * newest `keepTurns`. The turns themselves stay in the store.
 */
export async function compactSession(
  store: Store,
  summaryProvider: Provider,
  sessionId: string,
  options: { focus?: string; keepTurns?: number; signal?: AbortSignal } = {},
): Promise<SessionCompaction> {
  const session = await store.sessions.get(sessionId);
  if (!session) throw new ResonError("not_found", `No session ${sessionId}.`);
  const { conversation: turns } = await conversationTurns(store, sessionId);
  const previous = session.settings.compaction;
  const from = previous?.upToSeq ?? 0;
  // Keep the newest task and what followed it; cut before a user turn, so that a tool call
  // never loses its result.
  let cut = Math.max(from, turns.length - (options.keepTurns ?? 1));
  while (cut > from && turns[cut]?.role !== "user") cut--;
  const part = keptTurns(
    turns.filter((t) => t.seq >= from && t.seq < cut),
    session,
  );
  if (part.length === 0)
    throw new ResonError("usage_error", "There is nothing to compact yet in this session.");
  const before = await sessionHistory(store, session);
  const estimator = new RequestEstimator();
  const size = (entries: HistoryEntry[]) =>
    entries.reduce((n, e) => n + estimator.messageTokens(e.message), 0);
  const chat = await summaryProvider.chat(
    {
      systemPrompt: SUMMARY_SYSTEM_PROMPT,
      messages: [
        {
          role: "user",
          content: summaryRequestText(transcriptOf(turnsToHistory(part), previous?.summary), options.focus),
          timestamp: Date.now(),
        },
      ],
      tools: [],
    },
    options.signal ? { signal: options.signal } : {},
  );
  const summary = chat.text.trim();
  if (!summary) throw new ResonError("provider_bad_response", "The summary model returned an empty summary.");
  const compaction = {
    upToSeq: turns[cut]?.seq ?? turns.length,
    summary,
    count: (previous?.count ?? 0) + 1,
  };
  const settings = { ...session.settings, compaction };
  await store.apply([
    {
      op: "updateSession",
      id: session.id,
      patch: { settings, usage: addUsage(session.usage, chat.usage), updatedAt: Date.now() },
    },
  ]);
  const after = await sessionHistory(store, { ...session, settings });
  return {
    turns: part.length,
    summaryChars: summary.length,
    beforeTokens: size(before),
    afterTokens: size(after),
  };
}
