// Human output of `reson run` (and the terminal's): the model's text streamed to stdout as it
// arrives; one line per tool call (arguments shortened, outcome, duration, and for a failed
// call the last lines of its output), retries, warnings and the closing summary on stderr, so
// `reson run "…" > answer.txt` keeps just the text. On a terminal, everything that came from
// outside reson goes through terminal-text.ts first; reson's own colours are added after.

import type { ResonEvent, RunEndEvent } from "../core/events.js";
import { humanDuration } from "../core/human-duration.js";
import { formatCost, formatUsd } from "../core/usage.js";
import { questionLines } from "./ask-human.js";
import { formatTokens } from "./format.js";
import { outsideText } from "./terminal-text.js";
import { wrapText } from "./wrap-text.js";

export interface HumanRendererOptions {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
  color: boolean;
}

const ARG_VALUE_CHARS = 40;
const ARGS_LINE_CHARS = 100;
/** Lines of a failed call's output shown under its line. */
const TAIL_LINES = 5;
const TAIL_LINE_CHARS = 160;

export function shortenArguments(args: Record<string, unknown>): string {
  const parts = Object.entries(args).map(([key, value]) => {
    const raw = typeof value === "string" ? value : JSON.stringify(value);
    const oneLine = (raw ?? "").replace(/\s+/g, " ");
    const short = oneLine.length > ARG_VALUE_CHARS ? `${oneLine.slice(0, ARG_VALUE_CHARS - 1)}…` : oneLine;
    return typeof value === "string" ? `${key}=${JSON.stringify(short)}` : `${key}=${short}`;
  });
  const line = parts.join(" ");
  return line.length > ARGS_LINE_CHARS ? `${line.slice(0, ARGS_LINE_CHARS - 1)}…` : line;
}

export function humanRenderer(options: HumanRendererOptions): (event: ResonEvent) => void {
  const { out, err, color } = options;
  const paint = (code: string, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const dim = (t: string) => paint("2", t);
  const red = (t: string) => paint("31", t);
  const green = (t: string) => paint("32", t);
  const yellow = (t: string) => paint("33", t);
  const argsById = new Map<string, string>();
  let midLine = false;
  // Outside text on its way to each stream: made safe on a terminal, exact in a pipe or file.
  const toOut = outsideText(out);
  const toErr = outsideText(err);
  const line = (text: string | undefined) => toErr(firstLine(text));

  const endTextLine = () => {
    if (midLine) out.write("\n");
    midLine = false;
  };

  const summary = (event: RunEndEvent): string => {
    const facts = [
      `${event.steps} step${event.steps === 1 ? "" : "s"}`,
      `${formatTokens(event.usage.totalTokens)} tokens`,
      formatCost(event.usage),
      humanDuration(event.durationMs),
    ].join(" · ");
    if (event.status === "completed") return green(`✓ done · ${facts}`);
    if (event.status === "aborted") return yellow(`■ interrupted · ${facts}`);
    const error = event.error;
    const lines = [
      red(`✗ failed${error ? ` [${error.code}]` : ""}: ${toErr(error?.message ?? "unknown error")}`),
    ];
    if (error?.hint) lines.push(`  hint: ${toErr(error.hint)}`);
    lines.push(dim(`  ${facts}`));
    return lines.join("\n");
  };

  return (event) => {
    switch (event.type) {
      case "text_delta":
        out.write(toOut(event.delta));
        midLine = !event.delta.endsWith("\n");
        return;
      case "tool_call":
        argsById.set(event.toolCallId, toErr(shortenArguments(event.arguments)));
        return;
      case "tool_result": {
        endTextLine();
        const args = argsById.get(event.toolCallId) ?? "";
        argsById.delete(event.toolCallId);
        const mark = event.ok ? green("✓") : red("✗");
        const denial = event.error?.code === "tool_denied" ? event.error : undefined;
        const outcome = event.ok
          ? ""
          : denial
            ? ` ${red(denial.code)}`
            : ` ${red(`${event.error?.code ?? "failed"}: ${line(event.error?.message)}`)}`;
        err.write(`  ${mark} ${event.name} ${dim(args)}${outcome} ${dim(humanDuration(event.durationMs))}\n`);
        // A denial is said whole (wrapped, never cut): its hint is what the user does next.
        if (denial) err.write(denialLines(denial, terminalColumns(err), toErr));
        // Another failure in the call's own words (a command's last lines of output), not only
        // its exit code; the line above already gave the error's first line.
        else if (!event.ok)
          for (const tail of outputTail(event.content, firstLine(event.error?.message)))
            err.write(`${dim(`      ${toErr(tail)}`)}\n`);
        return;
      }
      case "provider_retry":
        endTextLine();
        err.write(
          `${yellow(
            `  ⟳ ${event.error.code}: ${line(event.error.message)}; retrying in ${humanDuration(event.delayMs)} ` +
              `(attempt ${event.attempt + 1}/${event.maxAttempts})`,
          )}\n`,
        );
        return;
      case "human_question":
        endTextLine();
        err.write(`\n${toErr(questionLines(event))}`);
        return;
      case "sub_trace_started": {
        endTextLine();
        const limits = [
          `${event.limits.maxSteps} steps`,
          ...(event.limits.maxTokens === undefined ? [] : [`${formatTokens(event.limits.maxTokens)} tokens`]),
          ...(event.limits.maxCostUsd === undefined ? [] : [formatUsd(event.limits.maxCostUsd)]),
          ...(event.limits.maxWallMs === undefined ? [] : [humanDuration(event.limits.maxWallMs)]),
        ].join(", ");
        err.write(
          `${dim(`  ↳ sub-agent ${event.childRunId} · ${event.mode} (${event.preset}) · ${line(event.task).slice(0, 80)} · up to ${limits}`)}\n`,
        );
        return;
      }
      case "sub_trace_completed": {
        endTextLine();
        const why = event.error ? ` [${event.error.code}]` : "";
        err.write(
          `${dim(`  ↳ sub-agent ${event.childRunId} ${event.status}${why} · ${event.steps} step${event.steps === 1 ? "" : "s"} · ${formatTokens(event.usage.totalTokens)} tokens · ${formatCost(event.usage)}`)}\n`,
        );
        return;
      }
      case "warning":
        endTextLine();
        err.write(`${yellow(`warning: ${toErr(event.message)}`)}\n`);
        return;
      case "run_start": {
        const what = event.resumed
          ? `resuming run ${event.runId} after step ${event.step}`
          : `run ${event.runId}`;
        err.write(`${dim(`reson · ${what} · ${event.provider}/${event.model} · ${event.workspace}`)}\n`);
        if (event.sandbox) err.write(`${dim(event.sandbox)}\n`);
        return;
      }
      case "plugins_loaded": {
        for (const plugin of event.plugins) {
          const tools = plugin.tools.length > 0 ? ` · tools: ${plugin.tools.join(", ")}` : "";
          err.write(
            `${dim(`plugin ${plugin.name}${plugin.version ? `@${plugin.version}` : ""} (${plugin.scope})${tools}`)}\n`,
          );
        }
        for (const problem of event.errors)
          err.write(`${yellow(`warning: plugin ${problem.plugin}: ${line(problem.message)}`)}\n`);
        for (const { plugin, command, scope, reason } of event.untrusted)
          err.write(
            `${yellow(`warning: ${scope ?? "project"} plugin ${plugin} not loaded: not trusted${reason ? ` (${line(reason)})` : ""}; trust it with \`${command}\``)}\n`,
          );
        return;
      }
      case "trust_changed":
        endTextLine();
        err.write(`${yellow(`untrusted: ${toErr(event.reason)}`)}\n`);
        return;
      case "plugin_error":
        endTextLine();
        err.write(`${yellow(`warning: plugin ${event.plugin} (${event.hook}): ${line(event.message)}`)}\n`);
        return;
      case "learning": {
        const changes = [
          event.added.length > 0
            ? `${event.added.length} new rule${event.added.length === 1 ? "" : "s"} (candidates)`
            : "",
          event.promoted.length > 0 ? `${event.promoted.length} now in use` : "",
          event.retired.length > 0 ? `${event.retired.length} retired` : "",
        ].filter(Boolean);
        if (changes.length > 0)
          err.write(`${dim(`learned: ${changes.join(", ")}; see \`reson experiences list\``)}\n`);
        return;
      }
      case "run_end":
        endTextLine();
        err.write(`${summary(event)}\n`);
        return;
      default:
        return;
    }
  };
}

function denialLines(
  error: { message: string; hint?: string },
  columns: number | undefined,
  safe: (text: string) => string,
): string {
  const wrap = (text: string) => wrapText(text, { width: columns, indent: "    ", continuation: "      " });
  const lines = [...wrap(safe(error.message)), ...(error.hint ? wrap(`hint: ${safe(error.hint)}`) : [])];
  return `${lines.join("\n")}\n`;
}

/** The width of `stream` when it is a terminal. */
function terminalColumns(stream: NodeJS.WritableStream): number | undefined {
  const tty = stream as Partial<NodeJS.WriteStream>;
  return tty.isTTY ? tty.columns : undefined;
}

/** The last lines of a failed call's output (but `shown`), each cut to a readable length. */
function outputTail(content: string, shown: string): string[] {
  return content
    .split(/\r?\n/)
    .filter((text) => text.trim() !== "" && text !== shown)
    .slice(-TAIL_LINES)
    .map((text) => (text.length > TAIL_LINE_CHARS ? `${text.slice(0, TAIL_LINE_CHARS - 1)}…` : text));
}

function firstLine(text: string | undefined): string {
  const line = (text ?? "").split("\n", 1)[0] ?? "";
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}
