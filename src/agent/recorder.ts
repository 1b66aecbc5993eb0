// Makes a run durable: every phase of the loop is committed to the store as one atomic batch,
// so a run killed at any moment resumes from its last committed state (resume.ts) without
// losing a turn or repeating a tool call whose result was saved. Each batch is fenced by the
// run's lease: a process that lost the run writes nothing more.

import type { Compaction } from "../context/index.js";
import type { SerializedError } from "../core/errors.js";
import type { RunStatus, UntrustedSource } from "../core/events.js";
import { ulid } from "../core/ids.js";
import { redactDeep } from "../core/redactor.js";
import { addUsage, type RunLimits, type Usage } from "../core/usage.js";
import type { AssistantMessage, ImageContent, ToolResultMessage } from "../providers/index.js";
import type {
  MessageContext,
  SessionRecord,
  StepRecord,
  Store,
  TraceRecord,
  WriteOp,
} from "../store/index.js";
import type { ToolCallRequest, ToolResult } from "../tools/index.js";
import type { ContextState } from "./context-manager.js";
import type { HeldLease } from "./run-lease.js";
import { taskContent } from "./task-images.js";

/** The loop's counters after a committed step: with the turns, all resume needs. */
export interface LoopSnapshot {
  step: number;
  usage: Usage;
  lastText: string;
  consecutiveFailures: number;
  failureReasons: string[];
  /** The run's limit, kept so a resumed run keeps it unless told otherwise. */
  maxIterations?: number;
  /** The run's hard limits (tokens, cost, time), kept the same way. */
  limits?: RunLimits;
  /** Trim point and compaction summary, so a resumed run sees what the model saw. */
  context?: ContextState;
  /** The goal tree (GoalTree.toJSON) and the goal each step served. */
  goals?: unknown;
  stepGoals?: Record<number, string>;
  /** The run's current URL (set by URL-aware tools; decides URL-scoped tools and secrets). */
  url?: string;
  /** What contained the run's commands (the sandbox status line), kept with its state. */
  sandbox?: string;
  /** The reads that made the run untrusted (absent: trusted); a resume keeps them. */
  untrusted?: UntrustedSource[];
}

/** What the context looked like for a model call (stored with its step). */
export interface CallContextInfo {
  estTokens: number;
  budgetTokens: number;
  messages: number;
  /** The system prompt's sections: source file, sizes, hash, cut or not. */
  sections: unknown[];
  trimmedUpTo: number;
  compactions: number;
  /** The goal the call served. */
  goal: string | null;
}

export interface RunRecorder {
  /**
   * The task turn, the trace and (for a new session) the session, in one batch; committed
   * before run_start is emitted, so the ids it shows can be found.
   */
  /** `images`: a new run's task images, stored in its task turn. */
  runStarted(
    task: string,
    envelope: MessageContext,
    snapshot: LoopSnapshot,
    images?: readonly ImageContent[],
  ): Promise<void>;
  /** The assistant turn, its model-call step and one pending step per tool call. */
  modelResponded(
    message: AssistantMessage,
    calls: ToolCallRequest[],
    snapshot: LoopSnapshot,
    context?: CallContextInfo,
  ): Promise<void>;
  /** A compaction, as a step of the trace, with the checkpoint that carries it. */
  compacted(compaction: Compaction, info: CompactionInfo, snapshot: LoopSnapshot): Promise<void>;
  /** Marks a call as started, before it runs (not needed for read-only tools, which may run again). */
  toolStarted(call: ToolCallRequest): Promise<void>;
  /** `permission`: the record of the decision that let it run (or not). */
  toolFinished(call: ToolCallRequest, result: ToolResult, permission?: object): Promise<void>;
  /** The tool-result turns in the model's order, and the new checkpoint. */
  stepFinished(results: ToolResultMessage[], snapshot: LoopSnapshot): Promise<void>;
  runEnded(status: RunStatus, snapshot: LoopSnapshot, error?: SerializedError): Promise<void>;
  /**
   * The mark that learning from the run's ending is done (a "learning" step), for learning to
   * commit with its last changes: a run killed before it is learned from again, never after.
   */
  learningMark(): WriteOp[];
  /** Records what learning did, on the mark (written now unless `markCommitted`). */
  learned(data: object, markCommitted: boolean): Promise<void>;
  /** A "trust" step: the run became untrusted (what it read, and how it came to it). */
  trustChanged(data: TrustStepData): Promise<void>;
  /** Writes a batch of the run's as its own batches are written (fenced by its lease). */
  write(ops: WriteOp[]): Promise<void>;
  /** The recorder of a sub-agent run (its own trace and lease, under this run's session). */
  forChild(trace: TraceRecord, lease?: HeldLease): RunRecorder;
}

function subtractUsage(a: Usage, b: Usage): Usage {
  const unpriced = Math.max(0, (a.unpricedTokens ?? 0) - (b.unpricedTokens ?? 0));
  return {
    input: Math.max(0, a.input - b.input),
    output: Math.max(0, a.output - b.output),
    cacheRead: Math.max(0, a.cacheRead - b.cacheRead),
    cacheWrite: Math.max(0, a.cacheWrite - b.cacheWrite),
    totalTokens: Math.max(0, a.totalTokens - b.totalTokens),
    costUsd: Math.max(0, a.costUsd - b.costUsd),
    ...(unpriced > 0 ? { unpricedTokens: unpriced } : {}),
  };
}

/**
 * The session's settings naming the model its newest run uses, or undefined when they do
 * already. A session made before any run (by `reson serve`, with or without a model) learns
 * the model its run resolved; one continued with another model shows that one.
 */
function withRunModel(
  settings: SessionRecord["settings"],
  trace: TraceRecord,
): SessionRecord["settings"] | undefined {
  const baseUrl = trace.baseUrl ?? undefined;
  if (settings.provider === trace.provider && settings.model === trace.model && settings.baseUrl === baseUrl)
    return undefined;
  const { baseUrl: _previous, ...rest } = settings;
  return { ...rest, provider: trace.provider, model: trace.model, ...(baseUrl ? { baseUrl } : {}) };
}

/** The data of a "trust" step. */
export interface TrustStepData {
  step: number;
  via: "read" | "session" | "parent_run" | "message";
  source: UntrustedSource;
  reason: string;
}

export interface CompactionInfo {
  reason: string;
  beforeTokens: number;
  afterTokens: number;
  model: string;
}

/** For runs that are not persisted (library use with `persist: false`). */
export const NULL_RECORDER: RunRecorder = {
  runStarted: async () => {},
  modelResponded: async () => {},
  compacted: async () => {},
  toolStarted: async () => {},
  toolFinished: async () => {},
  stepFinished: async () => {},
  runEnded: async () => {},
  learningMark: () => [],
  learned: async () => {},
  trustChanged: async () => {},
  write: async () => {},
  forChild: () => NULL_RECORDER,
};

export interface StoreRecorderInit {
  store: Store;
  projectKey: string;
  session: SessionRecord;
  /** True when the session is new and must be inserted with the first batch. */
  newSession: boolean;
  trace: TraceRecord;
  /** True when the trace already exists (a resumed run). */
  resumed: boolean;
  /** The next free turn seq of the session. */
  nextSeq: number;
  /** The next free step seq of the trace. */
  nextStepSeq: number;
  /** Step ids of tool calls already in the store (resumed mid-step), by tool call id. */
  toolStepIds?: Map<string, string>;
  /** Step id of the model call those tool calls belong to. */
  modelStepId?: string;
  /**
   * A sub-agent run: its turns go into the parent's session (tagged with its own trace id, and
   * left out of the session's history), but it never changes the session record itself.
   */
  nested?: boolean;
  /** The session's turn counter, shared with the runs writing the same session at once. */
  seq?: { next: number };
  /** The run's lease: every batch is written through it, fenced by its epoch. */
  lease?: HeldLease;
  /**
   * Masks the run's secrets in every string of every batch, as it is written: what the model
   * wrote (a key it was shown, in any common encoding), a call's arguments, a result.
   */
  redact?: (text: string) => string;
}

export class StoreRecorder implements RunRecorder {
  private readonly seq: { next: number };
  private stepSeq: number;
  private modelStepId: string | undefined;
  private readonly toolStepIds: Map<string, string>;
  /** The learning step of learningMark(), once made. */
  private learningStep: StepRecord | undefined;
  /** The session's usage from its other runs; this run's usage is added at every checkpoint. */
  private readonly otherRunsUsage: Usage;

  constructor(private readonly init: StoreRecorderInit) {
    this.seq = init.seq ?? { next: init.nextSeq };
    this.stepSeq = init.nextStepSeq;
    this.modelStepId = init.modelStepId;
    this.toolStepIds = init.toolStepIds ?? new Map();
    this.otherRunsUsage = init.resumed
      ? subtractUsage(init.session.usage, init.trace.usage)
      : init.session.usage;
  }

  private get traceId(): string {
    return this.init.trace.id;
  }

  private turn(
    role: "user" | "assistant" | "toolResult",
    content: unknown,
    step: number,
    envelope?: MessageContext,
  ) {
    const now = Date.now();
    return {
      op: "appendTurn" as const,
      turn: {
        id: ulid(now),
        sessionId: this.init.session.id,
        seq: this.seq.next++,
        role,
        content,
        envelope: envelope ?? null,
        traceId: this.traceId,
        step,
        createdAt: now,
      },
    };
  }

  /** One batch of the run, all or nothing, fenced by its lease when it has one. */
  private commit(written: WriteOp[]): Promise<void> {
    const { redact } = this.init;
    const ops = redact ? written.map((op) => redactDeep(op, redact)) : written;
    return this.init.lease ? this.init.lease.apply(ops) : this.init.store.apply(ops);
  }

  write(ops: WriteOp[]): Promise<void> {
    return this.commit(ops);
  }

  forChild(trace: TraceRecord, lease?: HeldLease): RunRecorder {
    return new StoreRecorder({
      store: this.init.store,
      projectKey: this.init.projectKey,
      session: this.init.session,
      newSession: false,
      trace,
      resumed: false,
      nextSeq: this.seq.next,
      nextStepSeq: 0,
      nested: true,
      seq: this.seq,
      ...(lease ? { lease } : {}),
      ...(this.init.redact ? { redact: this.init.redact } : {}),
    });
  }

  /** Session changes: none for a sub-agent run, whose parent keeps the session up to date. */
  private sessionPatch(patch: Extract<WriteOp, { op: "updateSession" }>["patch"]): WriteOp[] {
    return this.init.nested ? [] : [{ op: "updateSession", id: this.init.session.id, patch }];
  }

  private checkpoint(snapshot: LoopSnapshot): WriteOp[] {
    const now = Date.now();
    return [
      {
        op: "putCheckpoint",
        checkpoint: { traceId: this.traceId, step: snapshot.step, state: snapshot, updatedAt: now },
      },
      {
        op: "updateTrace",
        id: this.traceId,
        patch: { steps: snapshot.step, usage: snapshot.usage, updatedAt: now },
      },
      ...this.sessionPatch({ updatedAt: now, usage: addUsage(this.otherRunsUsage, snapshot.usage) }),
    ];
  }

  async runStarted(
    task: string,
    envelope: MessageContext,
    snapshot: LoopSnapshot,
    images?: readonly ImageContent[],
  ): Promise<void> {
    const ops: WriteOp[] = [];
    if (this.init.newSession) ops.push({ op: "insertSession", session: this.init.session });
    if (this.init.resumed) {
      ops.push({
        op: "updateTrace",
        id: this.traceId,
        patch: { status: "running", endedAt: null, error: null },
      });
    } else {
      ops.push({ op: "insertTrace", trace: this.init.trace });
      ops.push(
        this.turn(
          "user",
          { role: "user", content: taskContent(task, images), timestamp: envelope.receivedAt },
          0,
          envelope,
        ),
      );
    }
    const settings = withRunModel(this.init.session.settings, this.init.trace);
    ops.push(
      ...this.sessionPatch({
        status: "active",
        lastTraceId: this.traceId,
        updatedAt: Date.now(),
        ...(settings ? { settings } : {}),
      }),
    );
    ops.push(...this.checkpoint(snapshot));
    await this.commit(ops);
  }

  async modelResponded(
    message: AssistantMessage,
    calls: ToolCallRequest[],
    snapshot: LoopSnapshot,
    context?: CallContextInfo,
  ): Promise<void> {
    const now = Date.now();
    const modelStepId = ulid(now);
    this.modelStepId = modelStepId;
    this.toolStepIds.clear();
    const ops: WriteOp[] = [
      this.turn("assistant", message, snapshot.step),
      {
        op: "insertStep",
        step: {
          id: modelStepId,
          traceId: this.traceId,
          parentId: null,
          seq: this.stepSeq++,
          kind: "model_call",
          status: "done",
          data: {
            step: snapshot.step,
            stopReason: message.stopReason,
            usage: message.usage,
            model: message.model,
            ...(context ? { context } : {}),
          },
          createdAt: now,
          updatedAt: now,
        },
      },
    ];
    for (const call of calls) {
      const id = ulid(now);
      this.toolStepIds.set(call.id, id);
      ops.push({
        op: "insertStep",
        step: {
          id,
          traceId: this.traceId,
          parentId: modelStepId,
          seq: this.stepSeq++,
          kind: "tool_call",
          status: "pending",
          data: { toolCallId: call.id, name: call.name, arguments: call.arguments },
          createdAt: now,
          updatedAt: now,
        },
      });
    }
    ops.push(...this.checkpoint(snapshot));
    await this.commit(ops);
  }

  async compacted(compaction: Compaction, info: CompactionInfo, snapshot: LoopSnapshot): Promise<void> {
    await this.commit([
      {
        op: "insertStep",
        step: this.doneStep("compaction", {
          step: snapshot.step,
          ...info,
          upTo: compaction.upTo,
          summary: compaction.summary,
        }),
      },
      ...this.checkpoint(snapshot),
    ]);
  }

  async trustChanged(data: TrustStepData): Promise<void> {
    await this.commit([{ op: "insertStep", step: this.doneStep("trust", data) }]);
  }

  async toolStarted(call: ToolCallRequest): Promise<void> {
    const id = this.toolStepIds.get(call.id);
    if (!id) return;
    await this.commit([{ op: "updateStep", id, patch: { status: "running", updatedAt: Date.now() } }]);
  }

  async toolFinished(call: ToolCallRequest, result: ToolResult, permission?: object): Promise<void> {
    const id = this.toolStepIds.get(call.id);
    const ops: WriteOp[] = [
      {
        op: "recordToolCall",
        projectKey: this.init.projectKey,
        tool: call.name,
        ok: result.ok,
        durationMs: result.meta.durationMs,
        at: Date.now(),
        ...(result.ok || result.error === undefined ? {} : { errorCode: result.error.code }),
      },
    ];
    if (id) {
      ops.push({
        op: "updateStep",
        id,
        patch: {
          status: result.ok ? "done" : "failed",
          data: {
            toolCallId: call.id,
            name: call.name,
            arguments: call.arguments,
            result,
            ...(permission ? { permission } : {}),
          },
          updatedAt: Date.now(),
        },
      });
    }
    await this.commit(ops);
  }

  async stepFinished(results: ToolResultMessage[], snapshot: LoopSnapshot): Promise<void> {
    const ops: WriteOp[] = results.map((message) => this.turn("toolResult", message, snapshot.step));
    ops.push(...this.checkpoint(snapshot));
    await this.commit(ops);
  }

  async runEnded(status: RunStatus, snapshot: LoopSnapshot, error?: SerializedError): Promise<void> {
    const now = Date.now();
    await this.commit([
      ...this.checkpoint(snapshot),
      {
        op: "updateTrace",
        id: this.traceId,
        patch: {
          status,
          error: error ?? null,
          endedAt: now,
          updatedAt: now,
          usage: snapshot.usage,
          steps: snapshot.step,
        },
      },
      ...this.sessionPatch({ status, updatedAt: now }),
    ]);
  }

  /** The run's learning step: one per recorder, that is per process that ends the run. */
  private learningStepRecord(): StepRecord {
    this.learningStep ??= this.doneStep("learning", {});
    return this.learningStep;
  }

  /** A finished step at the root of the trace, next in order. */
  private doneStep(kind: StepRecord["kind"], data: object): StepRecord {
    const now = Date.now();
    return {
      id: ulid(now),
      traceId: this.traceId,
      parentId: null,
      seq: this.stepSeq++,
      kind,
      status: "done",
      data,
      createdAt: now,
      updatedAt: now,
    };
  }

  learningMark(): WriteOp[] {
    return [{ op: "insertStep", step: this.learningStepRecord() }];
  }

  async learned(data: object, markCommitted: boolean): Promise<void> {
    const step = this.learningStepRecord();
    const patch = { status: "error" in data ? "failed" : "done", data, updatedAt: Date.now() } as const;
    await this.commit([
      markCommitted
        ? { op: "updateStep", id: step.id, patch }
        : { op: "insertStep", step: { ...step, ...patch } },
    ]);
  }
}
