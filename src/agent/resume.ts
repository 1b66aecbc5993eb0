// Rebuilds a run from what the store committed: the session's turns become the history, the
// checkpoint gives the counters, and the tool-call steps of an unfinished step say which
// results were saved (reuse), which calls started but never saved (report as interrupted,
// unless read-only: run again) and which never started (run).

import { type HistoryEntry, turnsToHistory } from "../context/index.js";
import { ResonError } from "../core/errors.js";
import type { AssistantMessage, ToolCall } from "../providers/index.js";
import type { StepRecord, Store, TraceRecord, TurnRecord } from "../store/index.js";
import type { ToolRegistry, ToolResult } from "../tools/index.js";
import type { LoopStart, PendingStep } from "./loop-start.js";
import type { LoopSnapshot } from "./recorder.js";

export interface ResumePlan {
  start: Extract<LoopStart, { kind: "resume" }>;
  nextSeq: number;
  nextStepSeq: number;
  modelStepId?: string;
  toolStepIds: Map<string, string>;
  /** Learning from the run's current ending is done (see learnedFromEnding). */
  learned: boolean;
}

interface ToolStepData {
  toolCallId: string;
  result?: ToolResult;
}

function toolCallsOf(message: AssistantMessage): ToolCall[] {
  return message.content.filter((block): block is ToolCall => block.type === "toolCall");
}

function lastAssistantIndex(entries: readonly HistoryEntry[]): number {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i]!.message.role === "assistant") return i;
  return -1;
}

/**
 * Results for tool calls that never got one, for runs that are over (a crashed run followed by
 * a new task in the same session): the provider refuses a tool call without a result.
 */
export function closeOpenToolCalls(entries: HistoryEntry[]): HistoryEntry[] {
  const out: HistoryEntry[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    out.push(entry);
    if (entry.message.role !== "assistant") continue;
    const answered = new Set<string>();
    let j = i + 1;
    for (; j < entries.length && entries[j]!.message.role === "toolResult"; j++) {
      const message = entries[j]!.message;
      if (message.role === "toolResult") answered.add(message.toolCallId);
      out.push(entries[j]!);
    }
    for (const call of toolCallsOf(entry.message)) {
      if (answered.has(call.id)) continue;
      out.push({
        step: entry.step,
        message: {
          role: "toolResult",
          toolCallId: call.id,
          toolName: call.name,
          content: [
            { type: "text", text: "Error [tool_interrupted]: the run stopped before this call finished." },
          ],
          isError: true,
          timestamp: entry.message.timestamp,
        },
      });
    }
    i = j - 1;
  }
  return out;
}

/**
 * A session's turns, all of them and as its conversation. Sub-agent runs write their turns into
 * the session of the run that started them, tagged with their own trace id: they are kept for
 * the record (trace show, export) but are no part of what the session's runs see.
 */
export async function conversationTurns(
  store: Store,
  sessionId: string,
): Promise<{ all: TurnRecord[]; conversation: TurnRecord[] }> {
  const [all, traces] = await Promise.all([
    store.turns.list(sessionId),
    store.traces.listBySession(sessionId),
  ]);
  const subagents = new Set(traces.filter((t) => t.parentTraceId !== null).map((t) => t.id));
  if (subagents.size === 0) return { all, conversation: all };
  return { all, conversation: all.filter((t) => t.traceId === null || !subagents.has(t.traceId)) };
}

/**
 * Whether the run was learned from since its last model call: a run resumed after that learns
 * nothing again, while one that goes on (a failed run given more room) learns from its new end.
 */
export function learnedFromEnding(steps: readonly StepRecord[]): boolean {
  for (let i = steps.length - 1; i >= 0; i--) {
    const kind = steps[i]!.kind;
    if (kind === "learning") return true;
    if (kind === "model_call") return false;
  }
  return false;
}

export async function planResume(store: Store, trace: TraceRecord, tools: ToolRegistry): Promise<ResumePlan> {
  const [session, checkpoint, steps] = await Promise.all([
    conversationTurns(store, trace.sessionId),
    store.checkpoints.get(trace.id),
    store.steps.list(trace.id),
  ]);
  // A sub-agent's conversation is its own turns alone.
  const turns =
    trace.parentTraceId === null ? session.conversation : session.all.filter((t) => t.traceId === trace.id);
  if (!checkpoint) {
    throw new ResonError("not_found", `Run ${trace.id} has no checkpoint to resume from.`, {
      hint: "It was started by an older reson or its data was removed; start it again with `reson run`.",
    });
  }
  const snapshot = checkpoint.state as LoopSnapshot;
  const own = (turn: TurnRecord) => turn.traceId === trace.id;
  const firstOwn = turns.findIndex(own);
  const earlier = closeOpenToolCalls(turnsToHistory(turns.slice(0, Math.max(firstOwn, 0))));
  const current = turnsToHistory(firstOwn < 0 ? [] : turns.slice(firstOwn), trace.id);
  const history = [...earlier, ...current];
  const nextSeq = session.all.length === 0 ? 0 : session.all.at(-1)!.seq + 1;
  const nextStepSeq = steps.length === 0 ? 0 : steps.at(-1)!.seq + 1;

  const lastIndex = lastAssistantIndex(current);
  const plan: ResumePlan = {
    start: { kind: "resume", history, taskIndex: earlier.length, snapshot, finished: false },
    nextSeq,
    nextStepSeq,
    toolStepIds: new Map(),
    learned: learnedFromEnding(steps),
  };
  if (lastIndex < 0) return plan;
  const last = current[lastIndex]!.message as AssistantMessage;
  const calls = toolCallsOf(last);
  if (calls.length === 0) {
    plan.start.finished = true;
    return plan;
  }
  const answered = current.slice(lastIndex + 1).filter((e) => e.message.role === "toolResult").length;
  if (answered >= calls.length) return plan;

  // Mid-step: the assistant turn was committed, its results were not (all of them are
  // committed together at the end of the step), so the partial turns are not in history.
  plan.start.history = history.slice(0, history.length - answered);
  const modelStep = steps.findLast((s) => s.kind === "model_call");
  const toolSteps = steps.filter((s) => s.kind === "tool_call" && s.parentId === modelStep?.id);
  const pending: PendingStep = { message: last, toolCalls: calls, done: new Map(), interrupted: new Set() };
  for (const step of toolSteps) classifyToolStep(step, pending, tools);
  if (modelStep) plan.modelStepId = modelStep.id;
  for (const step of toolSteps) plan.toolStepIds.set((step.data as ToolStepData).toolCallId, step.id);
  plan.start.pending = pending;
  return plan;
}

function classifyToolStep(step: StepRecord, pending: PendingStep, tools: ToolRegistry): void {
  const data = step.data as ToolStepData & { name: string };
  if ((step.status === "done" || step.status === "failed") && data.result) {
    pending.done.set(data.toolCallId, data.result);
    return;
  }
  if (step.status === "interrupted") {
    pending.interrupted.add(data.toolCallId);
    return;
  }
  if (step.status === "running" && tools.get(data.name)?.readOnly !== true)
    pending.interrupted.add(data.toolCallId);
}
