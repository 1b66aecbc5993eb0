// Compaction, the pure parts: which part of the history to summarise (the oldest, never the
// task of the current run, never cutting between a tool call and its results), the transcript
// and the instructions the summary model gets, and the model's view once a summary exists.
import type { Message } from "../providers/index.js";
import type { HistoryEntry, Pin } from "./history.js";
import { leavingPins, type PinnedBlockOptions, pinnedBlockText } from "./pinned.js";

/** A summary standing for the first `upTo` entries of the stored history (the pinned task excepted). */
export interface Compaction {
  upTo: number;
  summary: string;
  /** How many times the history was compacted in this run. */
  count: number;
}

export const SUMMARY_SYSTEM_PROMPT = [
  "You compact the working memory of a software agent. You get the beginning of its conversation:",
  "the task, its reasoning, the tools it called and what they returned (and maybe an earlier summary).",
  "Write a summary the agent will continue from, in place of that conversation. Keep every fact it",
  "needs and nothing else. Use exactly these sections, in this order, as Markdown headings:",
  "## Goal",
  "## Constraints (instructions and rules from the user or the files, verbatim where short)",
  "## Progress (what is done, with concrete results)",
  "## Decisions (and why)",
  "## Failed attempts (what did not work and why; never drop one)",
  "## Files (read: …; changed: … with what changed)",
  "## Next steps",
  "Be specific: paths, names, numbers, error messages. Do not invent anything.",
  "Skills the agent loaded are kept beside the summary word for word: name them, do not copy them.",
].join("\n");

const TOOL_OUTPUT_CHARS = 2_000;

function textOf(message: Message): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((block) => {
      if (block.type === "text") return block.text;
      if (block.type === "toolCall") return `[called ${block.name} ${JSON.stringify(block.arguments)}]`;
      if (block.type === "thinking") return "";
      return `[${block.type}]`;
    })
    .filter(Boolean)
    .join("\n");
}

/** `text` cut to `max` characters in the middle, keeping its head and tail, with a marker. */
export function keepHeadAndTail(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[… ${text.length - max} characters …]\n${text.slice(-half)}`;
}

/** The part of the conversation to summarise, as plain text the summary model reads. */
export function transcriptOf(entries: readonly HistoryEntry[], previous?: string): string {
  const parts: string[] = [];
  if (previous) parts.push(`EARLIER SUMMARY:\n${previous}`);
  for (const { message } of entries) {
    if (message.role === "user") parts.push(`USER:\n${textOf(message)}`);
    else if (message.role === "assistant") parts.push(`AGENT:\n${textOf(message)}`);
    else
      parts.push(
        `RESULT of ${message.toolName}${message.isError ? " (error)" : ""}:\n${keepHeadAndTail(textOf(message), TOOL_OUTPUT_CHARS)}`,
      );
  }
  return parts.join("\n\n");
}

export function summaryRequestText(transcript: string, focus?: string): string {
  const extra = focus ? `\n\nPay particular attention to: ${focus}` : "";
  return `Summarise this conversation of the agent so far.${extra}\n\n<conversation>\n${transcript}\n</conversation>`;
}

/**
 * Where a compaction may end: the index of the first entry to keep. Keeps at least the
 * newest `keepRecent` entries, and moves the cut back so it falls just before an assistant
 * message or a user message, never between a tool call and its results.
 */
export function compactionCut(entries: readonly HistoryEntry[], from: number, keepRecent: number): number {
  let cut = Math.max(from, entries.length - keepRecent);
  while (cut > from && entries[cut]?.message.role === "toolResult") cut--;
  return cut;
}

// Per compaction, its entry for each set of pins it carries: the same object every call.
const summaryEntries = new WeakMap<Compaction, Map<string, HistoryEntry>>();

/**
 * The summary as a history entry, followed by the pinned outputs (loaded skills) of the part
 * it stands for; the same object for the same compaction and pins.
 */
export function summaryEntry(
  compaction: Compaction,
  pinned: { pins: readonly Pin[]; left?: readonly string[] } = { pins: [] },
): HistoryEntry {
  const block = pinnedBlockText(pinned.pins, pinned.left);
  let byBlock = summaryEntries.get(compaction);
  if (!byBlock) {
    byBlock = new Map();
    summaryEntries.set(compaction, byBlock);
  }
  let entry = byBlock.get(block);
  if (!entry) {
    const text = `[Summary of the earlier part of this conversation, which was compacted]\n\n${compaction.summary}`;
    entry = {
      step: -1,
      message: { role: "user", content: block ? `${text}\n\n${block}` : text, timestamp: 0 },
    };
    if (pinned.pins.length > 0) entry.pins = pinned.pins;
    byBlock.set(block, entry);
  }
  return entry;
}

/**
 * The history as the model sees it after a compaction: the summary with the pinned outputs
 * of the compacted part, then the current run's task if it was in the compacted part (it is
 * never summarised away), then the rest.
 */
export function applyCompaction(
  entries: readonly HistoryEntry[],
  compaction: Compaction | undefined,
  taskIndex: number,
  pinnedOptions: PinnedBlockOptions = {},
): HistoryEntry[] {
  if (!compaction) return [...entries];
  const task = taskIndex >= 0 && taskIndex < compaction.upTo ? [entries[taskIndex]!] : [];
  const pins = leavingPins(entries, (index) => index < compaction.upTo, pinnedOptions);
  return [...task, summaryEntry(compaction, pins), ...entries.slice(compaction.upTo)];
}
