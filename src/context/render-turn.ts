// A stored turn becomes a provider message by a pure function of what is stored: the raw
// content plus, for messages from a channel other than the terminal, one line of envelope
// facts. The same turn renders to the same bytes every time, so prompt caches keep hitting.
import type { Message } from "../providers/index.js";
import type { MessageContext, TurnRecord } from "../store/index.js";
import type { HistoryEntry } from "./history.js";

export function envelopeLine(envelope: MessageContext): string {
  const where =
    envelope.chatType === "direct" ? envelope.channel : `${envelope.channel} ${envelope.chatType}`;
  const who = envelope.senderName ?? envelope.senderId ?? envelope.roleLabel ?? "user";
  return `[${where} · ${who} · ${new Date(envelope.receivedAt).toISOString()}]`;
}

export function turnToMessage(turn: TurnRecord): Message {
  const message = turn.content as Message;
  if (message.role !== "user" || !turn.envelope || turn.envelope.channel === "cli") return message;
  if (typeof message.content !== "string") return message;
  return { ...message, content: `${envelopeLine(turn.envelope)}\n${message.content}` };
}

/**
 * History entries for a session's turns. Turns of earlier runs count as old (their tool
 * results show their short line); turns of `currentTraceId` keep their step.
 */
export function turnsToHistory(turns: readonly TurnRecord[], currentTraceId?: string): HistoryEntry[] {
  return turns.map((turn) => {
    const message = turnToMessage(turn);
    const step = turn.traceId === currentTraceId ? (turn.step ?? 0) : -1;
    const entry: HistoryEntry = { step, message };
    if (message.role === "toolResult") {
      const laterText = (message.details as { laterText?: unknown } | undefined)?.laterText;
      if (typeof laterText === "string") entry.laterText = laterText;
    }
    return entry;
  });
}
