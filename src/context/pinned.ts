// Outputs pinned for the session (ToolOutput.pinAs: a skill's instructions). They are never
// trimmed, and where the part of the history holding them leaves the model's view (summarised
// by a compaction, folded by the goal view) they come back as one block in the entry that
// stands for that part. Only the newest output of each key counts: loading a skill again
// replaces the earlier copy. Pure functions of the history, so a resumed run sees the same.
import type { HistoryEntry, Pin } from "./history.js";

export interface PinnedBlockOptions {
  /** The whole block at most this many characters (its texts, not counting the headings). */
  maxChars?: number;
  /** Each output at most this many characters; the rest is cut with a marker. */
  maxEachChars?: number;
}

/** About 25k and 5k tokens: what Claude Code re-attaches of skills after a compaction. */
export const MAX_PINNED_CHARS = 100_000;
export const MAX_PINNED_EACH_CHARS = 20_000;
/** A text is cut to fit only when at least this much of it fits; otherwise it is left out. */
const MIN_CUT_CHARS = 1_000;

const HEADING =
  "[Loaded earlier in this conversation and still in force (kept whole when that part was condensed)]";

/** The pinned outputs an entry holds: a pinned tool result's text, or what a summary carries. */
export function pinsOf(entry: HistoryEntry): readonly Pin[] {
  if (entry.pins) return entry.pins;
  const message = entry.message;
  if (message.role !== "toolResult" || message.isError) return [];
  const key = (message.details as { pinAs?: unknown } | undefined)?.pinAs;
  if (typeof key !== "string" || key === "") return [];
  const text = message.content
    .map((block) => (block.type === "text" ? block.text : ""))
    .join("")
    .trim();
  return text ? [{ key, text }] : [];
}

export function isPinned(entry: HistoryEntry): boolean {
  return pinsOf(entry).length > 0;
}

/**
 * The pins whose newest copy in `entries` is in an entry `leaving` says leaves the view, in
 * history order, kept within the caps from the newest backwards (a text that does not fit is
 * cut, or left out and named in a note).
 */
export function leavingPins(
  entries: readonly HistoryEntry[],
  leaving: (index: number) => boolean,
  options: PinnedBlockOptions = {},
): { pins: Pin[]; left: string[] } {
  const newest = new Map<string, { index: number; order: number; pin: Pin }>();
  let order = 0;
  entries.forEach((entry, index) => {
    for (const pin of pinsOf(entry)) {
      newest.delete(pin.key);
      newest.set(pin.key, { index, order: order++, pin });
    }
  });
  const picked = [...newest.values()].filter((item) => leaving(item.index));
  let room = options.maxChars ?? MAX_PINNED_CHARS;
  const maxEach = options.maxEachChars ?? MAX_PINNED_EACH_CHARS;
  const kept: Array<{ order: number; pin: Pin }> = [];
  const left: string[] = [];
  for (const item of picked.reverse()) {
    let text = cut(item.pin.text, maxEach);
    if (text.length > room) {
      if (room < MIN_CUT_CHARS) {
        left.push(item.pin.key);
        continue;
      }
      text = cut(item.pin.text, room);
    }
    room -= text.length;
    kept.push({ order: item.order, pin: text === item.pin.text ? item.pin : { key: item.pin.key, text } });
  }
  kept.sort((a, b) => a.order - b.order);
  return { pins: kept.map((item) => item.pin), left: left.reverse() };
}

/** The block of text that re-attaches pins ("" for none). */
export function pinnedBlockText(pins: readonly Pin[], left: readonly string[] = []): string {
  if (pins.length === 0 && left.length === 0) return "";
  const parts = [HEADING, ...pins.map((pin) => pin.text)];
  if (left.length > 0) {
    parts.push(`(Not kept, for lack of room: ${left.join(", ")}. Load them again if you need them.)`);
  }
  return parts.join("\n\n");
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const rest = text.length - max;
  return `${text.slice(0, max).trimEnd()}\n[… ${rest} more characters cut here; load it again to see all of it]`;
}
