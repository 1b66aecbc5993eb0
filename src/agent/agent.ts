// createAgent: the runtime as a library. Loads the config, resolves the model, opens the
// workspace, the tools and the store once; each `run` is one loop with its own id and
// events, persisted step by step so that `resume` can finish it after a crash.
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { type LoadedConfig, loadConfig, type PartialConfig, resonHome } from "../config/index.js";
import {
  assembleSystemPrompt,
  type HistoryEntry,
  loadInstructions,
  RequestEstimator,
  SUMMARY_SYSTEM_PROMPT,
  summaryEntry,
  summaryRequestText,
  transcriptOf,
  turnsToHistory,
} from "../context/index.js";
import { ResonError, toResonError } from "../core/errors.js";
import { EventBus, type EventListener, type ResonEvent } from "../core/events.js";
import { ulid } from "../core/ids.js";
import { addUsage, emptyUsage } from "../core/usage.js";
import {
  createProvider,
  type Provider,
  type ProviderName,
  resolveProviderSettings,
} from "../providers/index.js";
import { type SecretNameInfo, SecretVault } from "../secrets/index.js";
import { createSkillTool, discoverSkills, SkillSet } from "../skills/index.js";
import {
  type MessageContext,
  openStore,
  projectKey,
  type SessionRecord,
  type Store,
  type TraceRecord,
} from "../store/index.js";
import {
  createBuiltinTools,
  orderByUse,
  type SecretAccess,
  type ToolDefinition,
  ToolRegistry,
} from "../tools/index.js";
import { probeSandbox, Workspace, type WorkspaceOptions } from "../workspace/index.js";
import { memoryArtifacts, storeArtifacts } from "./artifacts.js";
import type { AgentHooks } from "./hooks.js";
import { type LoopStart, runLoop } from "./loop.js";
import { NULL_RECORDER, type RunRecorder, StoreRecorder } from "./recorder.js";
import { closeOpenToolCalls, planResume } from "./resume.js";
import { secretAccess } from "./secret-access.js";
import type { RunResult } from "./types.js";

export interface AgentOptions {
  /** The folder the agent works in; default the current directory. */
  workspace?: string;
  provider?: ProviderName;
  model?: string;
  baseUrl?: string;
  /** Else taken from the provider's usual environment variable; never stored. */
  apiKey?: string;
  maxIterations?: number;
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
  /** The sandbox line of the run start (default: what the sandbox probe found, or "off"). */
  sandboxSummary?: string;
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

export class Agent {
  private readonly bus = new EventBus();
  private readonly hooks: AgentHooks[];
  /** Per session, the order tools are offered in (most used in this project first), fixed. */
  private readonly toolOrders = new Map<string, readonly string[]>();
  readonly projectKey: string;

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
  ) {
    this.hooks =
      options.hooks === undefined ? [] : Array.isArray(options.hooks) ? options.hooks : [options.hooks];
    this.projectKey = projectKey(workspace.root);
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
    const history = isNew || !this.store ? [] : await this.sessionHistory(session);
    const trace = this.traceRecord(runId, session.id, task, now);
    const recorder = this.store
      ? new StoreRecorder({
          store: this.store,
          projectKey: this.projectKey,
          session,
          newSession: isNew,
          trace,
          resumed: false,
          nextSeq: isNew ? 0 : await this.store.turns.nextSeq(session.id),
          nextStepSeq: 0,
        })
      : NULL_RECORDER;
    return this.loop(trace, recorder, { kind: "new", task, envelope, history }, options, false);
  }

  /**
   * Continues a run that stopped (crash, Ctrl-C, provider failure) from its last committed
   * state. `id` is a run or session id, or a unique prefix of one; a session means its newest run.
   */
  async resume(id: string, options: Omit<RunOptions, "session" | "envelope"> = {}): Promise<RunResult> {
    const store = this.requireStore();
    const trace = await findTrace(store, id);
    const session = await store.sessions.get(trace.sessionId);
    if (!session) throw new ResonError("not_found", `The session of run ${trace.id} is missing.`);
    const plan = await planResume(store, trace, this.tools);
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
      ...(plan.modelStepId ? { modelStepId: plan.modelStepId } : {}),
    });
    // The run keeps the limit it was started with, unless this agent was given one.
    const maxIterations = this.options.maxIterations ?? plan.start.snapshot.maxIterations;
    return this.loop(trace, recorder, plan.start, options, true, maxIterations);
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
    const turns = await this.requireStore().turns.list(session.id);
    const compaction = session.settings.compaction;
    if (!compaction) return closeOpenToolCalls(turnsToHistory(turns));
    const kept = closeOpenToolCalls(turnsToHistory(turns.filter((t) => t.seq >= compaction.upToSeq)));
    return [summaryEntry({ upTo: 0, summary: compaction.summary, count: compaction.count }), ...kept];
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
    const turns = await store.turns.list(sessionId);
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
      preset: null,
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
    maxIterationsOverride?: number,
  ): Promise<RunResult> {
    const signal = options.signal ?? new AbortController().signal;
    const bus = new EventBus();
    bus.subscribe((event) => this.bus.emit(event));
    if (options.onEvent) bus.subscribe(options.onEvent);
    const { config } = this.loaded;
    const maxIterations = maxIterationsOverride ?? config.maxIterations;
    const step = start.kind === "resume" ? start.snapshot.step : 0;
    const sandbox = await this.sandboxSummary();
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
    });
    return runLoop(
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
        bus,
        signal,
        recorder,
        summaryProvider: this.summaryProvider,
        budgetRatio: config.contextBudgetRatio,
        artifacts: this.store ? storeArtifacts(this.store) : memoryArtifacts(),
        ...(this.options.offerTool ? { offerTool: this.options.offerTool } : {}),
        toolOrder: await this.toolOrder(trace.sessionId),
        ...(this.secrets ? { secrets: this.secrets.access } : {}),
        sandbox,
      },
      start,
    );
  }
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
  const workspace = await openWorkspace(options.workspace ?? process.cwd(), {
    env,
    commandSandbox,
    policy: { resonHome: resonHome(env), readOnly: options.readOnlyWorkspace ?? false },
  });
  const flags: PartialConfig = { ...options.config };
  if (options.provider) flags.provider = options.provider;
  if (options.model) flags.model = options.model;
  if (options.baseUrl) flags.baseUrl = options.baseUrl;
  if (options.maxIterations !== undefined) flags.maxIterations = options.maxIterations;
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

  const tools = new ToolRegistry({ maxOutputChars: config.tools.maxOutputChars });
  for (const tool of createBuiltinTools({
    commandTimeoutMs: config.tools.commandTimeoutMs,
    commandSandbox: commandSandbox === "on",
  }))
    tools.register(tool);
  for (const tool of options.tools ?? []) tools.register(tool);

  const skills = new SkillSet(
    await discoverSkills({ workspaceRoot: workspace.root, home: loaded.home, userHome: homedir() }),
  );
  // The catalogue in the skill tool's description: about 2% of the window, in characters.
  const budgetChars = Math.min(16_000, Math.max(2_000, Math.floor(provider.model.contextWindow * 0.02 * 4)));
  tools.register(
    createSkillTool(() => skills.list(), { budgetChars, isEnabled: (name) => skills.isEnabled(name) }),
  );
  const vault = options.secrets ?? (await SecretVault.load(join(loaded.home, "secrets.json"), { env }));
  const secrets: AgentSecrets = {
    access: secretAccess(vault, workspace.root, settings.apiKey),
    names: vault.names(),
    warnings: vault.warnings,
  };
  const persist = options.persist ?? true;
  const store = options.store ?? (persist ? await openDefaultStore(loaded.home, env) : undefined);
  return new Agent(
    workspace,
    provider,
    tools,
    loaded,
    store,
    options,
    !options.store,
    summaryProvider,
    skills,
    secrets,
  );
}
