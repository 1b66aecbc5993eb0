// One run of an agent from its start to its end, wired around the loop: its event stream
// (masked, journaled under its lease, passed on to the agent's listeners), its budget, the
// checkpoint committed before run_start, its prompt, step snapshots and trust, and what is
// let go when the loop ends (its browser, its sub-agents, its place among the runs in flight).
// A new run, a resumed one and a sub-agent's all start here.
import type { BrowserPool } from "../browser/index.js";
import type { LoadedConfig } from "../config/index.js";
import type { EstimateCache } from "../context/index.js";
import { EventBus } from "../core/events.js";
import { redactDeep } from "../core/redactor.js";
import type { RunLimits } from "../core/usage.js";
import type { Provider } from "../providers/index.js";
import type { SkillSet } from "../skills/index.js";
import type { Store, TraceRecord } from "../store/index.js";
import type { ToolRegistry } from "../tools/index.js";
import { probeSandbox, type Workspace } from "../workspace/index.js";
import type { ActiveRuns } from "./active-runs.js";
import type { AgentOptions, AgentSecrets, RunOptions } from "./agent-options.js";
import { memoryArtifacts, storeArtifacts } from "./artifacts.js";
import { assertCostCountable, RunBudget } from "./budget.js";
import type { AgentHooks } from "./hooks.js";
import { learnAfterRun } from "./learn-after-run.js";
import type { Learning } from "./learning.js";
import { lessonsAtError } from "./lessons-at-error.js";
import { runLoop } from "./loop.js";
import { type LoopStart, startSnapshot } from "./loop-start.js";
import type { RunRecorder } from "./recorder.js";
import { learnedFromEnding } from "./resume.js";
import { RunJournal } from "./run-journal.js";
import type { HeldLease } from "./run-lease.js";
import { definedLimits, requireStore } from "./run-lookup.js";
import { runPrompt } from "./run-prompt.js";
import type { InheritedUntrust } from "./run-trust.js";
import { startTrust } from "./run-trust-start.js";
import { runStepSnapshots } from "./step-snapshots.js";
import type { RunResult } from "./types.js";

/** The agent whose run it is: what every run reads of it, as it is when the run reads it. */
export interface RunningAgent {
  readonly workspace: Workspace;
  readonly provider: Provider;
  readonly tools: ToolRegistry;
  readonly loaded: LoadedConfig;
  readonly store: Store | undefined;
  readonly summaryProvider: Provider;
  readonly skills: SkillSet;
  readonly learning: Learning | undefined;
  readonly browsers: BrowserPool | undefined;
}

/** What a run takes of its agent beyond its public parts. */
export interface RunHost {
  agent: RunningAgent;
  options: AgentOptions;
  secrets: AgentSecrets | undefined;
  /** Masks the agent's secrets in what the run writes and emits; none when it has none. */
  redact?: (text: string) => string;
  hooks: AgentHooks[];
  /** Estimates of the long texts every run sends, remembered across runs. */
  estimates: EstimateCache;
  /** The agent's own stream: every run's events go on to it. */
  events: EventBus;
  active: ActiveRuns;
  /** The order tools are offered in for a session. */
  toolOrder(sessionId: string): Promise<readonly string[]>;
}

/** How this run was started, beyond its options. */
export interface RunStartExtra {
  maxIterations?: number;
  /** A sub-agent's budget, under its parent's; default a budget of this run's own limits. */
  childBudget?: RunBudget;
  /** The run's lease (persisted runs): its loss aborts the run. The caller releases it. */
  lease?: HeldLease;
  /** A new run that starts untrusted: its session's earlier runs, or its parent run, read untrusted content. */
  inherited?: InheritedUntrust;
}

export async function runAgentLoop(
  host: RunHost,
  trace: TraceRecord,
  recorder: RunRecorder,
  start: LoopStart,
  options: Omit<RunOptions, "session" | "envelope">,
  resumed: boolean,
  extra: RunStartExtra = {},
): Promise<RunResult> {
  const { agent } = host;
  const { childBudget, lease, inherited } = extra;
  const maxIterationsOverride = extra.maxIterations;
  const given = options.signal ?? new AbortController().signal;
  const signal = lease ? AbortSignal.any([given, lease.signal]) : given;
  // Every event of the run is masked once, before any listener (the store, a stream, telemetry).
  const { redact } = host;
  const bus = new EventBus(redact ? (event) => redactDeep(event, redact) : undefined);
  // Numbered and committed under the lease first: what serve streams, and reads again.
  const journal =
    lease && agent.store
      ? new RunJournal((ops) => lease.apply(ops), trace.id, await agent.store.events.lastSeq(trace.id))
      : undefined;
  if (journal) bus.subscribe((event) => journal.record(event));
  bus.subscribe((event) => host.events.emit(event));
  if (options.onEvent) bus.subscribe(options.onEvent);
  const { config } = agent.loaded;
  const maxIterations = maxIterationsOverride ?? config.maxIterations;
  const step = start.kind === "resume" ? start.snapshot.step : 0;
  const budget = childBudget ?? new RunBudget(runLimits(host.options, start));
  // Before anything is saved or called: a sub-agent's model, or a resumed run's, may have no price.
  assertCostCountable(budget.costLimit(), agent.provider.model);
  const limits = budget.limits;
  const sandbox = await sandboxSummary(host.options, agent.workspace);
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
    provider: agent.provider.model.provider,
    model: agent.provider.model.id,
    workspace: agent.workspace.root,
    maxIterations,
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
    resumed,
    sandbox,
  });
  if (host.options.plugins)
    bus.emit({ type: "plugins_loaded", runId: trace.id, step, ts: Date.now(), ...host.options.plugins });
  const warn = (message: string) =>
    bus.emit({ type: "warning", runId: trace.id, step, ts: Date.now(), message });
  // Top-level runs recall experiences and earlier sessions; sub-agents work from their brief.
  const { system, recall } = await runPrompt({
    trace,
    workspaceRoot: agent.workspace.root,
    loaded: agent.loaded,
    skills: agent.skills,
    secrets: host.secrets,
    instructions: host.options.instructions,
    learning: childBudget ? undefined : agent.learning,
    signal,
    warn,
  });
  const snapshots = runStepSnapshots({
    settings: config.snapshots,
    home: agent.loaded.home,
    workspace: agent.workspace,
    persisted: agent.store !== undefined,
    runId: trace.id,
    ...(host.options.commandOnlyReads ? { commandOnlyReads: host.options.commandOnlyReads } : {}),
    ...(redact ? { redact } : {}),
    warn,
  });
  if (snapshots) bus.subscribe((event) => snapshots.observe(event));
  // The deadline stops the call in flight; the subagent tool finds this run by its id.
  const watch = budget.watch(signal);
  const run = host.active.register(trace, recorder, budget, bus, step);
  // A top-level run that recalled is also shown the lesson a failed call's output calls for.
  const errorLessons =
    recall && agent.learning
      ? lessonsAtError(agent.learning, {
          traceId: trace.id,
          shownIds: [...recall.experienceIds, ...recall.withheldIds],
          warn,
        })
      : undefined;
  await startTrust(run, { start, inherited, recalledUntrustedOrigin: recall?.untrustedOrigin });
  try {
    const result = await runLoop(
      {
        runId: trace.id,
        sessionId: trace.sessionId,
        systemPrompt: system.text,
        systemManifest: system.manifest,
        provider: agent.provider,
        tools: agent.tools,
        workspace: agent.workspace,
        hooks: errorLessons ? [...host.hooks, errorLessons] : host.hooks,
        limits: {
          maxIterations,
          circuitBreakerThreshold: config.circuitBreakerThreshold,
        },
        budget,
        bus,
        signal: watch.signal,
        recorder,
        summaryProvider: agent.summaryProvider,
        budgetRatio: config.contextBudgetRatio,
        estimate: host.estimates.estimate,
        artifacts: agent.store
          ? storeArtifacts(agent.store, (ops) => recorder.write(ops))
          : memoryArtifacts(),
        ...(host.options.offerTool ? { offerTool: host.options.offerTool } : {}),
        toolOrder: await host.toolOrder(trace.sessionId),
        ...(host.secrets ? { secrets: host.secrets.access } : {}),
        sandbox,
        ...(host.options.askHuman ? { askHuman: host.options.askHuman } : {}),
        ...(snapshots ? { snapshots } : {}),
        trust: run.trust,
        ...(host.options.checkHop ? { checkHop: host.options.checkHop } : {}),
        ...(!childBudget && agent.learning
          ? {
              afterRun: async (result: RunResult) => {
                // A resumed run that learned from this ending already learns nothing twice.
                if (resumed && learnedFromEnding(await requireStore(agent.store).steps.list(trace.id)))
                  return;
                await learnAfterRun(agent.learning!, { trace, result, recorder, bus, signal });
              },
            }
          : {}),
      },
      start,
    );
    return result;
  } finally {
    watch.dispose();
    await agent.browsers?.closeRun(trace.id);
    // A sub-agent outlives an aborted tool call only until its own abort lands.
    await Promise.allSettled(run.children);
    host.active.delete(trace.id);
    // Committed before the lease is let go; a lost lease has ended the run's writes anyway.
    await journal?.flush().catch(() => {});
  }
}

/** The run's hard limits: these options', over a resumed run's own, over the preset's. */
function runLimits(options: AgentOptions, start: LoopStart): RunLimits {
  const preset = typeof options.preset === "object" ? options.preset.limits : undefined;
  const stored = start.kind === "resume" ? start.snapshot.limits : undefined;
  return definedLimits({ ...preset, ...stored, ...definedLimits(options.limits ?? {}) });
}

/** The run start's line on command containment; the same facts go into each checkpoint. */
async function sandboxSummary(options: AgentOptions, workspace: Workspace): Promise<string> {
  if (options.sandboxSummary) return options.sandboxSummary;
  if (workspace.commandSandbox === "off")
    return "sandbox: off (commands run as plain processes; the file tools keep their path checks)";
  return (await probeSandbox()).summary;
}
