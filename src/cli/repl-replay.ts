// What the terminal shows of a session it continues (`reson --continue`, `/resume`): its last
// few tasks and the model's answers, shortened, so the user sees where the conversation stands
// before typing the next task. The text came from the model and the user: it goes through the
// terminal sanitiser.
import type { SessionExchange } from "../agent/index.js";

/** Exchanges shown when a session is continued. */
export const REPLAYED_EXCHANGES = 3;
const TASK_LINES = 3;
const ANSWER_LINES = 6;
const LINE_CHARS = 200;

export interface ReplayOptions {
  /** The terminal sanitiser (or nothing, in a pipe). */
  safe: (text: string) => string;
  dim: (text: string) => string;
}

export function replayText(
  replay: { exchanges: readonly SessionExchange[]; total: number },
  options: ReplayOptions,
): string {
  const { exchanges, total } = replay;
  if (exchanges.length === 0) return "";
  const shown = exchanges.length === total ? `${total}` : `the last ${exchanges.length} of ${total}`;
  const lines = [options.dim(`── earlier in this session (${shown} task${total === 1 ? "" : "s"}) ──`)];
  for (const exchange of exchanges) {
    lines.push(...labelled("you", exchange.task, TASK_LINES, options));
    const calls =
      exchange.toolCalls > 0
        ? ` (${exchange.toolCalls} tool call${exchange.toolCalls === 1 ? "" : "s"})`
        : "";
    lines.push(...labelled("reson", exchange.answer || "(no answer)", ANSWER_LINES, options, calls));
  }
  lines.push(options.dim("──"));
  return `${lines.join("\n")}\n`;
}

/** "you: first line", the next lines indented, cut after `max` lines with a note. */
function labelled(label: string, text: string, max: number, options: ReplayOptions, suffix = ""): string[] {
  const all = options.safe(text.trim()).split("\n");
  const kept = all
    .slice(0, max)
    .map((line) => (line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line));
  const more = all.length - max;
  if (more > 0) kept.push(options.dim(`… (${more} more line${more === 1 ? "" : "s"})`));
  const pad = " ".repeat(label.length + 2);
  const lines = kept.map((line, i) => (i === 0 ? `${options.dim(`${label}:`)} ${line}` : `${pad}${line}`));
  if (suffix) lines[lines.length - 1] += options.dim(suffix);
  return lines;
}
