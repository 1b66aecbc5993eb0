// `reson worker`: takes queued runs from the store (PostgreSQL, shared by any number of
// workers on any machines; or this machine's SQLite file) and executes them. SIGTERM or
// Ctrl-C: takes no more runs, lets the running ones finish within --grace, then stops them at
// their next safe point (not a cancel: they do not end) and puts them back for another worker.
// A second signal exits at once (the leases then expire and other workers resume the runs).
import { openDefaultStore } from "../agent/index.js";
import { resonHome } from "../config/index.js";
import { toResonError } from "../core/errors.js";
import { existingServeToken, type MetricsListener, startMetricsListener } from "../server/index.js";
import { ServiceTelemetry, traceIdOfRun } from "../telemetry/index.js";
import { Worker } from "../worker/index.js";
import { logUnexpectedErrors } from "./crash-log.js";
import { EXIT_OK, EXIT_USAGE, exitCodeForError } from "./exit-codes.js";
import { reportError } from "./run-command.js";
import { parseServiceArgs, positiveIntFlag, type ServiceArgs } from "./service-args.js";
import { serviceLog, withTraceIds } from "./service-log.js";
import { untilStopSignal } from "./stop-signal.js";

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

export async function workerCommand(argv: string[]): Promise<number> {
  let args: ServiceArgs<{ concurrency: { type: "string" } }>;
  let concurrency: number;
  try {
    args = await parseServiceArgs(argv, { concurrency: { type: "string" } });
    const given = args.values.concurrency;
    concurrency = given === undefined ? 1 : positiveIntFlag("concurrency", given);
  } catch (error) {
    reportError(toResonError(error, "usage_error"));
    return EXIT_USAGE;
  }
  if (args.help) {
    process.stdout.write(WORKER_HELP);
    return EXIT_OK;
  }
  const { graceMs, promptTimeoutMs, ttlMs } = args;
  let log = serviceLog(args.logFormat);
  logUnexpectedErrors((entry) => log(entry), { name: "worker", leaseTtlMs: ttlMs });
  let store: Awaited<ReturnType<typeof openDefaultStore>>;
  try {
    store = await openDefaultStore(resonHome(), process.env, { leaseTtlMs: ttlMs });
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
      config: args.telemetry,
      queueDepth: () => opened.queue.depth(),
    });
    if (args.metricsPort !== undefined)
      metricsListener = await startMetricsListener({ port: args.metricsPort, metrics: telemetry.metrics });
  } catch (error) {
    const failure = toResonError(error);
    reportError(failure);
    await store.close({ processExiting: true }).catch(() => {});
    return exitCodeForError(failure.code);
  }
  if (telemetry.tracer) log = withTraceIds(log, traceIdOfRun);
  const observed = telemetry;
  // The token of a serve beside this worker is masked in its runs as serve itself masks it.
  const serveToken = await existingServeToken(resonHome(), process.env);
  const worker = new Worker({
    store,
    ...(serveToken ? { maskedValues: [{ name: "serve_token", value: serveToken }] } : {}),
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
