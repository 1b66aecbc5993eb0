// Central truncation of tool output: every result passes here, so no tool can flood the
// context. Cuts at line boundaries, and the marker says how much was cut and how to see more.
import type { TruncationInfo, TruncationMode } from "./types.js";

export interface TruncationLimits {
  maxLines: number;
  maxChars: number;
}

export const DEFAULT_TRUNCATION_LIMITS: TruncationLimits = { maxLines: 2000, maxChars: 50_000 };

export interface TruncateOptions {
  mode?: TruncationMode;
  hint?: string | ((cut: TruncationInfo) => string);
}

export interface TruncatedText {
  text: string;
  truncated: boolean;
}

const DEFAULT_HINT = "Ask for less at a time (a narrower path, pattern or range) to see the rest.";

/** Keeps whole lines from `lines[from]` onwards (step 1) or backwards (step -1) within the limits. */
function keepLines(
  lines: readonly string[],
  from: number,
  step: 1 | -1,
  maxLines: number,
  maxChars: number,
): number {
  let kept = 0;
  let chars = 0;
  for (let i = from; i >= 0 && i < lines.length && kept < maxLines; i += step) {
    const cost = lines[i]!.length + 1;
    if (chars + cost > maxChars) break;
    chars += cost;
    kept += 1;
  }
  return kept;
}

function hintText(hint: TruncateOptions["hint"], info: TruncationInfo): string {
  if (hint === undefined) return DEFAULT_HINT;
  return typeof hint === "function" ? hint(info) : hint;
}

export function truncateOutput(
  text: string,
  limits: TruncationLimits,
  options: TruncateOptions = {},
): TruncatedText {
  const lines = text.split("\n");
  if (lines.length <= limits.maxLines && text.length <= limits.maxChars) return { text, truncated: false };
  if (options.mode === "head_and_tail") return truncateMiddle(text, lines, limits, options);

  const kept = keepLines(lines, 0, 1, limits.maxLines, limits.maxChars);
  // A first line longer than the whole budget is cut inside the line rather than dropped.
  const head = kept > 0 ? lines.slice(0, kept).join("\n") : text.slice(0, limits.maxChars);
  const info: TruncationInfo = {
    shownLines: kept,
    totalLines: lines.length,
    shownChars: head.length,
    totalChars: text.length,
  };
  const cutLines = lines.length - kept;
  const marker =
    `[Output truncated: ${cutLines} more line${cutLines === 1 ? "" : "s"} ` +
    `(${text.length - head.length} characters) not shown. ${hintText(options.hint, info)}]`;
  return { text: `${head}\n\n${marker}`, truncated: true };
}

function truncateMiddle(
  text: string,
  lines: readonly string[],
  limits: TruncationLimits,
  options: TruncateOptions,
): TruncatedText {
  const headLines = keepLines(lines, 0, 1, Math.ceil(limits.maxLines / 2), Math.ceil(limits.maxChars / 2));
  const tailBudgetLines = Math.min(Math.floor(limits.maxLines / 2), lines.length - headLines);
  const tailLines = keepLines(lines, lines.length - 1, -1, tailBudgetLines, Math.floor(limits.maxChars / 2));
  const head = lines.slice(0, headLines).join("\n");
  const tail = lines.slice(lines.length - tailLines).join("\n");
  const omittedLines = lines.length - headLines - tailLines;
  const info: TruncationInfo = {
    shownLines: headLines,
    totalLines: lines.length,
    shownChars: head.length + tail.length,
    totalChars: text.length,
  };
  const marker =
    `[Output truncated: ${omittedLines} line${omittedLines === 1 ? "" : "s"} ` +
    `(${text.length - head.length - tail.length} characters) omitted here. ${hintText(options.hint, info)}]`;
  return { text: `${head}\n\n${marker}\n\n${tail}`, truncated: true };
}
