// The typed event stream of a run. The CLI, the server, the trace recorder and tests all
// consume these same events; anything a user may want to see or test is one of them.
import type { SerializedError } from "./errors.js";
import type { RunLimits, Usage } from "./usage.js";

export type RunStatus = "completed" | "failed" | "aborted";
export type LoopPhase = "prepare" | "call_provider" | "dispatch_tools" | "finalize";
export type StopReason = "stop" | "length" | "toolUse";

interface EventBase {
  runId: string;
  /** 1-based model call number; 0 before the first step. */
  step: number;
  /** Milliseconds since the epoch. */
  ts: number;
}

export interface RunStartEvent extends EventBase {
  type: "run_start";
  sessionId: string;
  /** True when the run continues from a committed state (reson resume). */
  resumed: boolean;
  task: string;
  provider: string;
  model: string;
  workspace: string;
  maxIterations: number;
  /** The run's hard limits (tokens, cost, wall time), where it has any. */
  limits?: RunLimits;
  /** One line on what contains the run's commands, e.g. "sandbox: enforced (bwrap 0.8.0, …)". */
  sandbox?: string;
}

export interface StepStartEvent extends EventBase {
  type: "step_start";
}

export interface PhaseEvent extends EventBase {
  type: "phase";
  phase: LoopPhase;
}

export interface TextDeltaEvent extends EventBase {
  type: "text_delta";
  delta: string;
}

export interface ThinkingDeltaEvent extends EventBase {
  type: "thinking_delta";
  delta: string;
}

export interface ProviderRetryEvent extends EventBase {
  type: "provider_retry";
  /** The attempt that failed, 1-based. */
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  error: SerializedError;
}

export interface ToolCallEvent extends EventBase {
  type: "tool_call";
  toolCallId: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface ToolResultEvent extends EventBase {
  type: "tool_result";
  toolCallId: string;
  name: string;
  ok: boolean;
  content: string;
  durationMs: number;
  truncated: boolean;
  error?: SerializedError;
  /** Why the call was allowed or denied (which rule from which file, or which mode default). */
  permission?: object;
}

export interface StepEndEvent extends EventBase {
  type: "step_end";
  stopReason: StopReason;
  toolCalls: number;
  usage: Usage;
  /** True when every tool call of this step failed (feeds the circuit breaker). */
  failed: boolean;
}

/** How full the context of this step's model call is (estimated), before the call. */
export interface ContextUsageEvent extends EventBase {
  type: "context_usage";
  estTokens: number;
  budgetTokens: number;
  windowTokens: number;
}

/** Old tool outputs were replaced by their long-term lines to fit the budget. */
export interface ContextTrimmedEvent extends EventBase {
  type: "context_trimmed";
  /** History entries before this index now show their short form. */
  trimmedUpTo: number;
  beforeTokens: number;
  afterTokens: number;
  budgetTokens: number;
}

/** The oldest part of the history was replaced by a structured summary. */
export interface ContextCompactedEvent extends EventBase {
  type: "context_compacted";
  reason: "budget" | "overflow" | "manual";
  /** History entries the summary stands for. */
  compactedEntries: number;
  beforeTokens: number;
  afterTokens: number;
  budgetTokens: number;
  summaryModel: string;
  summaryChars: number;
}

/** The goal tree changed (a goal added, closed or focused); `tree` is its rendered form. */
export interface GoalChangedEvent extends EventBase {
  type: "goal_changed";
  change: { type: "goal_added" | "goal_closed" | "goal_focused"; [key: string]: unknown };
  tree: string;
}

/**
 * ask_human is waiting for the user's answer to this question (emitted only where the host
 * has a way to ask; `reson run --json --interactive-stdin` reads the answer from stdin).
 */
export interface HumanQuestionEvent extends EventBase {
  type: "human_question";
  toolCallId: string;
  question: string;
  choices?: string[];
}

/** A sub-agent started (subagent tool): its own run, recorded as a trace under this one. */
export interface SubTraceStartedEvent extends EventBase {
  type: "sub_trace_started";
  childRunId: string;
  mode: "explore" | "delegate" | "evaluate";
  preset: string;
  task: string;
  /** What the child may spend: model calls, and tokens, cost and time where limited. */
  limits: RunLimits & { maxSteps: number };
}

/** A sub-agent ended; its usage already counts in this run's. */
export interface SubTraceCompletedEvent extends EventBase {
  type: "sub_trace_completed";
  childRunId: string;
  status: RunStatus;
  usage: Usage;
  steps: number;
  /** Why it stopped, when it did not complete (budget_exceeded, max_iterations, aborted, …). */
  error?: SerializedError;
}

export interface WarningEvent extends EventBase {
  type: "warning";
  message: string;
}

/**
 * What a run left in long-term memory (items remembered, outcome counted for the experiences
 * it was shown) and what reflection changed in the rules (by experience id).
 */
export interface LearningReport {
  remembered: number;
  outcomeCounted: number;
  added: string[];
  agreed: string[];
  edited: string[];
  removed: string[];
  promoted: string[];
  retired: string[];
  reflected: boolean;
  /** Tokens the reflection call used. */
  usage?: Usage;
}

/** Just before run_end (which stays the last event): what learning from the run changed. */
export interface LearningEvent extends EventBase, LearningReport {
  type: "learning";
}

/** How a run ended: carried by run_end and returned by Agent.run. */
export interface RunSummary {
  status: RunStatus;
  /** The model's final answer; on failure, the last text it produced. */
  finalText: string;
  steps: number;
  usage: Usage;
  durationMs: number;
  error?: SerializedError;
}

export interface RunEndEvent extends EventBase, RunSummary {
  type: "run_end";
}

export type ResonEvent =
  | RunStartEvent
  | StepStartEvent
  | PhaseEvent
  | TextDeltaEvent
  | ThinkingDeltaEvent
  | ProviderRetryEvent
  | ToolCallEvent
  | ToolResultEvent
  | StepEndEvent
  | WarningEvent
  | LearningEvent
  | ContextUsageEvent
  | ContextTrimmedEvent
  | ContextCompactedEvent
  | GoalChangedEvent
  | SubTraceStartedEvent
  | SubTraceCompletedEvent
  | HumanQuestionEvent
  | RunEndEvent;

export type ResonEventType = ResonEvent["type"];
export type EventListener = (event: ResonEvent) => void;

/** Distributes the events of a run to every subscriber; a throwing listener cannot break the run. */
export class EventBus {
  private readonly listeners = new Set<EventListener>();

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: ResonEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        process.emitWarning(`reson: an event listener threw on ${event.type}: ${String(error)}`);
      }
    }
  }
}
