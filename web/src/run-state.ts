// A run as the page shows it, folded from its numbered events: each seq is applied once, so a
// stream that reconnects (EventSource sends Last-Event-ID) or a page that reloads and reads
// from the start ends with the same state, nothing missing or doubled.
import type { RewindView } from "./rewind-box.js";
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  costUsd: number;
  /** Tokens of calls whose price is unknown: their cost is not in costUsd. */
  unpricedTokens?: number;
}

export interface PromptView {
  promptId: string;
  /** Answers go to /runs/:id/approvals|questions/:toolCallId. */
  toolCallId: string;
  kind: "permission" | "question";
  text: string;
  choices?: string[];
  canAllowForSession?: boolean;
  expiresAt?: number;
  outcome?: string;
  /** The tool and its arguments (secrets masked) of an approval. */
  tool?: string;
  arguments?: Record<string, unknown>;
  /** What the server holds for it (GET /runs/:id/prompts): a file change's before and after. */
  payload?: PromptPayload;
}

/** A pending prompt as the store keeps it: for a file tool, the change it would make. */
export interface PromptPayload {
  tool?: string;
  reason?: string;
  rule?: string;
  arguments?: Record<string, unknown>;
  change?:
    | {
        ok: true;
        change: {
          path: string;
          before: string | null;
          after: string;
          replacements?: number;
          beforeUnreadable?: string;
        };
      }
    | { ok: false; message: string };
}

export interface ToolView {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  startedAt: number;
  ok?: boolean;
  content?: string;
  /** The result's long-term line: what later steps see once the output is shown once or trimmed. */
  longTermMemory?: string;
  /** The model sees the output in full once; later steps see longTermMemory instead. */
  outputOnce?: boolean;
  durationMs?: number;
  error?: { code: string; message: string };
  permission?: Record<string, unknown>;
  prompt?: PromptView;
  /** What the call changed in the workspace (files_changed). */
  files?: { files: Array<{ path: string; change: string }>; total: number };
}

/** What one model call saw, from the run's committed steps (GET /runs/:id/trace). */
export interface ContextManifest {
  messages: number;
  trimmedUpTo: number;
  compactions: number;
  goal?: string | null;
  sections: Array<{ section: string; source?: string | null; injectedChars: number; truncated?: boolean }>;
}

export interface StepView {
  step: number;
  startedAt: number;
  endedAt?: number;
  stopReason?: string;
  usage?: Usage;
  /** What the model said in this step (step_end, at most 4,000 characters). */
  text?: string;
  /** The goal in focus while the step ran (step_end). */
  goalId?: string;
  context?: { estTokens: number; budgetTokens: number; windowTokens: number };
  manifest?: ContextManifest;
  /** The context was compacted (or trimmed) before this step's call. */
  compacted?: boolean;
  notes: string[];
  tools: ToolView[];
}

export interface GoalView {
  id: string;
  title: string;
  status: string;
  parentId: string | null;
  /** Steps that worked while it was in focus, or added, focused or closed it. */
  steps: number[];
}

export interface ChildView {
  runId: string;
  /** The parent's step whose subagent call started it. */
  step: number;
  mode: string;
  preset: string;
  task: string;
  status?: string;
  steps?: number;
  usage?: Usage;
}

export interface RunModel {
  runId: string;
  sessionId?: string;
  task?: string;
  provider?: string;
  model?: string;
  startedAt?: number;
  goals: string;
  steps: StepView[];
  children: ChildView[];
  /** Prompts not tied to a tool call shown in the timeline (questions). */
  questions: PromptView[];
  /** What the run said besides its steps: its plugins, plugin failures, warnings. */
  notices: string[];
  end?: {
    status: string;
    finalText: string;
    steps: number;
    usage: Usage;
    durationMs: number;
    error?: { code: string; message: string };
  };
  lastSeq: number;
  /** The run as the API sees it (a run that failed before it started has no events). */
  state?: { status: string; error: { code: string; message: string } | null };
  /** A rewind of the run being looked at from the page (rewind-box.ts). */
  rewind?: RewindView;
  /** The run that started this one (a sub-agent's parent). */
  parentRunId?: string;
  /** What the step in flight says so far (live only, never stored). */
  live?: { step: number; text: string; thinking: string };
  /** The goals by id, in the order added, each with the steps that served it. */
  goalList: Map<string, GoalView>;
  focusedGoal: string | null;
  /** Sub-agent runs read whole once they ended, for the timeline's nested bars. */
  childRuns: Map<string, RunModel>;
  /** The steps and tool calls by number and id: each event finds its own without a scan. */
  index: { steps: Map<number, StepView>; tools: Map<string, ToolView> };
}

type Event = { type: string; seq?: number; step: number; ts: number; [key: string]: unknown };

export function emptyRun(runId: string): RunModel {
  return {
    runId,
    goals: "",
    steps: [],
    children: [],
    questions: [],
    notices: [],
    lastSeq: 0,
    goalList: new Map(),
    focusedGoal: null,
    childRuns: new Map(),
    index: { steps: new Map(), tools: new Map() },
  };
}

function stepOf(run: RunModel, event: Event): StepView {
  const known = run.index.steps.get(event.step);
  if (known) return known;
  const step: StepView = { step: event.step, startedAt: event.ts, notes: [], tools: [] };
  run.index.steps.set(step.step, step);
  // Steps come in order: sort only when one arrives out of it.
  const last = run.steps[run.steps.length - 1];
  run.steps.push(step);
  if (last && last.step > step.step) run.steps.sort((a, b) => a.step - b.step);
  return step;
}

/** A run's step by number, if it has begun. */
export function stepNumbered(run: RunModel, step: number): StepView | undefined {
  return run.index.steps.get(step);
}

function toolOf(run: RunModel, id: unknown): ToolView | undefined {
  return run.index.tools.get(String(id));
}

/** Applies one event; a numbered event already applied is ignored. True when it changed the run. */
export function applyEvent(run: RunModel, event: Event): boolean {
  if (event.seq !== undefined) {
    if (event.seq <= run.lastSeq) return false;
    run.lastSeq = event.seq;
  }
  switch (event.type) {
    case "run_start":
      run.sessionId = String(event.sessionId);
      run.task = String(event.task);
      run.provider = String(event.provider);
      run.model = String(event.model);
      run.startedAt ??= event.ts;
      run.end = undefined;
      return true;
    case "step_start":
      stepOf(run, event);
      if (run.focusedGoal) served(run, run.focusedGoal, event.step);
      run.live = { step: event.step, text: "", thinking: "" };
      return true;
    case "text_delta":
    case "thinking_delta": {
      // Live frames carry no seq: a step already ended (or a later one begun) drops them.
      if (run.end || stepNumbered(run, event.step)?.endedAt) return false;
      if (!run.live || run.live.step !== event.step) run.live = { step: event.step, text: "", thinking: "" };
      if (event.type === "text_delta") run.live.text += String(event.delta);
      else run.live.thinking += String(event.delta);
      return true;
    }
    case "context_usage":
      stepOf(run, event).context = event as unknown as StepView["context"];
      return true;
    case "context_trimmed":
      stepOf(run, event).compacted = true;
      stepOf(run, event).notes.push(`context trimmed: ${event.beforeTokens} → ${event.afterTokens} tokens`);
      return true;
    case "context_compacted":
      stepOf(run, event).compacted = true;
      stepOf(run, event).notes.push(
        `context compacted (${event.reason}) by ${event.summaryModel}: ${event.beforeTokens} → ${event.afterTokens} tokens`,
      );
      return true;
    case "provider_retry":
      stepOf(run, event).notes.push(
        `model call failed (${(event.error as { code: string }).code}), retry ${event.attempt}/${event.maxAttempts}`,
      );
      return true;
    case "step_end": {
      const step = stepOf(run, event);
      step.endedAt = event.ts;
      step.stopReason = String(event.stopReason);
      step.usage = event.usage as Usage;
      if (typeof event.text === "string") step.text = event.text;
      if (typeof event.goalId === "string") {
        step.goalId = event.goalId;
        served(run, event.goalId, step.step);
      }
      if (run.live?.step === step.step) run.live = undefined;
      return true;
    }
    case "tool_call": {
      const tool: ToolView = {
        id: String(event.toolCallId),
        name: String(event.name),
        arguments: event.arguments as Record<string, unknown>,
        startedAt: event.ts,
      };
      stepOf(run, event).tools.push(tool);
      run.index.tools.set(tool.id, tool);
      return true;
    }
    case "tool_result": {
      const tool = toolOf(run, event.toolCallId);
      if (!tool) return false;
      tool.ok = Boolean(event.ok);
      tool.content = String(event.content);
      if (typeof event.longTermMemory === "string") tool.longTermMemory = event.longTermMemory;
      tool.outputOnce = event.outputOnce === true;
      tool.durationMs = Number(event.durationMs);
      tool.error = event.error as ToolView["error"];
      tool.permission = event.permission as ToolView["permission"];
      return true;
    }
    case "files_changed": {
      const tool = toolOf(run, event.toolCallId);
      if (!tool) return false;
      tool.files = {
        files: event.files as Array<{ path: string; change: string }>,
        total: Number(event.total),
      };
      return true;
    }
    case "permission_request": {
      const tool = toolOf(run, event.toolCallId);
      const prompt: PromptView = {
        promptId: String(event.promptId),
        toolCallId: String(event.toolCallId),
        kind: "permission",
        text: `${event.tool} needs approval: ${event.reason}`,
        tool: String(event.tool),
        arguments: (event.arguments ?? {}) as Record<string, unknown>,
        canAllowForSession: Boolean(event.canAllowForSession),
        expiresAt: Number(event.expiresAt),
      };
      if (tool) tool.prompt = prompt;
      else run.questions.push(prompt);
      return true;
    }
    case "permission_decision": {
      const tool = toolOf(run, event.toolCallId);
      const prompt = tool?.prompt ?? run.questions.find((q) => q.promptId === event.promptId);
      if (prompt) prompt.outcome = `${event.decision} by ${event.by}`;
      return true;
    }
    case "human_question":
      run.questions.push({
        promptId: String(event.promptId ?? event.toolCallId),
        toolCallId: String(event.toolCallId),
        kind: "question",
        text: String(event.question),
        ...(Array.isArray(event.choices) ? { choices: event.choices as string[] } : {}),
        ...(event.expiresAt ? { expiresAt: Number(event.expiresAt) } : {}),
      });
      return true;
    case "human_answer": {
      const question = run.questions.find(
        (q) => q.kind === "question" && (q.promptId === event.promptId || q.toolCallId === event.toolCallId),
      );
      if (question)
        question.outcome =
          event.answer === undefined ? `no answer (${event.by})` : `answered: ${event.answer}`;
      return true;
    }
    case "goal_changed":
      run.goals = String(event.tree);
      applyGoalChange(run, event);
      return true;
    case "sub_trace_started":
      run.children.push({
        runId: String(event.childRunId),
        step: event.step,
        mode: String(event.mode),
        preset: String(event.preset),
        task: String(event.task),
      });
      return true;
    case "sub_trace_completed": {
      const child = run.children.find((c) => c.runId === event.childRunId);
      if (child) {
        child.status = String(event.status);
        child.steps = Number(event.steps);
        child.usage = event.usage as Usage;
      }
      return true;
    }
    case "plugins_loaded":
      run.notices.push(...pluginNotices(event));
      return true;
    case "plugin_error":
      run.notices.push(`plugin ${event.plugin} (${event.hook}): ${event.message}`);
      return true;
    case "warning":
      run.notices.push(`warning: ${event.message}`);
      return true;
    case "run_end":
      run.end = event as unknown as RunModel["end"];
      run.live = undefined;
      return true;
    default:
      return false;
  }
}

function served(run: RunModel, goalId: string, step: number): void {
  const goal = run.goalList.get(goalId);
  // Steps arrive in order: the last one is the one to compare with, mostly.
  if (goal && goal.steps[goal.steps.length - 1] !== step && !goal.steps.includes(step)) goal.steps.push(step);
}

function applyGoalChange(run: RunModel, event: Event): void {
  const change = (event.change ?? {}) as {
    type?: string;
    goal?: { id?: string; title?: string; status?: string; parentId?: string | null };
    goalId?: string | null;
  };
  const goal = change.goal;
  if ((change.type === "goal_added" || change.type === "goal_closed") && goal?.id) {
    const known = run.goalList.get(goal.id);
    run.goalList.set(goal.id, {
      id: goal.id,
      title: String(goal.title ?? goal.id),
      status: String(goal.status ?? "open"),
      parentId: goal.parentId ?? null,
      steps: known?.steps ?? [],
    });
    served(run, goal.id, event.step);
  }
  if (change.type === "goal_focused") {
    run.focusedGoal = change.goalId ?? null;
    if (run.focusedGoal) served(run, run.focusedGoal, event.step);
  }
}

type PluginsLoaded = {
  plugins?: Array<{ name: string; version?: string; scope: string; tools: string[] }>;
  errors?: Array<{ plugin: string; message: string }>;
  untrusted?: Array<{ plugin: string; command: string; scope?: string; reason?: string }>;
};

function pluginNotices(event: Event): string[] {
  const report = event as unknown as PluginsLoaded;
  return [
    ...(report.plugins ?? []).map(
      (p) =>
        `plugin ${p.name}${p.version ? ` ${p.version}` : ""} (${p.scope})${p.tools.length > 0 ? `: ${p.tools.join(", ")}` : ""}`,
    ),
    ...(report.errors ?? []).map((e) => `plugin ${e.plugin} left out: ${e.message}`),
    ...(report.untrusted ?? []).map(
      (u) =>
        `${u.scope ?? "project"} plugin ${u.plugin} not trusted${u.reason ? ` (${u.reason})` : ""}: ${u.command}`,
    ),
  ];
}

/** The event types a run's stream may carry (EventSource needs a listener per name). */
export const EVENT_TYPES = [
  "run_start",
  "step_start",
  "context_usage",
  "context_trimmed",
  "context_compacted",
  "provider_retry",
  "step_end",
  "tool_call",
  "tool_result",
  "files_changed",
  "permission_request",
  "permission_decision",
  "human_question",
  "human_answer",
  "goal_changed",
  "sub_trace_started",
  "sub_trace_completed",
  "warning",
  "learning",
  "plugins_loaded",
  "plugin_error",
  "run_end",
  "text_delta",
  "thinking_delta",
];

/** Tokens in and out and cost: what the run header adds up. */
export type Spent = Pick<Usage, "input" | "output" | "costUsd" | "totalTokens"> & { unpricedTokens?: number };

const NOTHING_SPENT: Spent = { input: 0, output: 0, costUsd: 0, totalTokens: 0, unpricedTokens: 0 };

function plus(a: Spent, b: Spent): Spent {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    costUsd: a.costUsd + b.costUsd,
    totalTokens: a.totalTokens + b.totalTokens,
    unpricedTokens: (a.unpricedTokens ?? 0) + (b.unpricedTokens ?? 0),
  };
}

/**
 * What the run has spent, its sub-agents included (as its budget counts it), and the part of
 * that its sub-agents spent (undefined while none has finished). Once the run ended, its own
 * total is the one it reported, which also holds what compactions cost.
 */
export function runSpending(run: RunModel): { total: Spent; subagents: Spent | undefined } {
  const finished = run.children.filter((child) => child.usage !== undefined);
  const subagents =
    finished.length === 0
      ? undefined
      : finished.reduce((sum, child) => plus(sum, child.usage!), NOTHING_SPENT);
  const own = run.steps.reduce((sum, step) => (step.usage ? plus(sum, step.usage) : sum), NOTHING_SPENT);
  return { total: run.end?.usage ?? plus(own, subagents ?? NOTHING_SPENT), subagents };
}

/** Attaches the context manifests of committed steps (GET /runs/:id/trace's steps). */
export function applyManifests(run: RunModel, steps: unknown[]): void {
  for (const record of steps as Array<{
    kind?: string;
    data?: { step?: number; context?: ContextManifest };
  }>) {
    if (record.kind !== "model_call" || !record.data?.context || record.data.step === undefined) continue;
    const step = stepNumbered(run, record.data.step);
    if (step) step.manifest = record.data.context;
  }
}
