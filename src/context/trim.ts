// Trimming, the first answer to an over-budget context: tool results before a point in the
// history are shown as their long-term line instead of their full output (pinned outputs,
// such as loaded skills, excepted). The point only moves forward, and a trimmed entry is the
// same object every call, so the bytes the provider sees for old turns stop changing once
// trimmed.
import type { ToolResultMessage } from "../providers/index.js";
import type { HistoryEntry } from "./history.js";
import { isPinned } from "./pinned.js";

/** Results shorter than this stay as they are: trimming them saves nothing. */
const MIN_TRIM_CHARS = 400;
const KEPT_ERROR_CHARS = 300;

interface ResultDetails {
  ok?: boolean;
  longTermMemory?: string;
  laterText?: string;
}

const trimmed = new WeakMap<HistoryEntry, HistoryEntry>();

function textLength(message: ToolResultMessage): number {
  let length = 0;
  for (const block of message.content) if (block.type === "text") length += block.text.length;
  return length;
}

function trimmedText(message: ToolResultMessage): string {
  const details = (message.details ?? {}) as ResultDetails;
  const chars = textLength(message);
  const line = details.longTermMemory ?? details.laterText;
  if (message.isError) {
    const first = message.content.find((b) => b.type === "text");
    const error = first?.type === "text" ? first.text.slice(0, KEPT_ERROR_CHARS) : "error";
    return `${error}${chars > KEPT_ERROR_CHARS ? " […]" : ""}\n[rest of this result trimmed from context]`;
  }
  if (line) return `${line}\n[full output (${chars} chars) trimmed from context]`;
  return `[output of ${message.toolName} (${chars} chars) trimmed from context; run the tool again if needed]`;
}

function trimEntry(entry: HistoryEntry): HistoryEntry {
  const message = entry.message;
  if (message.role !== "toolResult" || textLength(message) < MIN_TRIM_CHARS) return entry;
  // A pinned output (a loaded skill) is instructions still in force, not an old result.
  if (isPinned(entry)) return entry;
  let short = trimmed.get(entry);
  if (!short) {
    short = { ...entry, message: { ...message, content: [{ type: "text", text: trimmedText(message) }] } };
    delete short.laterText;
    trimmed.set(entry, short);
  }
  return short;
}

/** The history with every tool result before index `upTo` trimmed. */
export function applyTrim(entries: readonly HistoryEntry[], upTo: number): HistoryEntry[] {
  if (upTo <= 0) return [...entries];
  return entries.map((entry, i) => (i < upTo ? trimEntry(entry) : entry));
}

/** Where to trim to when over budget: everything but the newest `keepSteps` steps of tool results. */
export function trimPoint(entries: readonly HistoryEntry[], keepSteps: number): number {
  let steps = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i]!.message.role === "assistant") {
      steps++;
      if (steps >= keepSteps) return i;
    }
  }
  return 0;
}
