// The Agent: the runtime as a library. createAgent loads the config, resolves the model, opens
// the workspace, the tools and the store once; each `run` is one loop with its own id and
// events (wired in agent-run.ts), persisted step by step so that `resume` can finish it after a
// crash, and held under a lease while it runs so that no other process runs it at the same
// time. Its sub-agents run as agents of its own, made on first use (child-agent.ts).

import type { BrowserPool } from "../browser/index.js";
import { type LoadedConfig, loadPresets, type Preset, pickPreset } from "../config/index.js";
import { EstimateCache, estimateCacheFile } from "../context/index.js";
import { ResonError } from "../core/errors.js";
import { EventBus, type EventListener } from "../core/events.js";
import { ulid } from "../core/ids.js";
import type { Provider } from "../providers/index.js";
import { SkillSet } from "../skills/index.js";
import {
  englishFrequencies,
  type MessageContext,
  projectKey,
  type Store,
  type TraceRecord,
} from "../store/index.js";
import { orderByUse, type ToolRegistry } from "../tools/index.js";
import type { Workspace } from "../workspace/index.js";
import { ActiveRuns } from "./active-runs.js";
import type {
  AgentOptions,
  AgentSecrets,
  ResumeOptions,
  RunOptions,
  SubagentSetup,
} from "./agent-options.js";
import { type RunHost, runAgentLoop } from "./agent-run.js";
import { childAgentKey, childAgentParts, childRunStart } from "./child-agent.js";
import type { AgentHooks } from "./hooks.js";
import type { Learning } from "./learning.js";
import type { LoopStart } from "./loop-start.js";
import { NULL_RECORDER, StoreRecorder } from "./recorder.js";
import { planResume } from "./resume.js";
import { HeldLease } from "./run-lease.js";
import { endedResult, findTrace, requireStore } from "./run-lookup.js";
import { newTraceRecord } from "./run-records.js";
import { joinSession } from "./run-session.js";
import { type RunStream, streamRun } from "./run-stream.js";
import { compactSession, type SessionCompaction } from "./session-history.js";
import { type ChildSpec, createSubagentTool, type SubagentHost } from "./subagent-tool.js";
import { assertModelTakesImages } from "./task-images.js";
import type { HostEvent, RunResult } from "./types.js";

export class Agent {
  private readonly bus = new EventBus();
  private readonly hooks: AgentHooks[];
  private readonly closers: Array<() => Promise<void>> = [];
  /** Per session, the order tools are offered in (most used in this project first), fixed. */
  private readonly toolOrders = new Map<string, readonly string[]>();
  /** The runs in flight, by id: what the subagent tool needs of the run that called it. */
  private active = new ActiveRuns();
  /** The agents sub-agents run as, per preset and read-only (made on first use). */
  private readonly childAgents = new Map<string, Promise<Agent>>();
  readonly projectKey: string;
  /** Estimates of the long texts every run sends, remembered across runs. */
  private readonly estimates: EstimateCache;
  /** Memory and experiences (top-level agents with a store and memory on). */
  learning: Learning | undefined;
  /** The runs' browsers (browser tools), each closed when its run ends. */
  browsers: BrowserPool | undefined;

  constructor(
    readonly workspace: Workspace,
    readonly provider: Provider,
    readonly tools: ToolRegistry,
    readonly loaded: LoadedConfig,
    /** Undefined when runs are not persisted. */
    readonly store: Store | undefined,
    private readonly options: AgentOptions,
    private readonly ownsStore: boolean,
    /** Writes compaction summaries (config `summaryModel`); the main provider by default. */
    readonly summaryProvider: Provider = provider,
    /** The skills found for this workspace; each can be switched on or off for the session. */
    readonly skills: SkillSet = new SkillSet({ skills: [], warnings: [] }),
    private readonly secrets?: AgentSecrets,
    /**
     * How createAgent made this agent's parts, for its sub-agents: given, the agent offers the
     * subagent tool. Absent in a sub-agent (children cannot start children) and read-only agents.
     */
    private readonly subagents?: SubagentSetup,
  ) {
    this.hooks =
      options.hooks === undefined ? [] : Array.isArray(options.hooks) ? options.hooks : [options.hooks];
    this.projectKey = projectKey(workspace.root);
    this.estimates = new EstimateCache(estimateCacheFile(loaded.home));
    if (subagents) tools.register(createSubagentTool(this.subagentHost()));
  }

  /**
   * Emits an event in a run in flight, at the step it is at (a host's approvals and answers:
   * numbered and committed like the run's own). False when the run is not running here.
   */
  emitInRun(runId: string, event: HostEvent): boolean {
    const run = this.active.get(runId);
    if (!run) return false;
    run.emit(event);
    return true;
  }

  /** What masks the run's secrets in what it writes and emits; none when it has none. */
  private masking(): { redact?: (text: string) => string } {
    const secrets = this.secrets;
    return secrets ? { redact: (text) => secrets.access.redact(text) } : {};
  }

  /** Masks the user's secrets (and the provider's key) in a text this agent's host shows. */
  redact(text: string): string {
    return this.secrets ? this.secrets.access.redact(text) : text;
  }

  /**
   * A task is on its way (an editor opened a session): opens the model's connection and loads
   * what a process's first run would otherwise read before its first model call (the word
   * frequencies memory recall weighs a task's words by), so that run starts sooner.
   */
  prepare(): void {
    this.provider.preconnect?.();
    if (this.learning) englishFrequencies();
  }

  /** Receives the events of every run of this agent. */
  subscribe(listener: EventListener): () => void {
    return this.bus.subscribe(listener);
  }

  async run(task: string, options: RunOptions = {}): Promise<RunResult> {
    assertModelTakesImages(this.provider.model, options.images?.length ?? 0);
    // Connected while the run is recorded and its prompt built, not after.
    this.provider.preconnect?.();
    const runId = options.runId ?? ulid();
    const now = Date.now();
    const envelope: MessageContext = {
      receivedAt: now,
      channel: "cli",
      chatType: "direct",
      ...options.envelope,
    };
    const { session, isNew, history, inherited } = await joinSession(this.store, {
      choice: options.session ?? "new",
      task,
      now,
      newId: options.newSessionId,
      projectKey: this.projectKey,
      workspaceRoot: this.workspace.root,
      model: this.provider.model,
      untrustedTask: options.untrustedTask,
    });
    const trace = this.traceRecord(runId, session.id, task, now);
    const start: LoopStart = {
      kind: "new",
      task,
      ...(options.images?.length ? { images: options.images } : {}),
      envelope,
      history,
    };
    if (!this.store) return runAgentLoop(this.runHost(), trace, NULL_RECORDER, start, options, false);
    // Taken before the trace is stored, so the run is never in the store unheld.
    const lease = options.lease ?? (await this.takeLease(this.store, trace.id));
    try {
      const recorder = new StoreRecorder({
        store: this.store,
        projectKey: this.projectKey,
        session,
        newSession: isNew,
        trace,
        resumed: false,
        nextSeq: isNew ? 0 : await this.store.turns.nextSeq(session.id),
        nextStepSeq: 0,
        lease,
        ...this.masking(),
      });
      return await runAgentLoop(this.runHost(), trace, recorder, start, options, false, {
        lease,
        ...(inherited ? { inherited } : {}),
      });
    } finally {
      // A lease the caller gave is the caller's to let go (a worker ends the queued run with it).
      if (!options.lease) await lease.release();
    }
  }

  /**
   * Continues a run that stopped (crash, Ctrl-C, provider failure) from its last committed
   * state. `id` is a run or session id, or a unique prefix of one; a session means its newest run.
   * A run that completed and was learned from is left as it is: the result is its stored
   * outcome with `alreadyEnded`, and no event is emitted. One that completed but was stopped
   * before learning from it (or during) is learned from, once, and ends with run_end.
   */
  async resume(id: string, options: ResumeOptions = {}): Promise<RunResult> {
    const store = requireStore(this.store);
    const found = await findTrace(store, id);
    // Completed, and learned from (or nothing to learn with): nothing is left to do or announce,
    // whoever may still hold it on its way out.
    if (found.status === "completed") {
      const ended = await this.endedOutcome(store, found);
      if (ended) return ended;
    }
    // The run is read again under its lease: what another process committed before letting it
    // go is part of the plan, and nothing else commits while this one holds it.
    const lease = options.lease ?? (await this.takeLease(store, found.id, options.force));
    this.provider.preconnect?.();
    try {
      const trace = (await store.traces.get(found.id)) ?? found;
      const session = await store.sessions.get(trace.sessionId);
      if (!session) throw new ResonError("not_found", `The session of run ${trace.id} is missing.`);
      const plan = await planResume(store, trace, this.tools);
      if (trace.status === "completed" && (plan.learned || !this.learning))
        return endedResult(trace, plan.start.snapshot);
      const recorder = new StoreRecorder({
        store,
        projectKey: this.projectKey,
        session,
        newSession: false,
        trace,
        resumed: true,
        nextSeq: plan.nextSeq,
        nextStepSeq: plan.nextStepSeq,
        toolStepIds: plan.toolStepIds,
        nested: trace.parentTraceId !== null,
        ...(plan.modelStepId ? { modelStepId: plan.modelStepId } : {}),
        lease,
        ...this.masking(),
      });
      // The run keeps the limit it was started with, unless this agent was given one.
      const maxIterations = this.options.maxIterations ?? plan.start.snapshot.maxIterations;
      return await runAgentLoop(this.runHost(), trace, recorder, plan.start, options, true, {
        maxIterations,
        lease,
      });
    } finally {
      if (!options.lease) await lease.release();
    }
  }

  /** A completed run's stored outcome when nothing is left to do for it (learned from). */
  private async endedOutcome(store: Store, trace: TraceRecord): Promise<RunResult | undefined> {
    const plan = await planResume(store, trace, this.tools);
    return plan.learned || !this.learning ? endedResult(trace, plan.start.snapshot) : undefined;
  }

  /** The run's lease for this process, with the TTL of the config. */
  private takeLease(store: Store, traceId: string, force?: boolean): Promise<HeldLease> {
    return HeldLease.acquire(store, traceId, {
      role: this.options.leaseHolder ?? "reson library",
      ttlMs: this.loaded.config.lease.ttlMs,
      ...(force ? { force: true } : {}),
    });
  }

  /** The run events as an async iterable; `result` settles when the run ends. */
  stream(task: string, options: Omit<RunOptions, "onEvent"> = {}): RunStream {
    return streamRun((onEvent) => this.run(task, { ...options, onEvent }));
  }

  /** Something of the host's that lives as long as this agent (MCP servers): closed with it. */
  onClose(close: () => Promise<void>): void {
    this.closers.push(close);
  }

  /** Releases what the agent holds: browsers, what onClose was given, the store (when this agent opened it). */
  async close(): Promise<void> {
    await this.browsers?.closeAll();
    for (const close of this.closers.splice(0)) await close().catch(() => {});
    if (this.store && this.ownsStore) await this.store.close();
  }

  /**
   * Summarises a session's history so far with the summary model (the terminal's /compact):
   * later runs of the session see the summary instead of the turns before it, except the
   * newest `keepTurns`. The turns themselves stay in the store.
   */
  compactSession(
    sessionId: string,
    options: { focus?: string; keepTurns?: number; signal?: AbortSignal } = {},
  ): Promise<SessionCompaction> {
    return compactSession(requireStore(this.store), this.summaryProvider, sessionId, options);
  }

  private async toolOrder(sessionId: string): Promise<readonly string[]> {
    let order = this.toolOrders.get(sessionId);
    if (!order) {
      order = this.store ? orderByUse(await this.store.toolStats.list(this.projectKey)) : [];
      this.toolOrders.set(sessionId, order);
    }
    return order;
  }

  private traceRecord(runId: string, sessionId: string, task: string, now: number): TraceRecord {
    const { preset } = this.options;
    return newTraceRecord({
      id: runId,
      sessionId,
      task,
      preset: typeof preset === "object" ? preset.name : (preset ?? null),
      model: this.provider.model,
      now,
    });
  }

  /** What each of this agent's runs takes from it. */
  private runHost(): RunHost {
    return {
      agent: this,
      options: this.options,
      secrets: this.secrets,
      hooks: this.hooks,
      estimates: this.estimates,
      events: this.bus,
      active: this.active,
      toolOrder: (sessionId) => this.toolOrder(sessionId),
      ...this.masking(),
    };
  }

  /** What the subagent tool sees of this agent. */
  private subagentHost(): SubagentHost {
    return {
      caps: this.loaded.config.subagents,
      parentRun: (runId) => this.active.get(runId),
      preset: async (name) =>
        pickPreset(await loadPresets({ home: this.loaded.home, workspace: this.workspace.root }), name),
      runChild: (parentRunId, spec) => this.runChild(parentRunId, spec),
    };
  }

  /**
   * A sub-agent run: its own trace under the parent's, in the parent's session (its turns are
   * tagged with its trace and left out of the session's history), with a budget under the
   * parent's and a signal that aborts with it.
   */
  private async runChild(parentRunId: string, spec: ChildSpec): Promise<RunResult> {
    const parent = this.active.get(parentRunId);
    if (!parent) throw new ResonError("internal_error", `Run ${parentRunId} is not running.`);
    const running = (async () => {
      const child = await this.childAgent(spec.preset, spec.readOnly);
      // A sub-agent that may act browses in its parent's browser.
      child.browsers?.share(spec.runId, parentRunId);
      const own = child.traceRecord(spec.runId, parent.trace.sessionId, spec.task, Date.now());
      const { trace, start, budget } = childRunStart(parent, spec, own);
      // A sub-agent holds a lease of its own run, so that its trace is not resumed elsewhere
      // while it runs; it ends (and lets it go) before its parent does.
      const lease = this.store ? await child.takeLease(this.store, trace.id) : undefined;
      try {
        // A sub-agent of an untrusted run works from what that run read: it starts untrusted.
        const sources = parent.trust.sources;
        return await runAgentLoop(
          child.runHost(),
          trace,
          parent.recorder.forChild(trace, lease),
          start,
          // Its run_start follows the save of its trace: the moment its id may be shown.
          {
            signal: spec.signal,
            onEvent: (event) => {
              if (event.type === "run_start") spec.onStarted();
            },
          },
          false,
          {
            maxIterations: spec.maxSteps,
            childBudget: budget,
            ...(lease ? { lease } : {}),
            ...(sources.length > 0 ? { inherited: { sources, via: "parent_run" as const } } : {}),
          },
        );
      } finally {
        await lease?.release();
      }
    })();
    parent.children.add(running);
    return running;
  }

  /**
   * The agent a sub-agent runs as (its parts: child-agent.ts), one per preset and read-only
   * state; it shares this agent's store, skills and secrets.
   */
  private childAgent(preset: Preset, readOnly: boolean): Promise<Agent> {
    const setup = this.subagents;
    if (!setup) {
      return Promise.reject(
        new ResonError("tool_not_found", "Sub-agents cannot start sub-agents of their own."),
      );
    }
    const key = childAgentKey(preset, readOnly);
    let made = this.childAgents.get(key);
    if (!made) {
      made = this.makeChildAgent(setup, preset, readOnly);
      made.catch(() => this.childAgents.delete(key));
      this.childAgents.set(key, made);
    }
    return made;
  }

  private async makeChildAgent(setup: SubagentSetup, preset: Preset, readOnly: boolean): Promise<Agent> {
    const parts = await childAgentParts(setup, preset, readOnly, {
      workspaceRoot: this.workspace.root,
      provider: this.provider,
      browsers: this.browsers,
      config: this.loaded.config,
      skills: this.skills,
      hooks: this.hooks,
    });
    const child = new Agent(
      parts.workspace,
      parts.provider,
      parts.tools,
      this.loaded,
      this.store,
      parts.options,
      false,
      this.summaryProvider,
      this.skills,
      this.secrets,
    );
    child.browsers = parts.browsers;
    // Its runs are this agent's runs in flight too: a host that emits into one (an approval
    // asked over HTTP, a plugin hook's failure) finds it here, whichever agent runs it.
    child.active = this.active;
    return child;
  }
}
