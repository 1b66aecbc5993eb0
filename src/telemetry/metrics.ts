// Prometheus metrics of the runs this process executes, fed only by their event stream (and,
// for the queue, by the store when scraped): nothing in the loop counts anything. prom-client
// is loaded when metrics are asked for (`reson serve`, `reson worker`), never by `reson run`.
import type * as PromClient from "prom-client";
import { importEsm } from "../core/esm-import.js";
import type { ResonEvent } from "../core/events.js";
import { DURATION_BUCKETS_S, LABEL, METRIC, OPERATION, TOKEN_BUCKETS } from "./names.js";

type Prom = typeof PromClient;

export interface QueueDepthReading {
  queued: number;
  running: number;
  oldestQueuedAgeMs: number | null;
}

export interface RunMetricsOptions {
  /** Read at every scrape: the store's queue. */
  queueDepth?: () => Promise<QueueDepthReading>;
  /** Also export Node's own metrics (heap, event loop lag, …), prefixed `reson_process_`. */
  processMetrics?: boolean;
}

/** What a worker tells about its claims and their ends (src/worker's hooks). */
export type ClaimKind = "first" | "retry" | "takeover";

/** Per run, what later events need: its labels and when its model call began. */
interface RunState {
  provider: string;
  model: string;
  callStartedAt?: number;
}

export class RunMetrics {
  readonly registry: PromClient.Registry;
  readonly contentType: string;
  readonly #runs = new Map<string, RunState>();
  readonly #tokenUsage: PromClient.Histogram;
  readonly #operationDuration: PromClient.Histogram;
  readonly #runsTotal: PromClient.Counter;
  readonly #runsActive: PromClient.Gauge;
  readonly #steps: PromClient.Counter;
  readonly #toolCalls: PromClient.Counter;
  readonly #toolDuration: PromClient.Histogram;
  readonly #retries: PromClient.Counter;
  readonly #trips: PromClient.Counter;
  readonly #trims: PromClient.Counter;
  readonly #compactions: PromClient.Counter;
  readonly #budgetStops: PromClient.Counter;
  readonly #claims: PromClient.Counter;
  readonly #leasesLost: PromClient.Counter;

  private constructor(prom: Prom, options: RunMetricsOptions) {
    const registry = new prom.Registry();
    this.registry = registry;
    this.contentType = registry.contentType;
    const registers = [registry];
    const modelLabels = [LABEL.provider, LABEL.model];
    this.#tokenUsage = new prom.Histogram({
      name: METRIC.tokenUsage,
      help: "Tokens used by model calls (gen_ai.client.token.usage), by type: input, output, cache_read, cache_write",
      labelNames: [LABEL.operation, ...modelLabels, LABEL.tokenType],
      buckets: TOKEN_BUCKETS,
      registers,
    });
    this.#operationDuration = new prom.Histogram({
      name: METRIC.operationDuration,
      help: "Duration of model calls in seconds (gen_ai.client.operation.duration); code is the error type of a failed call",
      labelNames: [LABEL.operation, ...modelLabels, LABEL.code],
      buckets: DURATION_BUCKETS_S,
      registers,
    });
    this.#runsTotal = new prom.Counter({
      name: METRIC.runs,
      help: "Runs ended, by status (completed, failed, aborted) and error code",
      labelNames: [...modelLabels, LABEL.status, LABEL.code],
      registers,
    });
    this.#runsActive = new prom.Gauge({
      name: METRIC.runsActive,
      help: "Runs executing in this process now",
      registers,
    });
    this.#steps = new prom.Counter({
      name: METRIC.steps,
      help: "Steps (model calls) committed, by stop reason",
      labelNames: [...modelLabels, LABEL.stopReason],
      registers,
    });
    this.#toolCalls = new prom.Counter({
      name: METRIC.toolCalls,
      help: "Tool calls ended, by tool and outcome (ok, error, denied)",
      labelNames: [LABEL.tool, LABEL.outcome],
      registers,
    });
    this.#toolDuration = new prom.Histogram({
      name: METRIC.toolDuration,
      help: "Duration of tool calls in seconds (gen_ai.execute_tool.duration)",
      labelNames: [LABEL.tool, LABEL.outcome],
      buckets: DURATION_BUCKETS_S,
      registers,
    });
    this.#retries = new prom.Counter({
      name: METRIC.providerRetries,
      help: "Model calls that failed and were retried, by error code",
      labelNames: [...modelLabels, LABEL.code],
      registers,
    });
    this.#trips = new prom.Counter({
      name: METRIC.circuitBreakerTrips,
      help: "Runs stopped by the circuit breaker (consecutive failed steps)",
      labelNames: modelLabels,
      registers,
    });
    this.#trims = new prom.Counter({
      name: METRIC.contextTrims,
      help: "Times old tool outputs were trimmed to fit the context budget",
      labelNames: modelLabels,
      registers,
    });
    this.#compactions = new prom.Counter({
      name: METRIC.contextCompactions,
      help: "Times history was compacted into a summary, by reason (budget, overflow, manual)",
      labelNames: [...modelLabels, LABEL.reason],
      registers,
    });
    this.#budgetStops = new prom.Counter({
      name: METRIC.budgetStops,
      help: "Runs stopped by a token, cost or time budget",
      labelNames: modelLabels,
      registers,
    });
    this.#claims = new prom.Counter({
      name: METRIC.claims,
      help: "Runs claimed from the queue: first attempt, a retry after an error, or a takeover of a run whose worker's lease expired",
      labelNames: [LABEL.kind],
      registers,
    });
    this.#leasesLost = new prom.Counter({
      name: METRIC.leasesLost,
      help: "Runs this worker stopped because another process took their lease",
      registers,
    });
    const { queueDepth } = options;
    if (queueDepth) {
      const depth = new prom.Gauge({
        name: METRIC.queueDepth,
        help: "Runs in the store's queue by state (queued, running)",
        labelNames: [LABEL.state],
        registers,
        async collect() {
          const reading = await queueDepth();
          depth.set({ [LABEL.state]: "queued" }, reading.queued);
          depth.set({ [LABEL.state]: "running" }, reading.running);
          oldest.set((reading.oldestQueuedAgeMs ?? 0) / 1000);
        },
      });
      const oldest = new prom.Gauge({
        name: METRIC.queueOldestAge,
        help: "How long the oldest queued run has waited, in seconds (0 when none waits)",
        registers,
      });
    }
    if (options.processMetrics) prom.collectDefaultMetrics({ register: registry, prefix: "reson_process_" });
  }

  static async create(options: RunMetricsOptions = {}): Promise<RunMetrics> {
    const loaded = await importEsm<Prom & { default?: Prom }>("prom-client");
    return new RunMetrics(loaded.default ?? loaded, options);
  }

  /** The text a Prometheus scrape gets. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  /** Counts a claim by the worker of this process. */
  claimed(kind: ClaimKind): void {
    this.#claims.inc({ [LABEL.kind]: kind });
  }

  /** Counts a run this worker stopped because its lease was taken. */
  leaseLost(): void {
    this.#leasesLost.inc();
  }

  /** Feeds one event of a run this process executes. */
  observe(event: ResonEvent): void {
    if (event.type === "run_start") {
      if (!this.#runs.has(event.runId)) this.#runsActive.inc();
      this.#runs.set(event.runId, { provider: event.provider, model: event.model });
      return;
    }
    const run = this.#runs.get(event.runId);
    if (!run) return;
    const labels = { [LABEL.provider]: run.provider, [LABEL.model]: run.model };
    switch (event.type) {
      case "phase":
        if (event.phase === "call_provider") run.callStartedAt = event.ts;
        else this.#endCall(run, event.ts, "");
        return;
      case "provider_retry":
        this.#retries.inc({ ...labels, [LABEL.code]: event.error.code });
        return;
      case "step_end": {
        this.#endCall(run, event.ts, "");
        this.#steps.inc({ ...labels, [LABEL.stopReason]: event.stopReason });
        const tokens = { [LABEL.operation]: OPERATION.chat, ...labels };
        const { usage } = event;
        this.#tokenUsage.observe({ ...tokens, [LABEL.tokenType]: "input" }, usage.input);
        this.#tokenUsage.observe({ ...tokens, [LABEL.tokenType]: "output" }, usage.output);
        if (usage.cacheRead > 0)
          this.#tokenUsage.observe({ ...tokens, [LABEL.tokenType]: "cache_read" }, usage.cacheRead);
        if (usage.cacheWrite > 0)
          this.#tokenUsage.observe({ ...tokens, [LABEL.tokenType]: "cache_write" }, usage.cacheWrite);
        return;
      }
      case "tool_result": {
        const outcome = event.ok ? "ok" : event.error?.code === "tool_denied" ? "denied" : "error";
        const toolLabels = { [LABEL.tool]: event.name, [LABEL.outcome]: outcome };
        this.#toolCalls.inc(toolLabels);
        this.#toolDuration.observe(toolLabels, event.durationMs / 1000);
        return;
      }
      case "context_trimmed":
        this.#trims.inc(labels);
        return;
      case "context_compacted":
        this.#compactions.inc({ ...labels, [LABEL.reason]: event.reason });
        return;
      case "run_end": {
        const code = event.error?.code ?? "";
        // A model call still open when the run ended is the call that failed it.
        this.#endCall(run, event.ts, code || "aborted");
        this.#runsTotal.inc({ ...labels, [LABEL.status]: event.status, [LABEL.code]: code });
        if (code === "circuit_open") this.#trips.inc(labels);
        if (code === "budget_exceeded") this.#budgetStops.inc(labels);
        this.#runs.delete(event.runId);
        this.#runsActive.dec();
        return;
      }
      default:
        return;
    }
  }

  #endCall(run: RunState, endedAt: number, code: string): void {
    if (run.callStartedAt === undefined) return;
    const seconds = Math.max(0, endedAt - run.callStartedAt) / 1000;
    run.callStartedAt = undefined;
    this.#operationDuration.observe(
      {
        [LABEL.operation]: OPERATION.chat,
        [LABEL.provider]: run.provider,
        [LABEL.model]: run.model,
        [LABEL.code]: code,
      },
      seconds,
    );
  }
}
