// The subagent tool: the model hands parts of its work to sub-agents. Each is a run of its own
// (its own trace under the calling run, a preset's tools, a read-only workspace for explore
// and evaluate) with hard limits drawn from what the calling run has left. explore runs its
// branches in parallel. Sub-agents never get this tool, so children cannot start children.
import { type Static, Type } from "typebox";
import type { Preset } from "../config/index.js";
import { ResonError, type SerializedError, serializeError } from "../core/errors.js";
import type { SubTraceCompletedEvent, SubTraceStartedEvent } from "../core/events.js";
import { ulid } from "../core/ids.js";
import { emptyUsage, groupDigits, type RunLimits } from "../core/usage.js";
import type { ToolContext, ToolDefinition, ToolOutput } from "../tools/index.js";
import type { RunBudget } from "./budget.js";
import { describeSource } from "./run-trust.js";
import type { RunResult } from "./types.js";

export const SUBAGENT_TOOL = "subagent";

export type SubagentMode = "explore" | "delegate" | "evaluate";

/** Config `subagents`: caps on every sub-agent, whatever the model asks for. */
export interface SubagentCaps {
  concurrency: number;
  maxSteps: number;
  maxTokens?: number;
  maxCostUsd?: number;
  maxWallMs: number;
}

type SubTraceEvent =
  | Omit<SubTraceStartedEvent, "runId" | "step" | "ts">
  | Omit<SubTraceCompletedEvent, "runId" | "step" | "ts">;

/** The run that called the tool, as the tool needs it. */
export interface ParentRun {
  budget: RunBudget;
  /** On the parent's event stream, stamped with its run id and current step. */
  emit(event: SubTraceEvent): void;
}

/** One sub-agent run to start. */
export interface ChildSpec {
  runId: string;
  preset: Preset;
  task: string;
  /** The workspace is read-only for it (explore, evaluate, or a read-only preset). */
  readOnly: boolean;
  maxSteps: number;
  limits: RunLimits;
  /** The parent's signal: aborting the parent aborts the child. */
  signal: AbortSignal;
  /** Called once the child's trace is in the store, before it runs: then its id may be shown. */
  onStarted: () => void;
}

/** What the tool needs of the agent whose runs call it. */
export interface SubagentHost {
  caps: SubagentCaps;
  parentRun(runId: string): ParentRun | undefined;
  /** A preset by name (built-in or presets.json), or a usage error naming those there are. */
  preset(name: string): Promise<Preset>;
  /** Runs one child to its end; a child that failed or stopped is a result, not a throw. */
  runChild(parentRunId: string, spec: ChildSpec): Promise<RunResult>;
}

const MODES = ["explore", "delegate", "evaluate"] as const;
const DEFAULT_PRESET: Record<SubagentMode, string> = {
  explore: "explore",
  delegate: "default",
  evaluate: "evaluate",
};
/** Characters of each child's answer given back (the whole answer stays in its trace). */
const ANSWER_CHARS = 6_000;
const MEMORY_CHARS = 160;

const parameters = Type.Object(
  {
    mode: Type.Enum(MODES, {
      type: "string",
      description:
        "explore: look into several questions or areas at once (read-only, in parallel); delegate: hand over " +
        "one self-contained task; evaluate: have an independent checker judge work against criteria (read-only).",
    }),
    branches: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        maxItems: 8,
        description: "explore: one question or area per branch (1 to 8); they run in parallel.",
      }),
    ),
    background: Type.Optional(
      Type.String({ description: "explore: context every branch gets (what you know, what to look for)." }),
    ),
    task: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "delegate: the task, complete in itself (the sub-agent sees nothing of this conversation); " +
          "evaluate: what to check and the criteria.",
      }),
    ),
    preset: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'The sub-agent\'s type; default "default" for delegate, "evaluate" for evaluate.',
      }),
    ),
    max_steps: Type.Optional(
      Type.Integer({ minimum: 1, description: "Model calls each sub-agent may make." }),
    ),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, description: "Tokens each sub-agent may use." })),
  },
  { additionalProperties: false },
);

type Args = Static<typeof parameters>;

interface ChildOutcome {
  label: string;
  spec: ChildSpec;
  result: RunResult;
  /** False when it could not start: it has no trace, and its id is never shown. */
  started: boolean;
}

export function createSubagentTool(host: SubagentHost): ToolDefinition<typeof parameters> {
  return {
    name: SUBAGENT_TOOL,
    description:
      "Start sub-agents: runs of their own with a fresh context, their own tools and a hard budget, that " +
      "report back. explore {branches, background?} investigates several things in parallel without changing " +
      "anything; delegate {task, preset?} hands over a self-contained task; evaluate {task, preset?} has an " +
      "independent checker judge work against criteria. Each sub-agent's answer comes back here.",
    parameters,
    // Starting sub-agents changes nothing by itself: each of their calls passes the same
    // permission checks as this run's. Not read-only, so it never runs beside other calls.
    readOnly: false,
    async execute(args, ctx) {
      const parent = host.parentRun(ctx.runId);
      if (!parent)
        throw new ResonError("tool_failed", "subagent works only inside a run of the agent that offers it.");
      const tasks = tasksOf(args);
      const preset = await host.preset(args.preset ?? DEFAULT_PRESET[args.mode]);
      const readOnly = args.mode !== "delegate" || preset.readOnly === true;
      // The goal focused when the call ran keeps the ids of the runs it started.
      const goal = ctx.goals?.focused();
      const start = (index: number): Promise<ChildOutcome> => {
        const runId = ulid();
        const spec: Omit<ChildSpec, "onStarted"> = {
          runId,
          preset,
          task: tasks[index]!.task,
          readOnly,
          ...childLimits(host.caps, parent.budget.remaining(), preset, args),
          signal: ctx.signal,
        };
        const recordStart = () => {
          if (goal) ctx.goals?.recordSubTraces(goal.id, [runId]);
        };
        return runOne(host, parent, ctx, args.mode, spec, tasks[index]!.label, recordStart);
      };
      const concurrency = args.mode === "explore" ? host.caps.concurrency : 1;
      const outcomes = await inPool(tasks.length, concurrency, ctx.signal, start);
      return report(args.mode, outcomes);
    },
  };
}

/** The task of each child, and how the report names it. */
function tasksOf(args: Args): Array<{ task: string; label: string }> {
  if (args.mode === "explore") {
    if (!args.branches || args.branches.length === 0) throw missing("explore", "branches");
    const background = args.background?.trim();
    return args.branches.map((branch, i) => ({
      task: background ? `${branch}\n\nBackground from the agent that started you:\n${background}` : branch,
      label: `branch ${i + 1}/${args.branches!.length} ${JSON.stringify(oneLine(branch, 80))}`,
    }));
  }
  const task = args.task?.trim();
  if (!task) throw missing(args.mode, "task");
  return [{ task, label: `${args.mode} ${JSON.stringify(oneLine(task, 80))}` }];
}

function missing(mode: SubagentMode, field: string): ResonError {
  const example =
    mode === "explore"
      ? '{"mode": "explore", "branches": ["where is X configured?", "who calls Y?"], "background"?: "…"}'
      : `{"mode": "${mode}", "task": "…", "preset"?: "…"}`;
  return new ResonError("tool_invalid_arguments", `subagent ${mode} needs ${field}.`, {
    hint: `Call it as subagent ${example}.`,
    details: { tool: SUBAGENT_TOOL, field },
  });
}

/**
 * A child's limits: the least of what the call asked for, what the parent has left, the
 * preset's own limits and the config caps. Time and steps are always limited.
 */
function childLimits(
  caps: SubagentCaps,
  left: RunLimits,
  preset: Preset,
  args: Args,
): { maxSteps: number; limits: RunLimits } {
  const maxTokens = least(args.max_tokens, left.maxTokens, preset.limits?.maxTokens, caps.maxTokens);
  const maxCostUsd = least(left.maxCostUsd, preset.limits?.maxCostUsd, caps.maxCostUsd);
  const maxWallMs = least(left.maxWallMs, preset.limits?.maxWallMs, caps.maxWallMs) ?? caps.maxWallMs;
  return {
    maxSteps: least(args.max_steps, preset.maxIterations, caps.maxSteps) ?? caps.maxSteps,
    limits: {
      ...(maxTokens === undefined ? {} : { maxTokens }),
      ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
      maxWallMs,
    },
  };
}

function least(...values: Array<number | undefined>): number | undefined {
  const given = values.filter((v): v is number => v !== undefined);
  return given.length === 0 ? undefined : Math.min(...given);
}

async function runOne(
  host: SubagentHost,
  parent: ParentRun,
  ctx: ToolContext,
  mode: SubagentMode,
  child: Omit<ChildSpec, "onStarted">,
  label: string,
  onStarted: () => void,
): Promise<ChildOutcome> {
  let started = false;
  const spec: ChildSpec = {
    ...child,
    // Announced once its trace is saved, so the id the event shows can be looked up.
    onStarted: () => {
      if (started) return;
      started = true;
      onStarted();
      parent.emit({
        type: "sub_trace_started",
        childRunId: child.runId,
        mode,
        preset: child.preset.name,
        task: child.task,
        limits: { maxSteps: child.maxSteps, ...child.limits },
      });
    },
  };
  let result: RunResult;
  try {
    result = await host.runChild(ctx.runId, spec);
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    // It could not start (its preset's model, its workspace): reported like a child that failed.
    result = {
      runId: spec.runId,
      sessionId: "",
      status: "failed",
      finalText: "",
      steps: 0,
      usage: emptyUsage(),
      durationMs: 0,
      error: serializeError(error),
    };
  }
  // After the parent was stopped its stream has ended; the child's own trace says how it ended.
  if (started && !ctx.signal.aborted)
    parent.emit({
      type: "sub_trace_completed",
      childRunId: spec.runId,
      status: result.status,
      usage: result.usage,
      steps: result.steps,
      ...(result.error ? { error: result.error } : {}),
    });
  return { label, spec, result, started };
}

/** Runs `count` jobs, at most `limit` at a time, results in order; none starts after an abort. */
async function inPool<R>(
  count: number,
  limit: number,
  signal: AbortSignal,
  job: (index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      if (signal.aborted) throw new ResonError("aborted", "The run was cancelled.");
      const index = next++;
      results[index] = await job(index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, count)) }, worker));
  return results;
}

/** What the parent model reads: per child its outcome, its use, and its answer (bounded). */
function report(mode: SubagentMode, outcomes: ChildOutcome[]): ToolOutput {
  const sections = outcomes.map(({ label, spec, result, started }) => {
    const head =
      `[${label}] ${started ? `run ${result.runId}` : "not started"} · ${outcomeWords(result.status, result.error)} · ` +
      `${result.steps} step${result.steps === 1 ? "" : "s"} · ` +
      `${groupDigits(result.usage.totalTokens)} tokens` +
      (spec.readOnly ? " · read-only" : "");
    const lines = [head];
    if (result.error?.hint && result.status !== "completed") lines.push(`hint: ${result.error.hint}`);
    const answer = result.finalText.trim();
    if (answer) {
      lines.push(result.status === "completed" ? "answer:" : "last text before it stopped:");
      lines.push(bounded(answer, result.runId));
    } else {
      lines.push("(no answer)");
    }
    return lines.join("\n");
  });
  const memory = outcomes
    .map(
      ({ label, result, started }) =>
        `sub-agent ${started ? `${result.runId} ` : ""}[${label}] ${outcomeWords(result.status, result.error)}: ` +
        oneLine(result.finalText, MEMORY_CHARS),
    )
    .join("\n");
  const output: ToolOutput = { content: sections.join("\n\n"), longTermMemory: memory };
  // An answer written after reading untrusted content carries it: the caller becomes untrusted too.
  const untrusted = outcomes.find((o) => o.result.untrusted && o.result.untrusted.length > 0)?.result;
  if (untrusted?.untrusted?.[0])
    output.untrustedOrigin = `sub-agent ${untrusted.runId}, which read ${describeSource(untrusted.untrusted[0])}`;
  if (!outcomes.some((o) => o.result.status === "completed")) {
    const first = outcomes[0]?.result.error;
    output.error = new ResonError(
      "tool_failed",
      `No sub-agent of this ${mode} call completed${first ? ` (${first.code}: ${first.message.replace(/\.$/, "")})` : ""}.`,
      {
        hint: "Read each sub-agent's outcome above; narrow the task or give it more room before trying again.",
      },
    );
  }
  return output;
}

function outcomeWords(status: RunResult["status"], error: SerializedError | undefined): string {
  if (status === "completed") return "completed";
  const why = error ? `${error.code}: ${oneLine(error.message, 200)}` : status;
  return status === "aborted" ? `aborted (${why})` : `stopped (${why})`;
}

function bounded(text: string, runId: string): string {
  if (text.length <= ANSWER_CHARS) return text;
  return (
    `${text.slice(0, ANSWER_CHARS)}\n… [${text.length - ANSWER_CHARS} more characters: ` +
    `the whole answer is in the sub-agent's trace, reson trace show ${runId}]`
  );
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
