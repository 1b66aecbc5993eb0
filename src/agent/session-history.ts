// A session's history as its next run sees it, and /compact: the oldest turns of a session
// replaced by a summary for later runs (the turns themselves stay in the store); and its last
// exchanges as a person reads them, for a terminal that continues it.
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
import type { SessionRecord, Store } from "../store/index.js";
import { closeOpenToolCalls, conversationTurns } from "./resume.js";

/** One task of a session and what came of it: the model's last words, and how many tool calls it made. */
export interface SessionExchange {
  task: string;
  answer: string;
  toolCalls: number;
  at: number;
}

/**
 * The last `count` exchanges of a session's conversation (its sub-agents' turns left out), and
 * how many there are in all: what a terminal that continues the session shows first.
 */
export async function recentExchanges(
  store: Store,
  sessionId: string,
  count: number,
): Promise<{ exchanges: SessionExchange[]; total: number }> {
  const { conversation } = await conversationTurns(store, sessionId);
  const exchanges: SessionExchange[] = [];
  for (const turn of conversation) {
    const message = turn.content as { role?: string; content?: unknown };
    if (message.role === "user") {
      exchanges.push({ task: textOf(message.content), answer: "", toolCalls: 0, at: turn.createdAt });
      continue;
    }
    const current = exchanges.at(-1);
    if (!current || message.role !== "assistant" || !Array.isArray(message.content)) continue;
    const blocks = message.content as { type?: string }[];
    current.toolCalls += blocks.filter((block) => block.type === "toolCall").length;
    const text = textOf(blocks).trim();
    if (text) current.answer = text;
  }
  return { exchanges: exchanges.slice(-count), total: exchanges.length };
}

/** The text of a message's content: a string, or its text blocks joined. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(
      (block): block is { type: "text"; text: string } =>
        block?.type === "text" && typeof block.text === "string",
    )
    .map((block) => block.text)
    .join("");
}

export interface SessionCompaction {
  turns: number;
  summaryChars: number;
  beforeTokens: number;
  afterTokens: number;
}

/** A session's turns as the next run sees them: after a /compact, the summary and what followed. */
export async function sessionHistory(store: Store, session: SessionRecord): Promise<HistoryEntry[]> {
  const { conversation: turns } = await conversationTurns(store, session.id);
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
  const part = turns.filter((t) => t.seq >= from && t.seq < cut);
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
