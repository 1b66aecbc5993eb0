// createAgent: the runtime as a library. Loads the config, resolves the model, opens the
// workspace, the tools and the store once; each `run` is one loop with its own id and
// events, persisted step by step so that `resume` can finish it after a crash, and held
// under a lease while it runs so that no other process runs it at the same time.

import { type BrowserPool, createBrowserTools } from "../browser/index.js";
import { type LoadedConfig, loadPresets, type Preset, pickPreset, resonHome } from "../config/index.js";
import {
  assembleSystemPrompt,
  EstimateCache,
  estimateCacheFile,
  loadInstructions,
} from "../context/index.js";
import { ResonError, toResonError } from "../core/errors.js";
import { EventBus, type EventListener, type ResonEvent, type UntrustedSource } from "../core/events.js";
import { ulid } from "../core/ids.js";
import { redactDeep } from "../core/redactor.js";
import type { RunLimits } from "../core/usage.js";
import { createProvider, type Provider } from "../providers/index.js";
import { SkillSet } from "../skills/index.js";
import {
  englishFrequencies,
  type MessageContext,
  projectKey,
  type SessionRecord,
  type Store,
  type TraceRecord,
} from "../store/index.js";
import { orderByUse, type ToolRegistry } from "../tools/index.js";
import { probeSandbox, type Workspace } from "../workspace/index.js";
import {
  type AgentOptions,
  type AgentSecrets,
  type ResumeOptions,
  type RunOptions,
  type SubagentSetup,
  withPreset,
} from "./agent-options.js";
import { agentTools } from "./agent-tools.js";
import { memoryArtifacts, storeArtifacts } from "./artifacts.js";
import { assertCostCountable, RunBudget } from "./budget.js";
import type { AgentHooks } from "./hooks.js";
import { learnAfterRun } from "./learn-after-run.js";
import type { Learning } from "./learning.js";
import { lessonsAtError } from "./lessons-at-error.js";
import { runLoop } from "./loop.js";
import { type LoopStart, startSnapshot } from "./loop-start.js";
import { NULL_RECORDER, type RunRecorder, StoreRecorder } from "./recorder.js";
import { learnedFromEnding, planResume } from "./resume.js";
import { RunJournal } from "./run-journal.js";
import { HeldLease } from "./run-lease.js";
import { assertSessionFree, definedLimits, endedResult, findTrace } from "./run-lookup.js";
import { newSessionRecord, newTraceRecord } from "./run-records.js";
import { type RunStream, streamRun } from "./run-stream.js";
import { describeSource, RunTrust, UNTRUSTED_CONSEQUENCES } from "./run-trust.js";
import { compactSession, type SessionCompaction, sessionHistory } from "./session-history.js";
import { runStepSnapshots } from "./step-snapshots.js";
import { type ChildSpec, createSubagentTool, type ParentRun, type SubagentHost } from "./subagent-tool.js";
import { assertModelTakesImages } from "./task-images.js";
import type { HostEvent, RunResult } from "./types.js";
import { openWorkspace } from "./workspace-trust.js";

export class Agent {
  private readonly bus = new EventBus();
  private readonly hooks: AgentHooks[];
  private readonly closers: Array<() => Promise<void>> = [];
  /** Per session, the order tools are offered in (most used in this project first), fixed. */
  private readonly toolOrders = new Map<string, readonly string[]>();
  /** The runs in flight, by id: what the subagent tool needs of the run that called it. */
  private active = new Map<string, ActiveRun>();
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
    const { session, isNew } = await this.sessionFor(
      options.session ?? "new",
      task,
      now,
      options.newSessionId,
    );
    if (!isNew && this.store) await assertSessionFree(this.store, session);
    const history = isNew || !this.store ? [] : await sessionHistory(this.requireStore(), session);
    // What an earlier run of the session read is in the history this run sees: it stays untrusted.
    const sessionSources = isNew || !this.store ? [] : await sessionUntrust(this.store, session);
    const inherited: { sources: UntrustedSource[]; via: "session" | "message" } | undefined =
      options.untrustedTask
        ? { sources: [options.untrustedTask, ...sessionSources], via: "message" }
        : sessionSources.length > 0
          ? { sources: sessionSources, via: "session" }
          : undefined;
    const trace = this.traceRecord(runId, session.id, task, now);
    const start: LoopStart = {
      kind: "new",
      task,
      ...(options.images?.length ? { images: options.images } : {}),
      envelope,
      history,
    };
    if (!this.store) return this.loop(trace, NULL_RECORDER, start, options, false);
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
      return await this.loop(trace, recorder, start, options, false, {
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
    const store = this.requireStore();
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
      return await this.loop(trace, recorder, plan.start, options, true, { maxIterations, lease });
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
    return compactSession(this.requireStore(), this.summaryProvider, sessionId, options);
  }

  /** The run start's line on command containment; the same facts go into each checkpoint. */
  private async sandboxSummary(): Promise<string> {
    if (this.options.sandboxSummary) return this.options.sandboxSummary;
    if (this.workspace.commandSandbox === "off")
      return "sandbox: off (commands run as plain processes; the file tools keep their path checks)";
    return (await probeSandbox()).summary;
  }

  private async toolOrder(sessionId: string): Promise<readonly string[]> {
    let order = this.toolOrders.get(sessionId);
    if (!order) {
      order = this.store ? orderByUse(await this.store.toolStats.list(this.projectKey)) : [];
      this.toolOrders.set(sessionId, order);
    }
    return order;
  }

  private requireStore(): Store {
    if (!this.store) {
      throw new ResonError(
        "usage_error",
        "This agent does not persist runs, so there is nothing to resume.",
        {
          hint: "Create it without `persist: false`.",
        },
      );
    }
    return this.store;
  }

  private async sessionFor(
    choice: string,
    task: string,
    now: number,
    newId?: string,
  ): Promise<{ session: SessionRecord; isNew: boolean }> {
    if (this.store && choice === "latest") {
      const latest = await this.store.sessions.latest(this.projectKey);
      if (latest) return { session: latest, isNew: false };
    } else if (this.store && choice !== "new") {
      const found = await this.store.resolveId(choice);
      if (found.kind !== "session") throw new ResonError("usage_error", `${choice} is a run, not a session.`);
      return { session: found.session, isNew: false };
    }
    const session = newSessionRecord({
      id: newId ?? ulid(now),
      projectKey: this.projectKey,
      workspace: this.workspace.root,
      task,
      model: this.provider.model,
      now,
    });
    return { session, isNew: true };
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

  private async loop(
    trace: TraceRecord,
    recorder: RunRecorder,
    start: LoopStart,
    options: Omit<RunOptions, "session" | "envelope">,
    resumed: boolean,
    extra: {
      maxIterations?: number;
      /** A sub-agent's budget, under its parent's; default a budget of this run's own limits. */
      childBudget?: RunBudget;
      /** The run's lease (persisted runs): its loss aborts the run. The caller releases it. */
      lease?: HeldLease;
      /** A new run that starts untrusted: its session's earlier runs, or its parent run, read untrusted content. */
      inherited?: { sources: readonly UntrustedSource[]; via: "session" | "parent_run" | "message" };
    } = {},
  ): Promise<RunResult> {
    const { childBudget, lease, inherited } = extra;
    const maxIterationsOverride = extra.maxIterations;
    const given = options.signal ?? new AbortController().signal;
    const signal = lease ? AbortSignal.any([given, lease.signal]) : given;
    // Every event of the run is masked once, before any listener (the store, a stream, telemetry).
    const { redact } = this.masking();
    const bus = new EventBus(redact ? (event) => redactDeep(event, redact) : undefined);
    // Numbered and committed under the lease first: what serve streams, and reads again.
    const journal =
      lease && this.store
        ? new RunJournal((ops) => lease.apply(ops), trace.id, await this.store.events.lastSeq(trace.id))
        : undefined;
    if (journal) bus.subscribe((event) => journal.record(event));
    bus.subscribe((event) => this.bus.emit(event));
    if (options.onEvent) bus.subscribe(options.onEvent);
    const { config } = this.loaded;
    const maxIterations = maxIterationsOverride ?? config.maxIterations;
    const step = start.kind === "resume" ? start.snapshot.step : 0;
    const budget = childBudget ?? new RunBudget(this.runLimits(start));
    // Before anything is saved or called: a sub-agent's model, or a resumed run's, may have no price.
    assertCostCountable(budget.costLimit(), this.provider.model);
    const limits = budget.limits;
    const sandbox = await this.sandboxSummary();
    // Saved first, then announced: every id run_start shows (run, session) is in the store.
    await recorder.runStarted(
      start.kind === "new" ? start.task : "",
      start.kind === "new" ? start.envelope : { receivedAt: Date.now(), channel: "cli", chatType: "direct" },
      startSnapshot(start, {
        maxIterations,
        budget,
        sandbox,
        ...(inherited && start.kind === "new" ? { untrusted: inherited.sources } : {}),
      }),
      start.kind === "new" ? start.images : undefined,
    );
    bus.emit({
      type: "run_start",
      runId: trace.id,
      sessionId: trace.sessionId,
      step,
      ts: Date.now(),
      task: trace.task,
      provider: this.provider.model.provider,
      model: this.provider.model.id,
      workspace: this.workspace.root,
      maxIterations,
      ...(Object.keys(limits).length > 0 ? { limits } : {}),
      resumed,
      sandbox,
    });
    if (this.options.plugins)
      bus.emit({ type: "plugins_loaded", runId: trace.id, step, ts: Date.now(), ...this.options.plugins });
    const instructions = await loadInstructions({
      workspaceRoot: this.workspace.root,
      home: this.loaded.home,
      signal,
    });
    for (const message of [
      ...this.loaded.warnings,
      ...instructions.warnings,
      ...this.skills.warnings,
      ...(this.secrets?.warnings ?? []),
    ]) {
      bus.emit({ type: "warning", runId: trace.id, step, ts: Date.now(), message });
    }
    // Top-level runs recall experiences and earlier sessions; sub-agents work from their brief.
    const recall =
      childBudget || !this.learning
        ? undefined
        : await this.learning
            .recall(trace.task, trace.id, trace.sessionId, signal)
            .catch((error: unknown) => {
              const message = `memory recall failed: ${toResonError(error).message}`;
              bus.emit({ type: "warning", runId: trace.id, step, ts: Date.now(), message });
              return undefined;
            });
    const core = this.skills.core;
    const system = assembleSystemPrompt({
      ...(core ? { coreSkill: core } : {}),
      baseline: {
        workspaceRoot: this.workspace.root,
        platform: `${process.platform} ${process.arch}`,
        date: new Date(trace.startedAt).toISOString().slice(0, 10),
        ...(this.options.instructions ? { instructions: this.options.instructions } : {}),
        ...(this.secrets && this.secrets.names.length > 0 ? { secrets: this.secrets.names } : {}),
      },
      instructions: instructions.files,
      ...(recall?.text ? { memory: recall.text } : {}),
    });
    const snapshots = runStepSnapshots({
      settings: config.snapshots,
      home: this.loaded.home,
      workspace: this.workspace,
      persisted: this.store !== undefined,
      runId: trace.id,
      ...(this.options.commandOnlyReads ? { commandOnlyReads: this.options.commandOnlyReads } : {}),
      ...(this.secrets ? { redact: (text: string) => this.secrets!.access.redact(text) } : {}),
      warn: (message) => bus.emit({ type: "warning", runId: trace.id, step, ts: Date.now(), message }),
    });
    if (snapshots) bus.subscribe((event) => snapshots.observe(event));
    // The deadline stops the call in flight; the subagent tool finds this run by its id.
    const watch = budget.watch(signal);
    const run = this.activeRun(trace, recorder, budget, bus, step);
    const announce = async (source: UntrustedSource, via: "read" | "session" | "parent_run" | "message") => {
      const what =
        via === "message"
          ? "was asked by"
          : via === "read"
            ? "read"
            : `continues a ${via === "session" ? "session" : "run"} that read`;
      const reason = `this run ${what} ${describeSource(source)}: ${UNTRUSTED_CONSEQUENCES}`;
      run.emit({ type: "trust_changed", untrusted: true, via, source, reason });
      await recorder.trustChanged({ step: run.step(), via, source, reason });
    };
    // A top-level run that recalled is also shown the lesson a failed call's output calls for.
    const errorLessons =
      recall && this.learning
        ? lessonsAtError(this.learning, {
            traceId: trace.id,
            shownIds: [...recall.experienceIds, ...recall.withheldIds],
            warn: (message) => bus.emit({ type: "warning", runId: trace.id, step, ts: Date.now(), message }),
          })
        : undefined;
    const initial = start.kind === "resume" ? (start.snapshot.untrusted ?? []) : (inherited?.sources ?? []);
    run.trust = new RunTrust(initial, (source) => announce(source, "read"));
    if (start.kind === "new" && inherited && inherited.sources[0])
      await announce(inherited.sources[0], inherited.via);
    // The prompt quotes what a run wrote after reading untrusted content: this run has read it.
    if (recall?.untrustedOrigin)
      await run.trust.mark({
        runId: trace.id,
        toolCallId: "memory",
        tool: "memory",
        origin: recall.untrustedOrigin,
      });
    try {
      const result = await runLoop(
        {
          runId: trace.id,
          sessionId: trace.sessionId,
          systemPrompt: system.text,
          systemManifest: system.manifest,
          provider: this.provider,
          tools: this.tools,
          workspace: this.workspace,
          hooks: errorLessons ? [...this.hooks, errorLessons] : this.hooks,
          limits: {
            maxIterations,
            circuitBreakerThreshold: config.circuitBreakerThreshold,
          },
          budget,
          bus,
          signal: watch.signal,
          recorder,
          summaryProvider: this.summaryProvider,
          budgetRatio: config.contextBudgetRatio,
          estimate: this.estimates.estimate,
          artifacts: this.store
            ? storeArtifacts(this.store, (ops) => recorder.write(ops))
            : memoryArtifacts(),
          ...(this.options.offerTool ? { offerTool: this.options.offerTool } : {}),
          toolOrder: await this.toolOrder(trace.sessionId),
          ...(this.secrets ? { secrets: this.secrets.access } : {}),
          sandbox,
          ...(this.options.askHuman ? { askHuman: this.options.askHuman } : {}),
          ...(snapshots ? { snapshots } : {}),
          trust: run.trust,
          ...(this.options.checkHop ? { checkHop: this.options.checkHop } : {}),
          ...(!childBudget && this.learning
            ? {
                afterRun: async (result: RunResult) => {
                  // A resumed run that learned from this ending already learns nothing twice.
                  if (resumed && learnedFromEnding(await this.requireStore().steps.list(trace.id))) return;
                  await learnAfterRun(this.learning!, { trace, result, recorder, bus, signal });
                },
              }
            : {}),
        },
        start,
      );
      return result;
    } finally {
      watch.dispose();
      await this.browsers?.closeRun(trace.id);
      // A sub-agent outlives an aborted tool call only until its own abort lands.
      await Promise.allSettled(run.children);
      this.active.delete(trace.id);
      // Committed before the lease is let go; a lost lease has ended the run's writes anyway.
      await journal?.flush().catch(() => {});
    }
  }

  /** The run's hard limits: these options', over a resumed run's own, over the preset's. */
  private runLimits(start: LoopStart): RunLimits {
    const preset = typeof this.options.preset === "object" ? this.options.preset.limits : undefined;
    const stored = start.kind === "resume" ? start.snapshot.limits : undefined;
    return definedLimits({ ...preset, ...stored, ...definedLimits(this.options.limits ?? {}) });
  }

  /** Registers a run in flight for the subagent tool; its events carry the step it is at. */
  private activeRun(
    trace: TraceRecord,
    recorder: RunRecorder,
    budget: RunBudget,
    bus: EventBus,
    firstStep: number,
  ): ActiveRun {
    let step = firstStep;
    bus.subscribe((event) => {
      step = event.step;
    });
    const run: ActiveRun = {
      trace,
      recorder,
      budget,
      trust: new RunTrust(),
      step: () => step,
      children: new Set(),
      emit: (event) => bus.emit({ ...event, runId: trace.id, step, ts: Date.now() } as ResonEvent),
    };
    this.active.set(trace.id, run);
    return run;
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
      const now = Date.now();
      const trace: TraceRecord = {
        ...child.traceRecord(spec.runId, parent.trace.sessionId, spec.task, now),
        parentTraceId: parent.trace.id,
      };
      const start: LoopStart = {
        kind: "new",
        task: spec.task,
        envelope: { receivedAt: now, channel: "subagent", chatType: "direct", senderId: parent.trace.id },
        history: [],
      };
      const budget = parent.budget.child(spec.limits);
      // A sub-agent holds a lease of its own run, so that its trace is not resumed elsewhere
      // while it runs; it ends (and lets it go) before its parent does.
      const lease = this.store ? await child.takeLease(this.store, trace.id) : undefined;
      try {
        // A sub-agent of an untrusted run works from what that run read: it starts untrusted.
        const sources = parent.trust.sources;
        return await child.loop(
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
   * The agent a sub-agent runs as: the preset's tools (never subagent) in a fresh registry, a
   * workspace of its own (read-only where asked), the parent's provider unless the preset names
   * another model, and the parent's hooks (the same array: the same permission checks), store,
   * skills and secrets.
   */
  private childAgent(preset: Preset, readOnly: boolean): Promise<Agent> {
    const setup = this.subagents;
    if (!setup) {
      return Promise.reject(
        new ResonError("tool_not_found", "Sub-agents cannot start sub-agents of their own."),
      );
    }
    const key = `${preset.name}\u0000${preset.source}\u0000${readOnly}`;
    let made = this.childAgents.get(key);
    if (!made) {
      made = this.makeChildAgent(setup, preset, readOnly);
      made.catch(() => this.childAgents.delete(key));
      this.childAgents.set(key, made);
    }
    return made;
  }

  private async makeChildAgent(setup: SubagentSetup, preset: Preset, readOnly: boolean): Promise<Agent> {
    const childReadOnly = readOnly || preset.readOnly === true;
    const workspace = await openWorkspace(this.workspace.root, {
      env: setup.env,
      commandSandbox: setup.commandSandbox,
      policy: { resonHome: resonHome(setup.env), readOnly: childReadOnly },
      ...(setup.options.textFiles ? { textFiles: setup.options.textFiles } : {}),
    });
    const provider =
      preset.model && preset.model !== this.provider.model.id
        ? await createProvider({ ...setup.settings, model: preset.model }, setup.providerOptions)
        : this.provider;
    const browsers = childReadOnly ? undefined : this.browsers;
    const { tools } = await agentTools({
      config: this.loaded.config,
      preset,
      readOnly: childReadOnly,
      commandSandbox: setup.commandSandbox,
      extra: [...(setup.options.tools ?? []), ...(browsers ? createBrowserTools(browsers) : [])],
      skills: this.skills,
      contextWindow: provider.model.contextWindow,
    });
    // A sub-agent runs unattended, often beside others: it has no one to ask.
    const { askHuman: _unattended, ...shared } = setup.options;
    const child = new Agent(
      workspace,
      provider,
      tools,
      this.loaded,
      this.store,
      withPreset({ ...shared, hooks: this.hooks, preset }, preset),
      false,
      this.summaryProvider,
      this.skills,
      this.secrets,
    );
    child.browsers = browsers;
    // Its runs are this agent's runs in flight too: a host that emits into one (an approval
    // asked over HTTP, a plugin hook's failure) finds it here, whichever agent runs it.
    child.active = this.active;
    return child;
  }
}

/** A run in flight, as the subagent tool and its children need it. */
interface ActiveRun extends ParentRun {
  trace: TraceRecord;
  recorder: RunRecorder;
  /** Whether the run has read untrusted content (its sub-agents start from it). */
  trust: RunTrust;
  /** The step the run is at. */
  step(): number;
  /** Sub-agent runs started by this run, awaited before the run returns. */
  children: Set<Promise<RunResult>>;
  emit(event: HostEvent): void;
}

/** The reads that made a session untrusted: those its newest top-level run kept (inherited ones included). */
async function sessionUntrust(store: Store, session: SessionRecord): Promise<UntrustedSource[]> {
  if (!session.lastTraceId) return [];
  const checkpoint = await store.checkpoints.get(session.lastTraceId);
  return (checkpoint?.state as { untrusted?: UntrustedSource[] } | undefined)?.untrusted ?? [];
}
