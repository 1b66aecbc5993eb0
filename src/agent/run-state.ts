// The state of one run in the loop: what it was given (LoopDeps) and what it has so far (the
// step, the history, the goal tree, the context, the circuit breaker), with the checkpoint it
// commits (snapshot) and reads back on resume (restore). Every goal change is an event.

import type { HistoryEntry, ManifestEntry } from "../context/index.js";
import type { EventBus, UntrustedSource } from "../core/events.js";
import type { Usage } from "../core/usage.js";
import type { Provider, ToolSpec } from "../providers/index.js";
import {
  type ArtifactMeta,
  type ArtifactPage,
  type AskHuman,
  type GoalChange,
  GoalTree,
  type Hop,
  type SecretAccess,
  type ToolRegistry,
} from "../tools/index.js";
import type { Workspace } from "../workspace/index.js";
import type { RunBudget } from "./budget.js";
import { CircuitBreaker } from "./circuit-breaker.js";
import { CompiledPythonGuard } from "./compiled-python-guard.js";
import { ContextManager, type ContextState } from "./context-manager.js";
import type { AgentHooks } from "./hooks.js";
import type { LoopSnapshot, RunRecorder } from "./recorder.js";
import { RunTrust } from "./run-trust.js";
import type { StepSnapshots } from "./step-snapshots.js";
import type { LoopLimits, RunResult } from "./types.js";

export interface LoopDeps {
  runId: string;
  sessionId: string;
  systemPrompt: string;
  /** Which sections the system prompt holds, from which files (recorded with every call). */
  systemManifest?: ManifestEntry[];
  provider: Provider;
  tools: ToolRegistry;
  workspace: Workspace;
  hooks: AgentHooks[];
  limits: LoopLimits;
  /**
   * Tokens, cost and time the run may spend (with its sub-agents'); checked before and after
   * every model call. The wall clock is also enforced through `signal`, which aborts with the
   * budget error at the deadline.
   */
  budget: RunBudget;
  bus: EventBus;
  signal: AbortSignal;
  recorder: RunRecorder;
  /** Writes compaction summaries; may be the main provider. */
  summaryProvider: Provider;
  /** Share of the context window a request may fill. */
  budgetRatio: number;
  /** How long texts (the tools' schemas, the system prompt) are estimated; default estimateTokens. */
  estimate?: (text: string) => number;
  /** Where outputs too large for the context are kept (absent: they are only cut). */
  artifacts?: ArtifactKeeper;
  /** Which tools the model is offered (plan mode offers no write tools at all). */
  offerTool?: (name: string) => boolean;
  /** The order tools are offered in (most used first), fixed for the session. */
  toolOrder?: readonly string[];
  /** The user's secrets as tools see them (substitution and masking). */
  secrets?: SecretAccess;
  /** The sandbox status line, recorded with every checkpoint. */
  sandbox?: string;
  /**
   * Runs once the end is committed and before run_end is emitted (so run_end stays the last
   * event): learning from the run. It reports its own problems; it throws only when the host's
   * shutdown cut it short, having recorded nothing (the next holder learns instead).
   */
  afterRun?: (result: RunResult) => Promise<void>;
  /** Asks the user (ask_human); each question is a human_question event first. Absent: no one to ask. */
  askHuman?: AskHuman;
  /** Snapshots of the workspace around calls that may change it (absent: none are taken). */
  snapshots?: StepSnapshots;
  /** Whether the run has read untrusted content (kept with every checkpoint); default a trusted run. */
  trust?: RunTrust;
  /** Decides the requests tools make that their call did not name (see ToolContext.checkHop). */
  checkHop?: HopCheck;
}

/** The host's decision on a hop, given the run it happens in. */
export type HopCheck = (
  hop: Hop,
  run: { runId: string; untrusted?: readonly UntrustedSource[] },
) => Promise<string | undefined>;

export interface ArtifactKeeper {
  save(content: string, meta: ArtifactMeta & { runId: string }): Promise<string>;
  read(id: string, offset: number, limit: number): Promise<ArtifactPage | undefined>;
}

export class RunState {
  step = 0;
  /** The last step whose model response is committed: where a resume starts counting. */
  committedStep = 0;
  lastText = "";
  history: HistoryEntry[] = [];
  /** Index in history of this run's task: pinned, never compacted away. */
  taskIndex = 0;
  task = "";
  /**
   * The tool specs of the run, one array for every call (estimates and caches key on it);
   * a new array only when the current URL changes which URL-scoped tools are offered.
   */
  toolSpecs: ToolSpec[];
  /** The current URL, set by URL-aware tools (web_fetch). */
  url: string | undefined;
  readonly startedAt = Date.now();
  readonly breaker: CircuitBreaker;
  readonly context: ContextManager;
  readonly trust: RunTrust;
  /** Removes the compiled Python files the calls of an untrusted run leave. */
  readonly compiledPython: CompiledPythonGuard;
  /** The plan: the goal tree, and which goal each step served. */
  goals: GoalTree;
  stepGoals: Record<number, string> = {};
  /** The goal focused when the current step began: its messages are tagged with it. */
  stepGoal: string | undefined;

  /** What the run has spent, its sub-agents included (the budget keeps the count). */
  get usage(): Usage {
    return this.deps.budget.used;
  }

  constructor(
    readonly deps: LoopDeps,
    initialContext?: ContextState,
  ) {
    this.goals = this.observedGoals();
    this.trust = deps.trust ?? new RunTrust();
    this.compiledPython = new CompiledPythonGuard(deps.workspace);
    this.breaker = new CircuitBreaker(deps.limits.circuitBreakerThreshold);
    this.url = undefined;
    this.toolSpecs = this.offeredSpecs();
    this.context = new ContextManager(
      {
        provider: deps.provider,
        summaryProvider: deps.summaryProvider,
        budgetRatio: deps.budgetRatio,
        ...(deps.estimate ? { estimate: deps.estimate } : {}),
        signal: deps.signal,
        emit: (event) => this.emit(event),
        addUsage: (usage) => deps.budget.charge(usage),
        onCompacted: (compaction, info) =>
          deps.recorder.compacted(
            compaction,
            { ...info, model: deps.summaryProvider.model.id },
            this.snapshot(),
          ),
      },
      initialContext,
    );
  }

  /** A goal tree whose every change is an event. */
  observedGoals(json?: unknown): GoalTree {
    const options = { currentStep: () => this.step };
    const tree = json === undefined ? new GoalTree(options) : GoalTree.fromJSON(json, options);
    // A method that calls another (ensureRoot adds the root goal) reports its changes once,
    // from the outermost call.
    let depth = 0;
    for (const method of ["add", "done", "abandon", "focus", "ensureRoot"] as const) {
      const original = tree[method].bind(tree) as (...args: unknown[]) => GoalChange[];
      (tree as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        depth++;
        let changes: GoalChange[];
        try {
          changes = original(...args);
        } finally {
          depth--;
        }
        if (depth === 0)
          for (const change of changes) this.emit({ type: "goal_changed", change, tree: tree.render() });
        return changes;
      };
    }
    return tree;
  }

  private offeredSpecs(): ToolSpec[] {
    const offer = this.deps.offerTool;
    const specs = this.deps.tools.specs(this.deps.toolOrder, this.url === undefined ? {} : { url: this.url });
    return offer ? specs.filter((spec) => offer(spec.name)) : specs;
  }

  /** Moves the run to `url`; the tools offered change only if a URL-scoped tool comes or goes. */
  setUrl(url: string): void {
    if (url === this.url) return;
    this.url = url;
    const next = this.offeredSpecs();
    const same =
      next.length === this.toolSpecs.length && next.every((spec, i) => spec.name === this.toolSpecs[i]?.name);
    if (!same) this.toolSpecs = next;
  }

  emit<T extends { type: string }>(event: T): void {
    this.deps.bus.emit({ ...event, runId: this.deps.runId, step: this.step, ts: Date.now() } as never);
  }

  snapshot(): LoopSnapshot {
    return {
      step: this.committedStep,
      usage: this.usage,
      lastText: this.lastText,
      consecutiveFailures: this.breaker.consecutiveFailures,
      failureReasons: [...this.breaker.reasons],
      maxIterations: this.deps.limits.maxIterations,
      ...(Object.keys(this.deps.budget.limits).length > 0 ? { limits: this.deps.budget.limits } : {}),
      context: this.context.state,
      goals: this.goals.toJSON(),
      stepGoals: this.stepGoals,
      ...(this.url === undefined ? {} : { url: this.url }),
      ...(this.deps.sandbox === undefined ? {} : { sandbox: this.deps.sandbox }),
      ...(this.trust.untrusted ? { untrusted: [...this.trust.sources] } : {}),
    };
  }

  /** The reads that made the run untrusted, or undefined while it is trusted. */
  get untrusted(): readonly UntrustedSource[] | undefined {
    return this.trust.untrusted ? this.trust.sources : undefined;
  }

  restore(snapshot: LoopSnapshot): void {
    this.step = snapshot.step;
    this.committedStep = snapshot.step;
    if (snapshot.goals) this.goals = this.observedGoals(snapshot.goals);
    this.stepGoals = { ...snapshot.stepGoals };
    this.stepGoal = this.stepGoals[snapshot.step];
    this.deps.budget.restore(snapshot.usage);
    this.lastText = snapshot.lastText;
    this.breaker.restore(snapshot.consecutiveFailures, snapshot.failureReasons);
    if (snapshot.url !== undefined) this.setUrl(snapshot.url);
  }
}
