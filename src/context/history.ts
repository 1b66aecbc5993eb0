// The conversation history of a run and how it is rendered for the provider.
// Tool results follow Browser-Use's two layers: an output marked "include only once" is
// shown in full in the next model call, and afterwards only its short long-term line.
import type { Message, ToolResultMessage } from "../providers/index.js";

export interface HistoryEntry {
  message: Message;
  /** The step that added this entry (0 for the task itself). */
  step: number;
  /** For a tool result shown only once: the line that replaces it in later calls. */
  laterText?: string;
  /**
   * The goal focused when the step that added this entry started (none for the task, or
   * before any goal exists): when that goal closes, the goal view shows its summary instead.
   */
  goalId?: string;
  /**
   * Pinned outputs this entry carries for entries no longer in view (a compaction summary
   * re-attaching the skills loaded in the part it stands for); see pinned.ts.
   */
  pins?: readonly Pin[];
}

/** An output kept in view for the session, under its key (e.g. "skill:pdf-forms"). */
export interface Pin {
  key: string;
  text: string;
}

// The short form of a result, made once per entry: the same object every later call, so a
// wire layer may cache its serialization by identity and the bytes never change.
const shortForms = new WeakMap<HistoryEntry, ToolResultMessage>();

function shortForm(entry: HistoryEntry, message: ToolResultMessage, text: string): ToolResultMessage {
  let short = shortForms.get(entry);
  if (!short) {
    short = { ...message, content: [{ type: "text", text }] };
    shortForms.set(entry, short);
  }
  return short;
}

/**
 * The messages for the model call of `step`. Entries from the previous step are shown in
 * full; older tool results with a `laterText` are shown as that line. An entry renders to the
 * same object every time once it is old, so the bytes stay stable.
 */
export function renderHistory(entries: readonly HistoryEntry[], step: number): Message[] {
  const out: Message[] = new Array(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const message = entry.message;
    if (entry.laterText !== undefined && message.role === "toolResult" && entry.step < step - 1) {
      out[i] = shortForm(entry, message, entry.laterText);
      continue;
    }
    out[i] = message;
  }
  return out;
}
