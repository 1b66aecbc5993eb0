// The typed event stream of a run. The CLI, the server, the trace recorder and tests all
// consume these same events; anything a user may want to see or test is one of them. One
// definition in TypeBox: the types below are derived from the schemas, and the server's
// OpenAPI document and SSE stream describe the same shapes `reson run --json` prints.
import { type Static, type TProperties, Type } from "typebox";
import { SerializedErrorSchema } from "./errors.js";
import { RunLimitsSchema, UsageSchema } from "./usage.js";

export const RunStatusSchema = Type.Union(
  [Type.Literal("completed"), Type.Literal("failed"), Type.Literal("aborted")],
  { $id: "RunStatus" },
);
export type RunStatus = Static<typeof RunStatusSchema>;
export const LoopPhaseSchema = Type.Union([
  Type.Literal("prepare"),
  Type.Literal("call_provider"),
  Type.Literal("dispatch_tools"),
  Type.Literal("finalize"),
]);
export type LoopPhase = Static<typeof LoopPhaseSchema>;
export const StopReasonSchema = Type.Union([
  Type.Literal("stop"),
  Type.Literal("length"),
  Type.Literal("toolUse"),
]);
export type StopReason = Static<typeof StopReasonSchema>;

const EventBase = {
  runId: Type.String(),
  step: Type.Integer({ minimum: 0, description: "1-based model call number; 0 before the first step" }),
  ts: Type.Number({ description: "milliseconds since the epoch" }),
};

/** An event's schema: its `type` literal, the common fields, its own; named for OpenAPI components. */
function eventSchema<Name extends string, Properties extends TProperties>(
  type: Name,
  id: string,
  properties: Properties,
  description: string,
) {
  return Type.Object({ type: Type.Literal(type), ...EventBase, ...properties }, { $id: id, description });
}

/** Milliseconds since the epoch after which an unanswered prompt is answered by the timeout. */
const ExpiresAt = Type.Number({
  description: "milliseconds since the epoch; unanswered by then, it times out",
});
const PromptId = Type.String({
  description: "names the prompt in the answer (POST) and in the outcome event",
});
/** Who answered a prompt: a chat user who pressed a button or wrote the answer, or an HTTP client. */
export const AnsweredBySchema = Type.Object(
  {
    channel: Type.String({
      description:
        'where the answer came from: "http" (the API and the web view), "telegram", "slack", "webhook:<name>"',
    }),
    senderId: Type.Optional(Type.String({ description: "the chat platform's id of the user who answered" })),
    displayName: Type.Optional(Type.String({ description: "that user's name as the platform shows it" })),
  },
  { $id: "AnsweredBy" },
);
export type AnsweredBy = Static<typeof AnsweredBySchema>;

export const RunStartEventSchema = eventSchema(
  "run_start",
  "RunStartEvent",
  {
    sessionId: Type.String(),
    resumed: Type.Boolean({
      description: "true when the run continues from a committed state (reson resume)",
    }),
    task: Type.String(),
    provider: Type.String(),
    model: Type.String(),
    workspace: Type.String(),
    maxIterations: Type.Integer(),
    limits: Type.Optional(RunLimitsSchema),
    sandbox: Type.Optional(
      Type.String({
        description: 'what contains the run\'s commands, e.g. "sandbox: enforced (bwrap 0.8.0, …)"',
      }),
    ),
  },
  "A run started or resumed.",
);
export type RunStartEvent = Static<typeof RunStartEventSchema>;

export const StepStartEventSchema = eventSchema("step_start", "StepStartEvent", {}, "A model call begins.");
export type StepStartEvent = Static<typeof StepStartEventSchema>;

export const PhaseEventSchema = eventSchema(
  "phase",
  "PhaseEvent",
  { phase: LoopPhaseSchema },
  "The loop moved to another phase of the step.",
);
export type PhaseEvent = Static<typeof PhaseEventSchema>;

export const TextDeltaEventSchema = eventSchema(
  "text_delta",
  "TextDeltaEvent",
  { delta: Type.String() },
  "Text of the model's answer as it streams (live only over SSE).",
);
export type TextDeltaEvent = Static<typeof TextDeltaEventSchema>;

export const ThinkingDeltaEventSchema = eventSchema(
  "thinking_delta",
  "ThinkingDeltaEvent",
  { delta: Type.String() },
  "The model's reasoning as it streams (live only over SSE).",
);
export type ThinkingDeltaEvent = Static<typeof ThinkingDeltaEventSchema>;

export const ProviderRetryEventSchema = eventSchema(
  "provider_retry",
  "ProviderRetryEvent",
  {
    attempt: Type.Integer({ description: "the attempt that failed, 1-based" }),
    maxAttempts: Type.Integer(),
    delayMs: Type.Number(),
    error: SerializedErrorSchema,
  },
  "A model call failed and will be retried after delayMs.",
);
export type ProviderRetryEvent = Static<typeof ProviderRetryEventSchema>;

export const ToolCallEventSchema = eventSchema(
  "tool_call",
  "ToolCallEvent",
  { toolCallId: Type.String(), name: Type.String(), arguments: Type.Record(Type.String(), Type.Unknown()) },
  "The model called a tool.",
);
export type ToolCallEvent = Static<typeof ToolCallEventSchema>;

export const ToolResultEventSchema = eventSchema(
  "tool_result",
  "ToolResultEvent",
  {
    toolCallId: Type.String(),
    name: Type.String(),
    ok: Type.Boolean(),
    content: Type.String({
      description:
        "the output; for a call that failed without output (denied, interrupted), what the model was told: the error and its hint",
    }),
    durationMs: Type.Number(),
    truncated: Type.Boolean(),
    error: Type.Optional(SerializedErrorSchema),
    permission: Type.Optional(
      Type.Unsafe<object>(
        Type.Object(
          {},
          {
            additionalProperties: true,
            description: "why the call was allowed or denied (which rule from which file, or which mode)",
          },
        ),
      ),
    ),
    longTermMemory: Type.Optional(
      Type.String({
        description:
          "what the model keeps of the result in later steps (at most 4,000 characters), when the tool gives one",
      }),
    ),
    outputOnce: Type.Optional(
      Type.Boolean({
        description:
          "true when the output is shown to the model once; later steps see longTermMemory instead",
      }),
    ),
  },
  "A tool call finished.",
);
export type ToolResultEvent = Static<typeof ToolResultEventSchema>;

export const FilesChangedEventSchema = eventSchema(
  "files_changed",
  "FilesChangedEvent",
  {
    toolCallId: Type.String(),
    name: Type.String(),
    files: Type.Array(
      Type.Object({
        path: Type.String(),
        change: Type.Union([
          Type.Literal("added"),
          Type.Literal("modified"),
          Type.Literal("deleted"),
          Type.Literal("mode"),
          Type.Literal("type"),
        ]),
      }),
      { description: "at most 50; total counts them all" },
    ),
    total: Type.Integer(),
    putBack: Type.Optional(
      Type.Array(Type.String(), {
        description:
          "what the call changed that reson put back as it was (files that steer later runs, changed by a run that had read untrusted content); files is what is left changed",
      }),
    ),
    notPutBack: Type.Optional(
      Type.Array(Type.String(), {
        description:
          "of those, what reson could not put back: it keeps no copy (ignored, too large, a secret)",
      }),
    ),
  },
  "What a tool call changed in the workspace, from the snapshots taken around it (see reson diff).",
);
export type FilesChangedEvent = Static<typeof FilesChangedEventSchema>;

export const StepEndEventSchema = eventSchema(
  "step_end",
  "StepEndEvent",
  {
    stopReason: StopReasonSchema,
    toolCalls: Type.Integer(),
    usage: UsageSchema,
    failed: Type.Boolean({
      description: "true when every tool call of this step failed (feeds the circuit breaker)",
    }),
    text: Type.Optional(
      Type.String({
        description: "the step's final text (at most 4,000 characters, then …); absent if it said none",
      }),
    ),
    goalId: Type.Optional(Type.String({ description: "the goal in focus while the step ran" })),
  },
  "A step ended and was committed.",
);
export type StepEndEvent = Static<typeof StepEndEventSchema>;

/** How full the context of this step's model call is (estimated), before the call. */
export const ContextUsageEventSchema = eventSchema(
  "context_usage",
  "ContextUsageEvent",
  { estTokens: Type.Number(), budgetTokens: Type.Number(), windowTokens: Type.Number() },
  "How full the context of this step's model call is (estimated), before the call.",
);
export type ContextUsageEvent = Static<typeof ContextUsageEventSchema>;

/** Old tool outputs were replaced by their long-term lines to fit the budget. */
export const ContextTrimmedEventSchema = eventSchema(
  "context_trimmed",
  "ContextTrimmedEvent",
  {
    trimmedUpTo: Type.Integer({ description: "history entries before this index now show their short form" }),
    beforeTokens: Type.Number(),
    afterTokens: Type.Number(),
    budgetTokens: Type.Number(),
  },
  "Old tool outputs were replaced by their long-term lines to fit the budget.",
);
export type ContextTrimmedEvent = Static<typeof ContextTrimmedEventSchema>;

/** The oldest part of the history was replaced by a structured summary. */
export const ContextCompactedEventSchema = eventSchema(
  "context_compacted",
  "ContextCompactedEvent",
  {
    reason: Type.Union([Type.Literal("budget"), Type.Literal("overflow"), Type.Literal("manual")]),
    compactedEntries: Type.Integer({ description: "history entries the summary stands for" }),
    beforeTokens: Type.Number(),
    afterTokens: Type.Number(),
    budgetTokens: Type.Number(),
    summaryModel: Type.String(),
    summaryChars: Type.Integer(),
  },
  "The oldest part of the history was replaced by a structured summary.",
);
export type ContextCompactedEvent = Static<typeof ContextCompactedEventSchema>;

type GoalChange = { type: "goal_added" | "goal_closed" | "goal_focused"; [key: string]: unknown };

/** The goal tree changed (a goal added, closed or focused); `tree` is its rendered form. */
export const GoalChangedEventSchema = eventSchema(
  "goal_changed",
  "GoalChangedEvent",
  {
    change: Type.Unsafe<GoalChange>(
      Type.Object(
        {
          type: Type.Union([
            Type.Literal("goal_added"),
            Type.Literal("goal_closed"),
            Type.Literal("goal_focused"),
          ]),
        },
        { additionalProperties: true },
      ),
    ),
    tree: Type.String(),
  },
  "The goal tree changed (a goal added, closed or focused); tree is its rendered form.",
);
export type GoalChangedEvent = Static<typeof GoalChangedEventSchema>;

/**
 * ask_human is waiting for the user's answer to this question (emitted only where the host
 * has a way to ask; `reson run --json --interactive-stdin` reads the answer from stdin). Over
 * HTTP it carries a promptId to answer by and when it expires.
 */
export const HumanQuestionEventSchema = eventSchema(
  "human_question",
  "HumanQuestionEvent",
  {
    toolCallId: Type.String(),
    question: Type.String(),
    choices: Type.Optional(Type.Array(Type.String())),
    promptId: Type.Optional(PromptId),
    expiresAt: Type.Optional(ExpiresAt),
  },
  "ask_human is waiting for the user's answer to this question.",
);
export type HumanQuestionEvent = Static<typeof HumanQuestionEventSchema>;

/** How a question was settled: the user's answer, or nobody answered before it expired. */
export const HumanAnswerEventSchema = eventSchema(
  "human_answer",
  "HumanAnswerEvent",
  {
    promptId: PromptId,
    toolCallId: Type.String(),
    answer: Type.Optional(
      Type.String({ description: "absent when the user declined or the question timed out" }),
    ),
    by: Type.Union([Type.Literal("user"), Type.Literal("timeout")]),
    answeredBy: Type.Optional(AnsweredBySchema),
  },
  "A question of ask_human was answered over HTTP (reson serve and workers), or timed out; the terminal and --interactive-stdin record the answer in the tool result only.",
);
export type HumanAnswerEvent = Static<typeof HumanAnswerEventSchema>;

/** A tool call needs approval and the run waits for it (or for the timeout, which denies). */
export const PermissionRequestEventSchema = eventSchema(
  "permission_request",
  "PermissionRequestEvent",
  {
    toolCallId: Type.String(),
    tool: Type.String(),
    arguments: Type.Record(Type.String(), Type.Unknown(), { description: "with secrets masked" }),
    reason: Type.String({ description: "the rule (and its file) or the mode that asked for approval" }),
    promptId: PromptId,
    expiresAt: ExpiresAt,
    canAllowForSession: Type.Optional(
      Type.Boolean({ description: "whether allow_session would cover later calls like it" }),
    ),
  },
  "A tool call needs approval; the run waits for a decision or the timeout (which denies).",
);
export type PermissionRequestEvent = Static<typeof PermissionRequestEventSchema>;

export const PermissionDecisionSchema = Type.Union(
  [Type.Literal("allow_once"), Type.Literal("allow_session"), Type.Literal("deny")],
  { $id: "PermissionDecision" },
);
export type PermissionDecision = Static<typeof PermissionDecisionSchema>;

/** How an approval was settled. */
export const PermissionDecisionEventSchema = eventSchema(
  "permission_decision",
  "PermissionDecisionEvent",
  {
    promptId: PromptId,
    toolCallId: Type.String(),
    decision: PermissionDecisionSchema,
    note: Type.Optional(
      Type.String({ description: "the user's words to the model, e.g. why it was denied" }),
    ),
    by: Type.Union([Type.Literal("user"), Type.Literal("timeout")]),
    answeredBy: Type.Optional(AnsweredBySchema),
  },
  "An approval was decided by the user, or denied by the timeout.",
);
export type PermissionDecisionEvent = Static<typeof PermissionDecisionEventSchema>;

/** A sub-agent started (subagent tool): its own run, recorded as a trace under this one. */
export const SubTraceStartedEventSchema = eventSchema(
  "sub_trace_started",
  "SubTraceStartedEvent",
  {
    childRunId: Type.String(),
    mode: Type.Union([Type.Literal("explore"), Type.Literal("delegate"), Type.Literal("evaluate")]),
    preset: Type.String(),
    task: Type.String(),
    limits: Type.Object(
      { ...RunLimitsSchema.properties, maxSteps: Type.Integer() },
      { description: "what the child may spend: model calls, and tokens, cost and time where limited" },
    ),
  },
  "A sub-agent started: its own run, recorded as a trace under this one.",
);
export type SubTraceStartedEvent = Static<typeof SubTraceStartedEventSchema>;

/** A sub-agent ended; its usage already counts in this run's. */
export const SubTraceCompletedEventSchema = eventSchema(
  "sub_trace_completed",
  "SubTraceCompletedEvent",
  {
    childRunId: Type.String(),
    status: RunStatusSchema,
    usage: UsageSchema,
    steps: Type.Integer(),
    error: Type.Optional(SerializedErrorSchema),
  },
  "A sub-agent ended; its usage already counts in this run's.",
);
export type SubTraceCompletedEvent = Static<typeof SubTraceCompletedEventSchema>;

/**
 * One read that made a run untrusted: content from outside the user's own files (a web page, an
 * MCP server not marked trusted, a plugin tool, a sub-agent that read such content, a memory an
 * untrusted run left).
 */
export const UntrustedSourceSchema = Type.Object(
  {
    runId: Type.String({ description: "the run whose tool call read it" }),
    toolCallId: Type.String(),
    tool: Type.String(),
    origin: Type.Optional(Type.String({ description: "where the content came from: a URL, a server" })),
  },
  { $id: "UntrustedSource" },
);
export type UntrustedSource = Static<typeof UntrustedSourceSchema>;

export const TrustChangedEventSchema = eventSchema(
  "trust_changed",
  "TrustChangedEvent",
  {
    untrusted: Type.Literal(true),
    via: Type.Union(
      [Type.Literal("read"), Type.Literal("session"), Type.Literal("parent_run"), Type.Literal("message")],
      {
        description:
          "read: a tool call of this run read it; session: an earlier run of the session had; parent_run: the run that started this sub-agent had; message: the task is a chat message from someone other than the owner",
      },
    ),
    source: UntrustedSourceSchema,
    reason: Type.String({ description: "what now needs a rule or the user's approval, and why" }),
  },
  "The run read content from outside the user's files: from here on, egress to hosts no rule names, secret filling, writes that steer later runs and writes into the installed packages need a rule or the user.",
);
export type TrustChangedEvent = Static<typeof TrustChangedEventSchema>;

export const WarningEventSchema = eventSchema(
  "warning",
  "WarningEvent",
  { message: Type.String() },
  "Something the user should know that did not stop the run.",
);
export type WarningEvent = Static<typeof WarningEventSchema>;

/**
 * What a run left in long-term memory (items remembered, outcome counted for the experiences
 * it was shown) and what reflection changed in the rules (by experience id).
 */
const LearningReportProperties = {
  remembered: Type.Integer(),
  outcomeCounted: Type.Integer(),
  added: Type.Array(Type.String()),
  agreed: Type.Array(Type.String()),
  edited: Type.Array(Type.String()),
  removed: Type.Array(Type.String()),
  promoted: Type.Array(Type.String()),
  retired: Type.Array(Type.String()),
  reflected: Type.Boolean(),
  usage: Type.Optional(UsageSchema),
  untrusted: Type.Optional(
    Type.Boolean({
      description:
        "the run read untrusted content: its answer is remembered as quoted data, its rules stay candidates",
    }),
  ),
};
export const LearningReportSchema = Type.Object(LearningReportProperties);
export type LearningReport = Static<typeof LearningReportSchema>;

/** Just before run_end (which stays the last event): what learning from the run changed. */
export const LearningEventSchema = eventSchema(
  "learning",
  "LearningEvent",
  LearningReportProperties,
  "What learning from the run changed (just before run_end).",
);
export type LearningEvent = Static<typeof LearningEventSchema>;

/** How a run ended: carried by run_end and returned by Agent.run. */
const RunSummaryProperties = {
  status: RunStatusSchema,
  finalText: Type.String({ description: "the model's final answer; on failure, the last text it produced" }),
  steps: Type.Integer(),
  usage: UsageSchema,
  durationMs: Type.Number(),
  error: Type.Optional(SerializedErrorSchema),
  untrusted: Type.Optional(
    Type.Array(UntrustedSourceSchema, {
      description: "the reads that made the run untrusted (absent: it read none)",
    }),
  ),
};
export const RunSummarySchema = Type.Object(RunSummaryProperties);
export type RunSummary = Static<typeof RunSummarySchema>;

export const RunEndEventSchema = eventSchema(
  "run_end",
  "RunEndEvent",
  RunSummaryProperties,
  "The run ended; always the last event of a run.",
);
export type RunEndEvent = Static<typeof RunEndEventSchema>;

const PluginScopeSchema = Type.Union([Type.Literal("user"), Type.Literal("project")]);
const PluginProblemSchema = Type.Object({
  plugin: Type.String(),
  message: Type.String({ description: "what went wrong and what to do about it" }),
});

export const PluginsLoadedEventSchema = eventSchema(
  "plugins_loaded",
  "PluginsLoadedEvent",
  {
    plugins: Type.Array(
      Type.Object({
        name: Type.String(),
        version: Type.Optional(Type.String()),
        scope: PluginScopeSchema,
        tools: Type.Array(Type.String(), { description: "the tools it added" }),
      }),
    ),
    errors: Type.Array(PluginProblemSchema, {
      description: "plugins (or tools of theirs) left out: the run goes on without them",
    }),
    untrusted: Type.Array(
      Type.Object({
        plugin: Type.String(),
        command: Type.String({ description: "what trusts it" }),
        scope: Type.Optional(PluginScopeSchema),
        reason: Type.Optional(Type.String({ description: "why it is not trusted (what changed)" })),
      }),
      {
        description:
          "plugins not loaded because the user has not trusted them in this form (a project's, or a user's folder outside $RESON_HOME)",
      },
    ),
  },
  "Right after run_start in a run with plugins: which loaded, with what tools, and which did not and why.",
);
export type PluginsLoadedEvent = Static<typeof PluginsLoadedEventSchema>;
/** What a run says of its plugins (the plugins_loaded event without the common fields). */
export type PluginsReport = Omit<PluginsLoadedEvent, "type" | "runId" | "step" | "ts">;

export const PluginErrorEventSchema = eventSchema(
  "plugin_error",
  "PluginErrorEvent",
  {
    plugin: Type.String(),
    hook: Type.Union([
      Type.Literal("transformContext"),
      Type.Literal("beforeToolCall"),
      Type.Literal("afterToolCall"),
      Type.Literal("event"),
    ]),
    message: Type.String(),
  },
  "A plugin's hook or event listener threw or timed out; the run went on as if it had not been there.",
);
export type PluginErrorEvent = Static<typeof PluginErrorEventSchema>;

export const ResonEventSchema = Type.Union(
  [
    RunStartEventSchema,
    StepStartEventSchema,
    PhaseEventSchema,
    TextDeltaEventSchema,
    ThinkingDeltaEventSchema,
    ProviderRetryEventSchema,
    ToolCallEventSchema,
    ToolResultEventSchema,
    FilesChangedEventSchema,
    StepEndEventSchema,
    WarningEventSchema,
    TrustChangedEventSchema,
    LearningEventSchema,
    ContextUsageEventSchema,
    ContextTrimmedEventSchema,
    ContextCompactedEventSchema,
    GoalChangedEventSchema,
    SubTraceStartedEventSchema,
    SubTraceCompletedEventSchema,
    HumanQuestionEventSchema,
    HumanAnswerEventSchema,
    PermissionRequestEventSchema,
    PermissionDecisionEventSchema,
    PluginsLoadedEventSchema,
    PluginErrorEventSchema,
    RunEndEventSchema,
  ],
  { $id: "ResonEvent" },
);
export type ResonEvent = Static<typeof ResonEventSchema>;

export type ResonEventType = ResonEvent["type"];
export type EventListener = (event: ResonEvent) => void;

/** Distributes the events of a run to every subscriber; a throwing listener cannot break the run. */
export class EventBus {
  private readonly listeners = new Set<EventListener>();

  /** `shown` makes each event what every listener gets (a run's secrets masked in it). */
  constructor(private readonly shown?: (event: ResonEvent) => ResonEvent) {}

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(emitted: ResonEvent): void {
    const event = this.shown ? this.shown(emitted) : emitted;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        process.emitWarning(`reson: an event listener threw on ${event.type}: ${String(error)}`);
      }
    }
  }
}
