// `reson serve`: the HTTP API (and its event streams) over this machine's store, on 127.0.0.1
// by default, behind a bearer token made on first start. On SQLite it executes the runs in its
// own process; on PostgreSQL it may leave them to `reson worker` processes (--workers 0).
import { parseArgs } from "node:util";
import { openDefaultStore } from "../agent/index.js";
import { loadConfig, resonHome } from "../config/index.js";
import { toResonError } from "../core/errors.js";
import { loadServeToken, type MetricsListener, startMetricsListener, startService } from "../server/index.js";
import { ServiceTelemetry, traceIdOfRun } from "../telemetry/index.js";
import { EXIT_OK, EXIT_USAGE, exitCodeForError } from "./exit-codes.js";
import { reportError } from "./run-command.js";
import { parseLogFormat, serviceLog, withTraceIds } from "./service-log.js";
import { packageVersion } from "./version.js";
import { durationFlag, portFlag, positiveIntFlag, untilStopSignal } from "./worker-command.js";

export const SERVE_HELP = `reson serve: the HTTP API of reson, with live events, for programs and the web

Usage: reson serve [options]
  --host <addr>            address to listen on (default 127.0.0.1; any other needs a
                           token you chose: RESON_SERVE_TOKEN or --token-file)
  --port <n>               port (default 7878; 0 picks a free one)
  --token-file <file>      the bearer token (default $RESON_HOME/serve-token, made on
                           first start with mode 0600 and printed once)
  --cors <origin>          a web page origin allowed to call the API (repeatable)
  --workers <n>            runs executed at once in this process (default 2); 0 leaves
                           them to \`reson worker\` processes (PostgreSQL)
  --grace <duration>       on SIGTERM, how long running runs may take to finish (default 30s)
  --prompt-timeout <dur>   unanswered approvals are denied after this long (default 5m)
  --lease-ttl <duration>   how long a run's lease lasts unrenewed (default 30s)
  --log-format json|text   one JSON object per line (default when stderr is not a terminal)
  --metrics-port <n>       also serve GET /metrics without a token on 127.0.0.1:<n> only
                           (GET /metrics on the API port needs the token like every route)

Traces: set OTEL_EXPORTER_OTLP_ENDPOINT (or config telemetry.endpoint) to export
OpenTelemetry spans of every run over OTLP/HTTP; see README "Observe".

Every route but GET /healthz needs "Authorization: Bearer <token>". The API is described
at /openapi.json; see README "Service" for curl examples.
`;

export async function serveCommand(argv: string[]): Promise<number> {
  let values: Record<string, string | string[] | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        host: { type: "string" },
        port: { type: "string" },
        "token-file": { type: "string" },
        cors: { type: "string", multiple: true },
        workers: { type: "string" },
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
    process.stdout.write(SERVE_HELP);
    return EXIT_OK;
  }
  const format = parseLogFormat(values["log-format"] as string | undefined, process.stderr);
  let log = serviceLog(format);
  let port: number;
  let workers: number;
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
    port = values.port === undefined ? 7878 : portFlag(values.port as string);
    workers = values.workers === undefined ? 2 : positiveIntFlag("workers", values.workers as string, 0);
    graceMs = durationFlag("grace", values.grace as string | undefined, 30_000);
    promptTimeoutMs = durationFlag("prompt-timeout", values["prompt-timeout"] as string | undefined, 300_000);
    const { config } = await loadConfig({ workspace: process.cwd() });
    ttlMs = durationFlag("lease-ttl", values["lease-ttl"] as string | undefined, config.lease.ttlMs);
    telemetryConfig = config.telemetry;
  } catch (error) {
    reportError(toResonError(error, "usage_error"));
    return EXIT_USAGE;
  }
  let telemetry: ServiceTelemetry | undefined;
  let metricsListener: MetricsListener | undefined;
  let store: Awaited<ReturnType<typeof openDefaultStore>> | undefined;
  try {
    const home = resonHome();
    const token = await loadServeToken({
      home,
      env: process.env,
      ...(values["token-file"] ? { tokenFile: values["token-file"] as string } : {}),
    });
    store = await openDefaultStore(home);
    if (workers === 0 && store.kind === "sqlite")
      log({
        level: "warn",
        message: "--workers 0 on SQLite: runs wait until a `reson worker` on this machine takes them",
      });
    const opened = store;
    telemetry = await ServiceTelemetry.start({
      env: process.env,
      config: telemetryConfig,
      queueDepth: () => opened.queue.depth(),
    });
    if (metricsPort !== undefined)
      metricsListener = await startMetricsListener({ port: metricsPort, metrics: telemetry.metrics });
    if (telemetry.tracer) log = withTraceIds(log, traceIdOfRun);
    const service = await startService({
      store,
      ...(values.host ? { host: values.host as string } : {}),
      port,
      token,
      ...(values.cors ? { corsOrigins: values.cors as string[] } : {}),
      workers,
      ttlMs,
      promptTimeoutMs,
      requestLog: ({ ts: _ts, msg: _msg, level, ...request }) =>
        log({
          level,
          message: `${request.method} ${request.route ?? "(no route)"} ${request.status}`,
          ...request,
        }),
      workerLog: log,
      version: packageVersion(),
      telemetry,
    });
    // The one time the token is shown: the file keeps it (mode 0600) for later.
    if (token.created)
      process.stderr.write(
        `reson serve: a new token was made and saved in ${token.path} (mode 0600):\n  ${token.value}\n`,
      );
    log({
      level: "info",
      message: `listening on ${service.http.url}`,
      url: service.http.url,
      store: store.kind,
      workers,
      token: token.source === "home" ? token.path : token.source,
      ...(metricsListener ? { metrics: metricsListener.url } : {}),
      tracing: telemetry.tracer ? "otlp" : "off",
    });
    await untilStopSignal(log, () => service.worker?.active ?? 0);
    log({
      level: "info",
      message: `stopping: ${service.worker?.active ?? 0} run(s) running, grace ${graceMs} ms`,
    });
    await service.close(graceMs);
    await metricsListener?.close();
    log({ level: "info", message: "stopped" });
    return EXIT_OK;
  } catch (error) {
    const failure = toResonError(error);
    reportError(failure);
    return exitCodeForError(failure.code);
  } finally {
    await metricsListener?.close().catch(() => {});
    await telemetry?.shutdown();
    await store?.close({ processExiting: true }).catch(() => {});
  }
}
