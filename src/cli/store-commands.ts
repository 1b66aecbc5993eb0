// The commands that read the store: `reson sessions`, `reson trace show|export` (and withStore,
// which every store command runs in; `reson gc` is gc-command.ts). Each opens the store
// ($RESON_HOME/reson.db or RESON_DATABASE_URL), answers, and closes it.

import { writeFileSync } from "node:fs";
import { hostname as localHost } from "node:os";
import type { ParseArgsConfig } from "node:util";
import { describeSource, findTrace, openDefaultStore, type TrustStepData } from "../agent/index.js";
import { resonHome } from "../config/index.js";
import { ResonError, toResonError } from "../core/errors.js";
import { humanDuration } from "../core/human-duration.js";
import { formatCost } from "../core/usage.js";
import {
  describeHolder,
  holderAlive,
  leaseSince,
  type RunEventRecord,
  type RunLease,
  type StepRecord,
  type Store,
  type TraceRecord,
  type TurnRecord,
} from "../store/index.js";
import { traceIdOfRun } from "../telemetry/index.js";
import { parseCommandArgs } from "./command-args.js";
import { didYouMean } from "./did-you-mean.js";
import { EXIT_OK, EXIT_USAGE, exitCodeForError } from "./exit-codes.js";
import { countOf, formatAgo, formatBytes, formatTokens, table } from "./format.js";
import { reportError } from "./run-command.js";
import { outsideText, printable } from "./terminal-text.js";

type Values = Record<string, string | boolean | undefined>;

/**
 * Parses a command's arguments (a usage error exits 2), opens the store, runs `body`, reports
 * any failure with its exit code, and closes the store.
 */
export async function withStore(
  argv: string[],
  options: ParseArgsConfig["options"],
  body: (store: Store, values: Values, positionals: string[]) => Promise<number>,
  allowPositionals = true,
): Promise<number> {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseCommandArgs(
      { args: argv, options, allowPositionals, strict: true },
      "See `reson --help`.",
    ) as typeof parsed;
  } catch (error) {
    reportError(toResonError(error, "usage_error"));
    return EXIT_USAGE;
  }
  let store: Store | undefined;
  try {
    store = await openDefaultStore(resonHome());
    return await body(store, parsed.values, parsed.positionals);
  } catch (error) {
    const failure = toResonError(error);
    reportError(failure);
    return exitCodeForError(failure.code);
  } finally {
    await store?.close({ processExiting: true }).catch(() => {});
  }
}

export function sessionsCommand(argv: string[]): Promise<number> {
  return withStore(
    argv,
    { limit: { type: "string", short: "n" }, json: { type: "boolean" } },
    async (store, values) => {
      const limit = values.limit === undefined ? 20 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1)
        throw new ResonError("usage_error", "--limit must be a whole number.");
      const sessions = await store.sessions.list({ limit });
      // Whose newest run a live process executes now.
      const running = new Map<string, RunLease>();
      for (const lease of await store.leases.listHeld())
        if (holderAlive(lease.holder) !== false) running.set(lease.traceId, lease);
      const leaseOf = (session: { lastTraceId: string | null }) =>
        session.lastTraceId ? running.get(session.lastTraceId) : undefined;
      if (values.json) {
        for (const session of sessions) {
          const lease = leaseOf(session);
          process.stdout.write(`${JSON.stringify(lease ? { ...session, lease } : session)}\n`);
        }
        return EXIT_OK;
      }
      const size = await store.sizeBytes();
      if (sessions.length === 0) {
        process.stdout.write(`No sessions yet. Data: ${store.location} (${formatBytes(size)})\n`);
        return EXIT_OK;
      }
      const rows = [["ID", "STATUS", "UPDATED", "TOKENS", "COST", "WORKSPACE", "TITLE"]];
      for (const s of sessions) {
        const lease = leaseOf(s);
        rows.push([
          s.id,
          lease
            ? `running (${lease.holder.role}, pid ${lease.holder.pid}${lease.holder.host === localHost() ? "" : ` on ${lease.holder.host}`})`
            : s.status,
          formatAgo(s.updatedAt),
          formatTokens(s.usage.totalTokens),
          formatCost(s.usage),
          s.workspace,
          s.title,
        ]);
      }
      process.stdout.write(`${outsideText(process.stdout)(table(rows))}\n`);
      process.stdout.write(
        `\n${sessions.length} session${sessions.length === 1 ? "" : "s"} shown (newest first); any unique id prefix works. ` +
          `Data: ${store.location} (${formatBytes(size)}).\n`,
      );
      return EXIT_OK;
    },
  );
}

interface ToolStepData {
  toolCallId?: string;
  name: string;
  arguments: Record<string, unknown>;
  permission?: {
    behavior: string;
    by: string;
    reason?: string;
    rule?: string;
    source?: string;
    mode: string;
    asked?: string;
  };
  result?: { ok: boolean; meta?: { durationMs: number }; error?: { code: string; message: string } };
}

interface ModelStepData {
  step: number;
  stopReason: string;
  usage?: { input: number; output: number; totalTokens: number };
  context?: {
    estTokens: number;
    budgetTokens: number;
    messages: number;
    trimmedUpTo: number;
    compactions: number;
    goal: string | null;
    sections: Array<{
      section: string;
      source: string | null;
      injectedChars: number;
      truncated: boolean;
      sha256: string;
    }>;
  };
}

interface CompactionStepData {
  step: number;
  reason: string;
  beforeTokens: number;
  afterTokens: number;
  model: string;
  summary: string;
}

/** A learning step: the LearningReport, or the error learning stopped at. */
interface LearningStepData {
  remembered?: number;
  outcomeCounted?: number;
  reflected?: boolean;
  added?: string[];
  agreed?: string[];
  edited?: string[];
  removed?: string[];
  promoted?: string[];
  retired?: string[];
  error?: { code: string; message: string };
}

function learningLine(data: LearningStepData): string {
  if (data.error) return `learning failed [${data.error.code}]: ${oneLine(data.error.message, 120)}`;
  const rules = (["added", "agreed", "edited", "removed", "promoted", "retired"] as const)
    .filter((key) => (data[key]?.length ?? 0) > 0)
    .map((key) => `${data[key]!.length} ${key}`);
  return (
    `learning: ${data.remembered ?? 0} remembered · outcome counted for ${data.outcomeCounted ?? 0} rules · ` +
    (data.reflected ? `reflected${rules.length > 0 ? ` (${rules.join(", ")})` : ""}` : "no reflection")
  );
}

/** A "trust" step: where the run became untrusted, and from what. */
function trustLine(data: TrustStepData): string {
  const how =
    data.via === "read"
      ? "read"
      : data.via === "session"
        ? "continues a session that read"
        : "started by a run that read";
  return `untrusted from here: ${how} ${describeSource(data.source)} (call ${data.source.toolCallId})`;
}

function contextLines(
  pad: string,
  context: NonNullable<ModelStepData["context"]>,
  withSections: boolean,
): string[] {
  const facts = [
    `context ${formatTokens(context.estTokens)} / ${formatTokens(context.budgetTokens)} tokens (estimated)`,
    `${context.messages} messages`,
    ...(context.trimmedUpTo > 0 ? [`outputs before entry ${context.trimmedUpTo} trimmed`] : []),
    ...(context.compactions > 0
      ? [`${context.compactions} compaction${context.compactions === 1 ? "" : "s"}`]
      : []),
    ...(context.goal ? [`goal ${context.goal}`] : []),
  ];
  const lines = [`${pad}   ${facts.join(" · ")}`];
  if (!withSections) return lines;
  for (const section of context.sections) {
    lines.push(
      `${pad}     ${section.section}${section.source ? ` (${section.source})` : ""}: ${section.injectedChars} chars` +
        `${section.truncated ? ", cut" : ""} · sha256 ${section.sha256.slice(0, 12)}`,
    );
  }
  return lines;
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function argsLine(args: Record<string, unknown>): string {
  return oneLine(
    Object.entries(args)
      .map(([k, v]) => `${k}=${typeof v === "string" ? JSON.stringify(oneLine(v, 40)) : JSON.stringify(v)}`)
      .join(" "),
    100,
  );
}

function assistantText(turns: TurnRecord[], step: number): string {
  const turn = turns.find((t) => t.role === "assistant" && t.step === step);
  const content =
    (turn?.content as { content?: Array<{ type: string; text?: string }> } | undefined)?.content ?? [];
  return content
    .filter((b) => b.type === "text")
    .map((b) => b.text ?? "")
    .join("");
}

/**
 * Who runs a running run now: its live holder, or that no process does (it stopped; resume
 * continues it). Nothing for a run that ended.
 */
function holderLine(trace: TraceRecord, lease: RunLease | undefined): string | undefined {
  if (lease?.state === "held" && holderAlive(lease.holder) !== false) {
    return (
      `held by ${describeHolder(lease.holder)} ${leaseSince(lease)} · lease renewed ` +
      `${formatAgo(lease.renewedAt)} · epoch ${lease.epoch}`
    );
  }
  if (trace.status !== "running") return undefined;
  const was = lease ? `; last held by ${describeHolder(lease.holder)}` : "";
  return `not running now: no live process holds it${was}; \`reson resume ${trace.id}\` continues it`;
}

/** A run as a readable tree: the model calls, and under each its tool calls and outcomes. */
export function renderTraceTree(
  trace: TraceRecord,
  steps: StepRecord[],
  turns: TurnRecord[],
  options: {
    context?: boolean;
    children?: TraceRecord[];
    lease?: RunLease;
    /** The files each call changed, by `<step>:<toolCallId>` (from files_changed events). */
    files?: Map<string, string>;
  } = {},
): string {
  const holder = holderLine(trace, options.lease);
  const lines = [
    `run ${trace.id} · ${trace.status} · ${trace.provider}/${trace.model} · ${countOf(trace.steps, "step")} · ` +
      `${formatTokens(trace.usage.totalTokens)} tokens · ${formatCost(trace.usage)}` +
      (trace.endedAt ? ` · ${humanDuration(trace.endedAt - trace.startedAt)}` : ""),
    `session ${trace.sessionId}${trace.parentTraceId ? ` · parent run ${trace.parentTraceId}` : ""}`,
    // Sub-agents' spans are in their parent's trace (children start no children).
    `OpenTelemetry trace id ${traceIdOfRun(trace.parentTraceId ?? trace.id)}`,
    ...(holder ? [holder] : []),
    `task: ${oneLine(trace.task, 200)}`,
  ];
  if (trace.error) lines.push(`error [${trace.error.code}]: ${oneLine(trace.error.message, 200)}`);
  const children = options.children ?? [];
  if (children.length > 0) {
    lines.push(`sub-agents (${children.length}; \`reson trace show <id>\` for one):`);
    for (const child of children) {
      lines.push(
        `  ${child.id} · ${child.status}${child.error ? ` [${child.error.code}]` : ""} · ${countOf(child.steps, "step")} · ` +
          `${formatTokens(child.usage.totalTokens)} tokens · ${child.preset ?? "default"} · "${oneLine(child.task, 60)}"`,
      );
    }
  }
  const roots = steps.filter((s) => s.parentId === null);
  roots.forEach((root, i) => {
    const lastRoot = i === roots.length - 1;
    const pad = lastRoot ? "   " : "│  ";
    if (root.kind === "compaction") {
      const c = root.data as CompactionStepData;
      lines.push(
        `${lastRoot ? "└─" : "├─"} compaction (${c.reason}) by ${c.model}: ` +
          `${formatTokens(c.beforeTokens)} -> ${formatTokens(c.afterTokens)} tokens`,
      );
      if (options.context) lines.push(`${pad}   "${oneLine(c.summary, 160)}"`);
      return;
    }
    if (root.kind === "learning") {
      lines.push(`${lastRoot ? "└─" : "├─"} ${learningLine(root.data as LearningStepData)}`);
      return;
    }
    if (root.kind === "trust") {
      lines.push(`${lastRoot ? "└─" : "├─"} ${trustLine(root.data as TrustStepData)}`);
      return;
    }
    const data = root.data as ModelStepData;
    const usage = data.usage ? ` · ${data.usage.input} in / ${data.usage.output} out` : "";
    const text = assistantText(turns, data.step);
    lines.push(`${lastRoot ? "└─" : "├─"} step ${data.step} · model ${data.stopReason}${usage}`);
    if (data.context) lines.push(...contextLines(pad, data.context, options.context === true));
    if (text) lines.push(`${pad}   "${oneLine(text, 100)}"`);
    const children = steps.filter((s) => s.parentId === root.id);
    children.forEach((child, j) => {
      const tool = child.data as ToolStepData;
      const result = tool.result;
      const outcome = result
        ? result.ok
          ? `✓ ${humanDuration(result.meta?.durationMs ?? 0)}`
          : `✗ ${result.error?.code ?? "failed"}: ${oneLine(result.error?.message ?? "", 80)}`
        : `… ${child.status}`;
      const permission = tool.permission;
      const by = permission?.rule
        ? `rule ${permission.rule} (${permission.source})`
        : permission?.by === "untrusted"
          ? `untrusted content: ${oneLine(permission.reason ?? "", 100)}`
          : `${permission?.by} (mode ${permission?.mode})`;
      const why = permission
        ? ` · ${permission.behavior === "allow" ? "allowed" : "denied"} by ${by}${permission.asked ? `, user: ${permission.asked}` : ""}`
        : "";
      lines.push(
        `${pad}${j === children.length - 1 ? "└─" : "├─"} ${tool.name} ${argsLine(tool.arguments)} ${outcome}${why}`,
      );
      const files = options.files?.get(`${data.step}:${tool.toolCallId}`);
      if (files) lines.push(`${pad}${j === children.length - 1 ? "   " : "│  "}   ${files}`);
    });
  });
  return lines.join("\n");
}

/** Each call's files_changed event as a line of the trace, by `<step>:<toolCallId>`. */
function changedFiles(events: RunEventRecord[]): Map<string, string> {
  const letters: Record<string, string> = { added: "A", modified: "M", deleted: "D", mode: "M", type: "T" };
  const lines = new Map<string, string>();
  for (const event of events) {
    if (event.type !== "files_changed") continue;
    const data = event.data as {
      toolCallId: string;
      files: Array<{ path: string; change: string }>;
      total: number;
    };
    // A path is one line's part, as in `reson diff --stat`: a newline or an escape in a name is written out.
    const shown = data.files
      .slice(0, 8)
      .map((file) => `${letters[file.change] ?? "M"} ${printable(file.path)}`);
    const more = data.total > shown.length ? ` (+${data.total - shown.length} more)` : "";
    lines.set(`${event.step}:${data.toolCallId}`, `files: ${shown.join(", ")}${more}`);
  }
  return lines;
}

export function traceCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "show" && sub !== "export") {
    reportError(
      new ResonError(
        "usage_error",
        `Unknown trace command ${JSON.stringify(sub ?? "")}.${didYouMean(sub ?? "", ["show", "export"])}`,
        {
          hint: "Use `reson trace show <id>` or `reson trace export <id> --format json|jsonl [--output file]`.",
        },
      ),
    );
    return Promise.resolve(EXIT_USAGE);
  }
  const options = {
    format: { type: "string", short: "f" },
    output: { type: "string", short: "o" },
    context: { type: "boolean" },
  } as const;
  return withStore(rest, options, async (store, values, positionals) => {
    const id = positionals[0];
    if (!id)
      throw new ResonError("usage_error", `No run id given.`, { hint: `Usage: reson trace ${sub} <id>` });
    const trace = await findTrace(store, id);
    const [steps, allTurns, children, lease, events] = await Promise.all([
      store.steps.list(trace.id),
      store.turns.list(trace.sessionId),
      store.traces.children(trace.id),
      store.leases.get(trace.id),
      store.events.list(trace.id),
    ]);
    const turns = allTurns.filter((t) => t.traceId === trace.id);
    if (sub === "show") {
      const options = {
        context: values.context === true,
        children,
        files: changedFiles(events),
        ...(lease ? { lease } : {}),
      };
      // The model's text, tool arguments and errors, safe on a terminal.
      process.stdout.write(`${outsideText(process.stdout)(renderTraceTree(trace, steps, turns, options))}\n`);
      return EXIT_OK;
    }
    const format = (values.format as string | undefined) ?? "json";
    if (format !== "json" && format !== "jsonl") {
      throw new ResonError("usage_error", `Unknown format ${JSON.stringify(format)}.`, {
        hint: "Use json or jsonl.",
      });
    }
    const text =
      format === "json"
        ? `${JSON.stringify({ trace, steps, turns }, null, 2)}\n`
        : [
            { record: "trace", ...trace },
            ...steps.map((step) => ({ record: "step", ...step })),
            ...turns.map((turn) => ({ record: "turn", ...turn })),
          ]
            .map((record) => JSON.stringify(record))
            .join("\n")
            .concat("\n");
    const output = (values.output as string | undefined) ?? `trace-${trace.id}.${format}`;
    if (output === "-") {
      process.stdout.write(text);
      return EXIT_OK;
    }
    writeFileSync(output, text);
    process.stderr.write(`wrote ${output} (${formatBytes(Buffer.byteLength(text))})\n`);
    return EXIT_OK;
  });
}
