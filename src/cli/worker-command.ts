// `reson worker`: takes queued runs from the store (PostgreSQL, shared by any number of
// workers on any machines; or this machine's SQLite file) and executes them. SIGTERM or
// Ctrl-C: takes no more runs, lets the running ones finish within --grace, then stops them at
// their next safe point and puts them back for another worker. A second signal exits at once
// (the leases then expire and other workers resume the runs).
import { parseArgs } from "node:util";
import { openDefaultStore } from "../agent/index.js";
import { loadConfig, resonHome } from "../config/index.js";
import { ResonError, toResonError } from "../core/errors.js";
import { type MetricsListener, startMetricsListener } from "../server/index.js";
import { parseDuration } from "../store/index.js";
import { ServiceTelemetry, traceIdOfRun } from "../telemetry/index.js";
import { Worker } from "../worker/index.js";
import { EXIT_OK, EXIT_USAGE, exitCodeForError } from "./exit-codes.js";
import { reportError } from "./run-command.js";
import { parseLogFormat, serviceLog, withTraceIds } from "./service-log.js";

export const WORKER_HELP = `reson worker: execute queued runs (from reson serve) until stopped

Usage: reson worker [options]
  --concurrency <n>        runs executed at once (default 1)
  --grace <duration>       on SIGTERM, how long running runs may take to finish before they
                           are stopped and put back for another worker (default 30s)
  --prompt-timeout <dur>   unanswered approvals are denied, questions left unanswered,
                           after this long (default 5m)
  --lease-ttl <duration>   how long a run's lease lasts unrenewed (default: config lease.ttlMs, 30s)
  --log-format json|text   one JSON object per line (default when stderr is not a terminal)
  --metrics-port <n>       serve Prometheus metrics at http://127.0.0.1:<n>/metrics
                           (loopback only, no token)

Traces: set OTEL_EXPORTER_OTLP_ENDPOINT (or config telemetry.endpoint) to export
OpenTelemetry spans of every run over OTLP/HTTP.
The store is RESON_DATABASE_URL (PostgreSQL: workers on many machines share it) or
$RESON_HOME/reson.db (one machine). API keys come from this worker's environment.
`;

export interface ServiceDurations {
  graceMs: number;
  promptTimeoutMs: number;
  ttlMs?: number;
}

/** A whole number flag of at least `min` (default 1). */
export function positiveIntFlag(name: string, value: string, min = 1): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new ResonError("usage_error", `--${name} must be a whole number of at least ${min}.`);
  return n;
}

/** A duration flag (30s, 5m, 1h); absent: the fallback. */
export function durationFlag(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  try {
    return parseDuration(value);
  } catch {
    throw new ResonError("usage_error", `--${name} must be a duration such as 30s, 5m or 1h.`);
  }
}

export async function workerCommand(argv: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        concurrency: { type: "string" },
        grace: { type: "string" },
        "prompt-timeout": { type: "string" },
        "lease-ttl": { type: "string" },
        "log-format": { type: "string" },
        "metrics-port": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (error) {
    reportError(toResonError(error, "usage_error"));
    return EXIT_USAGE;
  }
  if (values.help) {
    process.stdout.write(WORKER_HELP);
    return EXIT_OK;
  }
  let log = serviceLog(parseLogFormat(values["log-format"] as string | undefined, process.stderr));
  let concurrency: number;
  let graceMs: number;
  let promptTimeoutMs: number;
  let ttlMs: number;
  let metricsPort: number | undefined;
  let telemetryConfig: Awaited<ReturnType<typeof loadConfig>>["config"]["telemetry"];
  try {
    metricsPort =
      values["metrics-port"] === undefined
        ? undefined
        : portFlag(values["metrics-port"] as string, "--metrics-port");
    concurrency =
      values.concurrency === undefined ? 1 : positiveIntFlag("concurrency", values.concurrency as string);
    graceMs = durationFlag("grace", values.grace as string | undefined, 30_000);
    promptTimeoutMs = durationFlag("prompt-timeout", values["prompt-timeout"] as string | undefined, 300_000);
    const { config } = await loadConfig({ workspace: process.cwd() });
    ttlMs = durationFlag("lease-ttl", values["lease-ttl"] as string | undefined, config.lease.ttlMs);
    telemetryConfig = config.telemetry;
  } catch (error) {
    reportError(toResonError(error, "usage_error"));
    return EXIT_USAGE;
  }
  let store: Awaited<ReturnType<typeof openDefaultStore>>;
  try {
    store = await openDefaultStore(resonHome());
  } catch (error) {
    const failure = toResonError(error);
    reportError(failure);
    return exitCodeForError(failure.code);
  }
  let telemetry: ServiceTelemetry;
  let metricsListener: MetricsListener | undefined;
  try {
    const opened = store;
    telemetry = await ServiceTelemetry.start({
      env: process.env,
      config: telemetryConfig,
      queueDepth: () => opened.queue.depth(),
    });
    if (metricsPort !== undefined)
      metricsListener = await startMetricsListener({ port: metricsPort, metrics: telemetry.metrics });
  } catch (error) {
    const failure = toResonError(error);
    reportError(failure);
    await store.close({ processExiting: true }).catch(() => {});
    return exitCodeForError(failure.code);
  }
  if (telemetry.tracer) log = withTraceIds(log, traceIdOfRun);
  const observed = telemetry;
  const worker = new Worker({
    store,
    concurrency,
    ttlMs,
    promptTimeoutMs,
    log,
    onEvent: observed.observe,
    onClaim: (request) => observed.claimed(request),
    onOutcome: (outcome) => {
      if (outcome.kind === "lost") observed.leaseLost();
    },
  });
  await worker.start();
  log({
    level: "info",
    message: "worker started",
    workerId: worker.id,
    store: store.kind,
    concurrency,
    ...(metricsListener ? { metrics: metricsListener.url } : {}),
    tracing: telemetry.tracer ? "otlp" : "off",
  });
  await untilStopSignal(log, () => worker.active);
  log({
    level: "info",
    message: `stopping: ${worker.active} run(s) running, grace ${graceMs} ms`,
    workerId: worker.id,
  });
  await worker.stop(graceMs);
  await metricsListener?.close().catch(() => {});
  await telemetry.shutdown();
  await store.close({ processExiting: true }).catch(() => {});
  log({ level: "info", message: "worker stopped", workerId: worker.id });
  return EXIT_OK;
}

/** A port flag: 0 (any free port) to 65535. */
export function portFlag(value: string, flag = "--port"): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new ResonError("usage_error", `${flag} must be a number from 0 to 65535.`);
  return n;
}

/** Resolves on the first SIGTERM or SIGINT; a second one exits at once. */
export function untilStopSignal(log: ReturnType<typeof serviceLog>, active: () => number): Promise<void> {
  return new Promise((resolve) => {
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      signals++;
      if (signals > 1) {
        log({
          level: "warn",
          message: `${signal} again: exiting now; ${active()} run(s) resume elsewhere when their leases expire`,
        });
        process.exit(130);
      }
      resolve();
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}
