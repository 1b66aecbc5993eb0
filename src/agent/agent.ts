// createAgent: the runtime as a library. Loads the config, resolves the model, opens the
// workspace, the tools and the store once; each `run` is one loop with its own id and
// events, persisted step by step so that `resume` can finish it after a crash, and held
// under a lease while it runs so that no other process runs it at the same time.

import { mkdir, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import {
  type LoadedConfig,
  loadConfig,
  loadPresets,
  type PartialConfig,
  type Preset,
  pickPreset,
  type ResonConfig,
  resonHome,
} from "../config/index.js";
import {
  applyCompaction,
  assembleSystemPrompt,
  type HistoryEntry,
  loadInstructions,
  RequestEstimator,
  SUMMARY_SYSTEM_PROMPT,
  summaryRequestText,
  transcriptOf,
  turnsToHistory,
} from "../context/index.js";
import { ResonError, serializeError, toResonError } from "../core/errors.js";
import { EventBus, type EventListener, type LearningReport, type ResonEvent } from "../core/events.js";
import { ulid } from "../core/ids.js";
import { addUsage, emptyUsage, type RunLimits } from "../core/usage.js";
import {
  type CreateProviderOptions,
  cachedEmbedder,
  createEmbeddingProvider,
  createProvider,
  type EmbeddingProvider,
  type Provider,
  type ProviderName,
  type ProviderSettings,
  resolveEmbeddingSettings,
  resolveProviderSettings,
} from "../providers/index.js";
import { type SecretNameInfo, SecretVault } from "../secrets/index.js";
import { createSkillTool, discoverSkills, SkillSet } from "../skills/index.js";
import {
  describeHolder,
  holderAlive,
  leaseSince,
  type MessageContext,
  openStore,
  projectKey,
  type SessionRecord,
  type Store,
  type TraceRecord,
} from "../store/index.js";
import {
  type AskHuman,
  createBuiltinTools,
  orderByUse,
  type SecretAccess,
  type ToolDefinition,
  ToolRegistry,
} from "../tools/index.js";
import { probeSandbox, Workspace, type WorkspaceOptions } from "../workspace/index.js";
import { memoryArtifacts, storeArtifacts } from "./artifacts.js";
import { RunBudget } from "./budget.js";
import type { AgentHooks } from "./hooks.js";
import { Learning } from "./learning.js";
import { type LoopStart, runLoop, startSnapshot } from "./loop.js";
import { type LoopSnapshot, NULL_RECORDER, type RunRecorder, StoreRecorder } from "./recorder.js";
import { closeOpenToolCalls, conversationTurns, learnedFromEnding, planResume } from "./resume.js";
import { HeldLease } from "./run-lease.js";
import { secretAccess } from "./secret-access.js";
import {
  type ChildSpec,
  createSubagentTool,
  type ParentRun,
  SUBAGENT_TOOL,
  type SubagentHost,
} from "./subagent-tool.js";
import type { RunResult } from "./types.js";
import { workspaceStanding } from "./workspace-trust.js";

export interface AgentOptions {
  /** The folder the agent works in; default the current directory. */
  workspace?: string;
  provider?: ProviderName;
  model?: string;
  baseUrl?: string;
  /** Else taken from the provider's usual environment variable; never stored. */
  apiKey?: string;
  maxIterations?: number;
  /**
   * Hard limits on what each run may spend, its sub-agents included: tokens, cost, wall time.
   * Checked around every model call (the time also by a timer that stops the call in flight);
   * a run over its limit ends "failed" with `budget_exceeded`. Default: a preset's limits, else none.
   */
  limits?: RunLimits;
  /** Any other configuration, with the precedence of flags. */
  config?: PartialConfig;
  hooks?: AgentHooks | AgentHooks[];
  /** Tools added to the built-in ones (same name replaces). */
  tools?: ToolDefinition[];
  /** Appended to the system prompt. */
  instructions?: string;
  env?: NodeJS.ProcessEnv;
  /** Keep runs in the store so they can be listed and resumed (default true). */
  persist?: boolean;
  /** A store to use instead of opening the default one ($RESON_HOME/reson.db or RESON_DATABASE_URL). */
  store?: Store;
  /** Which tools the model is offered (e.g. plan mode offers no write tools); default all. */
  offerTool?: (name: string) => boolean;
  /**
   * The secrets tools may use as <secret>name</secret>; default those of
   * $RESON_HOME/secrets.json. Pass `SecretVault.empty()` for none.
   */
  secrets?: SecretVault;
  /**
   * "on" (default): commands run in the OS sandbox, and are refused where none works (fail
   * closed); "off": commands run as plain processes (the caller has its own containment, or
   * approves each command).
   */
  sandbox?: "on" | "off";
  /** Plan and explore agents: the workspace is read-only for file tools and commands alike. */
  readOnlyWorkspace?: boolean;
  /**
   * true: work in a broad folder (the home folder, a folder above it, or one holding
   * $RESON_HOME) although the user has not trusted it. Default false: such a workspace is
   * refused (`workspace_untrusted`) unless the user trusted it in the interactive terminal.
   * `/`, system folders and $RESON_HOME itself are refused whatever this says.
   */
  trustWorkspace?: boolean;
  /** false: no long-term memory or experiences for this agent (default: config `memory.enabled`). */
  memory?: boolean;
  /** The sandbox line of the run start (default: what the sandbox probe found, or "off"). */
  sandboxSummary?: string;
  /**
   * A preset (agent type) by name (`explore`, `plan`, `analyst`, `evaluate`, `default`, or one
   * from presets.json), or given whole: its model, instructions, tools, read-only and limits
   * apply where these options say nothing else.
   */
  preset?: string | Preset;
  /**
   * How ask_human reaches the user: resolves with the answer ("" when the user declined), or
   * undefined when no one is there. Absent: ask_human tells the model to decide for itself.
   */
  askHuman?: AskHuman;
  /**
   * What holds the leases of this agent's runs, as a process that finds a run busy is told
   * ("reson run", "reson resume", "worker"); default "reson library".
   */
  leaseHolder?: string;
}

/** What an agent knows of the user's secrets: names for the prompt, access for the tools. */
interface AgentSecrets {
  access: SecretAccess;
  names: SecretNameInfo[];
  warnings: readonly string[];
}

export interface RunOptions {
  signal?: AbortSignal;
  onEvent?: EventListener;
  /**
   * Which session the run belongs to: "new" (default), "latest" (the newest session of this
   * workspace, whose turns become the history), or a session id.
   */
  session?: "new" | "latest" | string;
  /** Envelope facts of the task turn (channel, sender…); default the terminal. */
  envelope?: Partial<MessageContext>;
}

export interface ResumeOptions extends Omit<RunOptions, "session" | "envelope"> {
  /**
   * Take the run over although its lease is held by a process that is still alive, once that
   * lease has expired (a stopped or stuck process). A lease that has not expired is never taken.
   */
  force?: boolean;
}

export class Agent {
  private readonly bus = new EventBus();
  private readonly hooks: AgentHooks[];
  /** Per session, the order tools are offered in (most used in this project first), fixed. */
  private readonly toolOrders = new Map<string, readonly string[]>();
  /** The runs in flight, by id: what the subagent tool needs of the run that called it. */
  private readonly active = new Map<string, ActiveRun>();
  /** The agents sub-agents run as, per preset and read-only (made on first use). */
  private readonly childAgents = new Map<string, Promise<Agent>>();
  readonly projectKey: string;
  /** Memory and experiences (top-level agents with a store and memory on). */
  learning: Learning | undefined;

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
    if (subagents) tools.register(createSubagentTool(this.subagentHost()));
  }

  /** Receives the events of every run of this agent. */
  subscribe(listener: EventListener): () => void {
    return this.bus.subscribe(listener);
  }

  async run(task: string, options: RunOptions = {}): Promise<RunResult> {
    const runId = ulid();
    const now = Date.now();
    const envelope: MessageContext = {
      receivedAt: now,
      channel: "cli",
      chatType: "direct",
      ...options.envelope,
    };
    const { session, isNew } = await this.sessionFor(options.session ?? "new", task, now);
    if (!isNew && this.store) await assertSessionFree(this.store, session);
    const history = isNew || !this.store ? [] : await this.sessionHistory(session);
    const trace = this.traceRecord(runId, session.id, task, now);
    const start: LoopStart = { kind: "new", task, envelope, history };
    if (!this.store) return this.loop(trace, NULL_RECORDER, start, options, false);
    // Taken before the trace is stored, so the run is never in the store unheld.
    const lease = await this.takeLease(this.store, trace.id);
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
      });
      return await this.loop(trace, recorder, start, options, false, { lease });
    } finally {
      await lease.release();
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
    const lease = await this.takeLease(store, found.id, options.force);
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
      });
      // The run keeps the limit it was started with, unless this agent was given one.
      const maxIterations = this.options.maxIterations ?? plan.start.snapshot.maxIterations;
      return await this.loop(trace, recorder, plan.start, options, true, { maxIterations, lease });
    } finally {
      await lease.release();
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
  stream(
    task: string,
    options: Omit<RunOptions, "onEvent"> = {},
  ): AsyncIterable<ResonEvent> & {
    result: Promise<RunResult>;
  } {
    const queue: ResonEvent[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    const result = this.run(task, {
      ...options,
      onEvent: (event) => {
        queue.push(event);
        wake?.();
      },
    }).finally(() => {
      ended = true;
      wake?.();
    });
    async function* iterate(): AsyncGenerator<ResonEvent> {
      for (;;) {
        const next = queue.shift();
        if (next) {
          yield next;
          continue;
        }
        if (ended) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    }
    return { [Symbol.asyncIterator]: iterate, result };
  }

  /** Releases the store (when this agent opened it). */
  async close(): Promise<void> {
    if (this.store && this.ownsStore) await this.store.close();
  }

  /** A session's turns as the next run sees them: after a /compact, the summary and what followed. */
  private async sessionHistory(session: SessionRecord): Promise<HistoryEntry[]> {
    const { conversation: turns } = await conversationTurns(this.requireStore(), session.id);
    const compaction = session.settings.compaction;
    if (!compaction) return closeOpenToolCalls(turnsToHistory(turns));
    // The compacted turns are read too, for the skills loaded there: they stay beside the summary.
    const compacted = turnsToHistory(turns.filter((t) => t.seq < compaction.upToSeq));
    const kept = closeOpenToolCalls(turnsToHistory(turns.filter((t) => t.seq >= compaction.upToSeq)));
    const summary = { upTo: compacted.length, summary: compaction.summary, count: compaction.count };
    return applyCompaction([...compacted, ...kept], summary, -1);
  }

  /**
   * Summarises a session's history so far with the summary model (the terminal's /compact):
   * later runs of the session see the summary instead of the turns before it, except the
   * newest `keepTurns`. The turns themselves stay in the store.
   */
  async compactSession(
    sessionId: string,
    options: { focus?: string; keepTurns?: number; signal?: AbortSignal } = {},
  ): Promise<{ turns: number; summaryChars: number; beforeTokens: number; afterTokens: number }> {
    const store = this.requireStore();
    const session = await store.sessions.get(sessionId);
    if (!session) throw new ResonError("not_found", `No session ${sessionId}.`);
    const { conversation: turns } = await conversationTurns(store, sessionId);
    const previous = session.settings.compaction;
    const from = previous?.upToSeq ?? 0;
    // Keep the newest task and what followed it; cut before a user turn, so that a tool call
    // never loses its result.
    let cut = Math.max(from, turns.length - (options.keepTurns ?? 1));
    while (cut > from && turns[cut]?.role !== "user") cut--;
    const part = turns.filter((t) => t.seq >= from && t.seq < cut);
    if (part.length === 0)
      throw new ResonError("usage_error", "There is nothing to compact yet in this session.");
    const before = await this.sessionHistory(session);
    const estimator = new RequestEstimator();
    const size = (entries: HistoryEntry[]) =>
      entries.reduce((n, e) => n + estimator.messageTokens(e.message), 0);
    const chat = await this.summaryProvider.chat(
      {
        systemPrompt: SUMMARY_SYSTEM_PROMPT,
        messages: [
          {
            role: "user",
            content: summaryRequestText(transcriptOf(turnsToHistory(part), previous?.summary), options.focus),
            timestamp: Date.now(),
          },
        ],
        tools: [],
      },
      options.signal ? { signal: options.signal } : {},
    );
    const summary = chat.text.trim();
    if (!summary)
      throw new ResonError("provider_bad_response", "The summary model returned an empty summary.");
    const compaction = {
      upToSeq: turns[cut]?.seq ?? turns.length,
      summary,
      count: (previous?.count ?? 0) + 1,
    };
    const settings = { ...session.settings, compaction };
    await store.apply([
      {
        op: "updateSession",
        id: session.id,
        patch: { settings, usage: addUsage(session.usage, chat.usage), updatedAt: Date.now() },
      },
    ]);
    const after = await this.sessionHistory({ ...session, settings });
    return {
      turns: part.length,
      summaryChars: summary.length,
      beforeTokens: size(before),
      afterTokens: size(after),
    };
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
  ): Promise<{ session: SessionRecord; isNew: boolean }> {
    if (this.store && choice === "latest") {
      const latest = await this.store.sessions.latest(this.projectKey);
      if (latest) return { session: latest, isNew: false };
    } else if (this.store && choice !== "new") {
      const found = await this.store.resolveId(choice);
      if (found.kind !== "session") throw new ResonError("usage_error", `${choice} is a run, not a session.`);
      return { session: found.session, isNew: false };
    }
    const model = this.provider.model;
    const session: SessionRecord = {
      id: ulid(now),
      projectKey: this.projectKey,
      workspace: this.workspace.root,
      title: titleOf(task, this.workspace.root),
      status: "active",
      settings: {
        provider: model.provider,
        model: model.id,
        ...(model.baseUrl ? { baseUrl: model.baseUrl } : {}),
      },
      usage: emptyUsage(),
      lastTraceId: null,
      createdAt: now,
      updatedAt: now,
    };
    return { session, isNew: true };
  }

  private traceRecord(runId: string, sessionId: string, task: string, now: number): TraceRecord {
    const model = this.provider.model;
    return {
      id: runId,
      sessionId,
      parentTraceId: null,
      task,
      preset:
        typeof this.options.preset === "object" ? this.options.preset.name : (this.options.preset ?? null),
      provider: model.provider,
      model: model.id,
      baseUrl: model.baseUrl || null,
      status: "running",
      usage: emptyUsage(),
      steps: 0,
      error: null,
      startedAt: now,
      endedAt: null,
      updatedAt: now,
    };
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
    } = {},
  ): Promise<RunResult> {
    const { childBudget, lease } = extra;
    const maxIterationsOverride = extra.maxIterations;
    const given = options.signal ?? new AbortController().signal;
    const signal = lease ? AbortSignal.any([given, lease.signal]) : given;
    const bus = new EventBus();
    bus.subscribe((event) => this.bus.emit(event));
    if (options.onEvent) bus.subscribe(options.onEvent);
    const { config } = this.loaded;
    const maxIterations = maxIterationsOverride ?? config.maxIterations;
    const step = start.kind === "resume" ? start.snapshot.step : 0;
    const budget = childBudget ?? new RunBudget(this.runLimits(start));
    const limits = budget.limits;
    const sandbox = await this.sandboxSummary();
    // Saved first, then announced: every id run_start shows (run, session) is in the store.
    await recorder.runStarted(
      start.kind === "new" ? start.task : "",
      start.kind === "new" ? start.envelope : { receivedAt: Date.now(), channel: "cli", chatType: "direct" },
      startSnapshot(start, { maxIterations, budget, sandbox }),
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
    // The deadline stops the call in flight; the subagent tool finds this run by its id.
    const watch = budget.watch(signal);
    const run = this.activeRun(trace, recorder, budget, bus, step);
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
          hooks: this.hooks,
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
          artifacts: this.store
            ? storeArtifacts(this.store, (ops) => recorder.write(ops))
            : memoryArtifacts(),
          ...(this.options.offerTool ? { offerTool: this.options.offerTool } : {}),
          toolOrder: await this.toolOrder(trace.sessionId),
          ...(this.secrets ? { secrets: this.secrets.access } : {}),
          sandbox,
          ...(this.options.askHuman ? { askHuman: this.options.askHuman } : {}),
          ...(!childBudget && this.learning
            ? {
                afterRun: (result: RunResult) =>
                  this.learnFrom(trace, result, recorder, resumed, bus, signal),
              }
            : {}),
        },
        start,
      );
      return result;
    } finally {
      watch.dispose();
      // A sub-agent outlives an aborted tool call only until its own abort lands.
      await Promise.allSettled(run.children);
      this.active.delete(trace.id);
    }
  }

  /**
   * After a run: remember it, count its outcome, reflect; a failure here never fails the run.
   * Once per ending of the run: a "learning" step is committed with learning's last changes, and
   * a resumed run that finds it (killed before run_end, or resumed again) learns nothing twice.
   */
  private async learnFrom(
    trace: TraceRecord,
    result: RunResult,
    recorder: RunRecorder,
    resumed: boolean,
    bus: EventBus,
    signal: AbortSignal,
  ): Promise<void> {
    if (resumed && learnedFromEnding(await this.requireStore().steps.list(trace.id))) return;
    const warn = (message: string) =>
      bus.emit({ type: "warning", runId: trace.id, step: result.steps, ts: Date.now(), message });
    const commitWith = recorder.learningMark();
    let report: LearningReport;
    try {
      report = await this.learning!.afterRun({
        commitWith,
        commit: (ops) => recorder.write([...ops]),
        traceId: trace.id,
        sessionId: trace.sessionId,
        task: trace.task,
        status: result.status,
        ...(result.error ? { errorCode: result.error.code } : {}),
        finalText: result.finalText,
        steps: result.steps,
        signal,
      });
    } catch (error) {
      const failure = toResonError(error);
      warn(`learning from this run failed: ${failure.message}`);
      // Tried once, and recorded so: a resume does not try again.
      await recorder.learned({ error: serializeError(failure) }, false).catch(() => {});
      return;
    }
    // A reflection's changes were committed with the mark; otherwise it is written now.
    await recorder
      .learned(report, report.reflected)
      .catch((error: unknown) => warn(`could not record the learning step: ${toResonError(error).message}`));
    bus.emit({ type: "learning", runId: trace.id, step: result.steps, ts: Date.now(), ...report });
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
          { maxIterations: spec.maxSteps, childBudget: budget, ...(lease ? { lease } : {}) },
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
    });
    const provider =
      preset.model && preset.model !== this.provider.model.id
        ? await createProvider({ ...setup.settings, model: preset.model }, setup.providerOptions)
        : this.provider;
    const { tools } = await agentTools({
      config: this.loaded.config,
      preset,
      readOnly: childReadOnly,
      commandSandbox: setup.commandSandbox,
      extra: setup.options.tools ?? [],
      skills: this.skills,
      contextWindow: provider.model.contextWindow,
    });
    // A sub-agent runs unattended, often beside others: it has no one to ask.
    const { askHuman: _unattended, ...shared } = setup.options;
    return new Agent(
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
  }
}

/** A run in flight, as the subagent tool and its children need it. */
interface ActiveRun extends ParentRun {
  trace: TraceRecord;
  recorder: RunRecorder;
  /** Sub-agent runs started by this run, awaited before the run returns. */
  children: Set<Promise<RunResult>>;
}

/** How createAgent made an agent, kept so its sub-agents are made the same way. */
interface SubagentSetup {
  /** As given to createAgent, before its preset was applied. */
  options: AgentOptions;
  env: NodeJS.ProcessEnv;
  commandSandbox: "on" | "off";
  settings: ProviderSettings;
  providerOptions: CreateProviderOptions;
}

/** Resume of a run that already ended and was learned from: its stored outcome, nothing run. */
function endedResult(trace: TraceRecord, snapshot: LoopSnapshot): RunResult {
  return {
    runId: trace.id,
    sessionId: trace.sessionId,
    status: "completed",
    finalText: snapshot.lastText,
    steps: trace.steps,
    usage: trace.usage,
    durationMs: (trace.endedAt ?? trace.updatedAt) - trace.startedAt,
    alreadyEnded: true,
  };
}

/**
 * Refuses a new run in a session whose newest run another live process holds: the two would
 * write the same conversation at once.
 */
async function assertSessionFree(store: Store, session: SessionRecord): Promise<void> {
  if (!session.lastTraceId) return;
  const lease = await store.leases.get(session.lastTraceId);
  if (lease?.state !== "held" || holderAlive(lease.holder) === false) return;
  throw new ResonError(
    "run_leased",
    `Session ${session.id} is busy: its run ${lease.traceId} is held by ${describeHolder(lease.holder)} ${leaseSince(lease)}.`,
    {
      hint: "Wait for that run to end, or start a new session (without --continue).",
      details: { sessionId: session.id, traceId: lease.traceId, holder: lease.holder, epoch: lease.epoch },
    },
  );
}

function definedLimits(limits: RunLimits): RunLimits {
  const out: RunLimits = {};
  if (limits.maxTokens !== undefined) out.maxTokens = limits.maxTokens;
  if (limits.maxCostUsd !== undefined) out.maxCostUsd = limits.maxCostUsd;
  if (limits.maxWallMs !== undefined) out.maxWallMs = limits.maxWallMs;
  return out;
}

function titleOf(task: string, workspace: string): string {
  const line = task.trim().split("\n", 1)[0] ?? "";
  const title = line.length > 80 ? `${line.slice(0, 79)}…` : line;
  return title || basename(workspace);
}

/**
 * A run by id or unique prefix; a session id means the session's newest run. A session and its
 * first run are made in the same millisecond, so their ids share the 10-character time part: a
 * short prefix that names only a session and its own runs is read as the session.
 */
export async function findTrace(store: Store, id: string): Promise<TraceRecord> {
  const found = await store.resolveId(id).catch(async (error: unknown) => {
    const session = await sessionOwningAll(store, error);
    if (!session) throw error;
    return { kind: "session" as const, session };
  });
  if (found.kind === "trace") return found.trace;
  const traceId = found.session.lastTraceId;
  const trace = traceId ? await store.traces.get(traceId) : undefined;
  if (!trace) throw new ResonError("not_found", `Session ${found.session.id} has no run to resume.`);
  return trace;
}

async function sessionOwningAll(store: Store, error: unknown): Promise<SessionRecord | undefined> {
  if (!(error instanceof ResonError) || error.code !== "ambiguous_id") return undefined;
  const candidates = (error.details?.candidates ?? []) as Array<{ kind: string; id: string }>;
  const sessions = candidates.filter((c) => c.kind === "session");
  if (sessions.length !== 1 || candidates.length > 10) return undefined;
  const session = await store.sessions.get(sessions[0]!.id);
  if (!session) return undefined;
  for (const candidate of candidates.filter((c) => c.kind === "trace")) {
    const trace = await store.traces.get(candidate.id);
    if (trace?.sessionId !== session.id) return undefined;
  }
  return session;
}

/** The preset asked for (by name, from the built-in ones and the presets.json files), if any. */
async function resolvePreset(
  options: AgentOptions,
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<Preset | undefined> {
  if (options.preset === undefined) return undefined;
  if (typeof options.preset !== "string") return options.preset;
  const root = await realpath(dir).catch(() => dir);
  return pickPreset(await loadPresets({ home: resonHome(env), workspace: root }), options.preset);
}

/**
 * Which tools an agent gets at all (not merely offered): a preset's list, and for a read-only
 * agent no tool with side effects except commands, which only run where the OS sandbox can
 * mount the workspace read-only.
 */
async function toolFilter(
  preset: Preset | undefined,
  readOnly: boolean,
  commandSandbox: "on" | "off",
): Promise<(name: string, toolReadOnly: boolean) => boolean> {
  const listed = preset?.tools ? new Set(preset.tools) : undefined;
  // Only a read-only agent needs to know now (its commands need a read-only mount).
  const commandsContained =
    readOnly && commandSandbox === "on" && (await probeSandbox()).level === "enforced";
  return (name, toolReadOnly) => {
    if (listed && !listed.has(name)) return false;
    if (!readOnly) return true;
    if (name === "execute_command") return commandsContained;
    // goal changes only the run's own plan.
    return toolReadOnly || name === "goal";
  };
}

function withPreset(options: AgentOptions, preset: Preset): AgentOptions {
  const instructions = [options.instructions, preset.instructions].filter(Boolean).join("\n\n");
  return { ...options, preset, ...(instructions ? { instructions } : {}) };
}

async function openWorkspace(dir: string, options: WorkspaceOptions): Promise<Workspace> {
  try {
    return await Workspace.open(dir, options);
  } catch (error) {
    const cause = toResonError(error);
    throw new ResonError("workspace_invalid", cause.message, {
      cause,
      ...(cause.hint ? { hint: cause.hint } : {}),
      details: { path: dir },
    });
  }
}

/** The store runs go to: RESON_DATABASE_URL, else $RESON_HOME/reson.db. */
export function openDefaultStore(home: string, env: NodeJS.ProcessEnv = process.env): Promise<Store> {
  const databaseUrl = env.RESON_DATABASE_URL?.trim();
  return openStore({ home, ...(databaseUrl ? { databaseUrl } : {}) });
}

export async function createAgent(options: AgentOptions = {}): Promise<Agent> {
  const env = options.env ?? process.env;
  const commandSandbox = options.sandbox ?? "on";
  // The probe runs a command in bubblewrap; started now, it overlaps the rest of the setup.
  if (commandSandbox === "on") void probeSandbox();
  const dir = options.workspace ?? process.cwd();
  const preset = await resolvePreset(options, dir, env);
  const readOnly = options.readOnlyWorkspace ?? preset?.readOnly ?? false;
  const workspace = await openWorkspace(dir, {
    env,
    commandSandbox,
    policy: { resonHome: resonHome(env), readOnly },
  });
  const standing = await workspaceStanding(workspace.root, env);
  if (standing.kind === "refused") throw standing.error;
  if (standing.kind === "needs_trust" && options.trustWorkspace !== true) throw standing.error;
  // reson's own folder inside the workspace is hidden from commands by a mount over it, which
  // needs it to exist: made now, or a command could create it with settings of its choosing.
  if (workspace.policy.sealed.length > 0) await mkdir(resonHome(env), { recursive: true, mode: 0o700 });
  const flags: PartialConfig = { ...options.config };
  if (options.provider) flags.provider = options.provider;
  const model = options.model ?? preset?.model;
  if (model) flags.model = model;
  if (options.baseUrl) flags.baseUrl = options.baseUrl;
  const maxIterations = options.maxIterations ?? preset?.maxIterations;
  if (maxIterations !== undefined) flags.maxIterations = maxIterations;
  const loaded = await loadConfig({ workspace: workspace.root, env, flags });
  const { config } = loaded;

  const settings = await resolveProviderSettings(
    {
      ...(config.provider ? { provider: config.provider } : {}),
      ...(config.model ? { model: config.model } : {}),
      ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    },
    env,
  );
  if (config.contextWindow) settings.contextWindow = config.contextWindow;
  if (config.maxOutputTokens) settings.maxTokens = config.maxOutputTokens;
  const providerOptions = {
    retry: config.retry,
    timeouts: {
      ...(config.timeouts.headersMs ? { headersTimeoutMs: config.timeouts.headersMs } : {}),
      ...(config.timeouts.idleMs ? { idleTimeoutMs: config.timeouts.idleMs } : {}),
    },
  };
  const provider = await createProvider(settings, providerOptions);
  const summaryProvider =
    config.summaryModel && config.summaryModel !== provider.model.id
      ? await createProvider({ ...settings, model: config.summaryModel }, providerOptions)
      : provider;

  const skills = new SkillSet(
    await discoverSkills({ workspaceRoot: workspace.root, home: loaded.home, userHome: homedir() }),
  );
  const { tools, allowed } = await agentTools({
    config,
    preset,
    readOnly,
    commandSandbox,
    extra: options.tools ?? [],
    skills,
    contextWindow: provider.model.contextWindow,
  });
  const vault = options.secrets ?? (await SecretVault.load(join(loaded.home, "secrets.json"), { env }));
  const secrets: AgentSecrets = {
    access: secretAccess(vault, workspace.root, settings.apiKey),
    names: vault.names(),
    warnings: vault.warnings,
  };
  const persist = options.persist ?? true;
  const store = options.store ?? (persist ? await openDefaultStore(loaded.home, env) : undefined);
  const agent = new Agent(
    workspace,
    provider,
    tools,
    loaded,
    store,
    preset ? withPreset(options, preset) : options,
    !options.store,
    summaryProvider,
    skills,
    secrets,
    // Not for read-only agents: a delegated sub-agent may write.
    allowed(SUBAGENT_TOOL, false) ? { options, env, commandSandbox, settings, providerOptions } : undefined,
  );
  if (store && config.memory.enabled && options.memory !== false) {
    agent.learning = new Learning({
      store,
      projectKey: agent.projectKey,
      reflector: summaryProvider,
      redact: (text) => secrets.access.redact(text),
      ...(await embedderFor(config, env, store, secrets.access)),
      settings: config.memory,
    });
  }
  return agent;
}

/** The embedding model of memory search, cached in the store; none configured: full text only. */
async function embedderFor(
  config: LoadedConfig["config"],
  env: NodeJS.ProcessEnv,
  store: Store,
  secrets: SecretAccess,
): Promise<{ embedder?: EmbeddingProvider }> {
  const resolved = resolveEmbeddingSettings(config, env);
  if (!resolved.settings) return {};
  const provider = createEmbeddingProvider(resolved.settings, { retry: config.retry });
  const cache = {
    get: (model: string, hashes: readonly string[]) => store.memory.cachedEmbeddings(model, hashes),
    put: (model: string, entries: ReadonlyArray<{ hash: string; vec: Float32Array }>) =>
      store.memory.cacheEmbeddings(
        model,
        entries.map((entry) => ({ hash: entry.hash, vector: entry.vec })),
      ),
  };
  return { embedder: cachedEmbedder(provider, cache, { redact: (text) => secrets.redact(text) }) };
}

/**
 * The tools an agent has: the built-in ones, the caller's and the skill tool, as far as its
 * preset and read-only state allow (the same for an agent and its sub-agents).
 */
async function agentTools(setup: {
  config: ResonConfig;
  preset: Preset | undefined;
  readOnly: boolean;
  commandSandbox: "on" | "off";
  extra: ToolDefinition[];
  skills: SkillSet;
  contextWindow: number;
}): Promise<{ tools: ToolRegistry; allowed: (name: string, toolReadOnly: boolean) => boolean }> {
  const { config, skills } = setup;
  const tools = new ToolRegistry({ maxOutputChars: config.tools.maxOutputChars });
  const allowed = await toolFilter(setup.preset, setup.readOnly, setup.commandSandbox);
  for (const tool of createBuiltinTools({
    commandTimeoutMs: config.tools.commandTimeoutMs,
    commandSandbox: setup.commandSandbox === "on",
  }))
    if (allowed(tool.name, tool.readOnly)) tools.register(tool);
  for (const tool of setup.extra) if (allowed(tool.name, tool.readOnly)) tools.register(tool);
  // The catalogue in the skill tool's description: about 2% of the window, in characters.
  const budgetChars = Math.min(16_000, Math.max(2_000, Math.floor(setup.contextWindow * 0.02 * 4)));
  if (allowed("skill", true))
    tools.register(
      createSkillTool(() => skills.list(), { budgetChars, isEnabled: (name) => skills.isEnabled(name) }),
    );
  return { tools, allowed };
}
