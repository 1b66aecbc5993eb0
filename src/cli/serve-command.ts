// `reson serve`: the HTTP API (and its event streams) over this machine's store, on 127.0.0.1
// by default, behind a bearer token made on first start. On SQLite it executes the runs in its
// own process; on PostgreSQL it may leave them to `reson worker` processes (--workers 0).
import { resolve } from "node:path";
import { openDefaultStore } from "../agent/index.js";
import { ChannelHub, channelRoutes, channelSetups } from "../channels/index.js";
import { channelCredentials, resonHome } from "../config/index.js";
import { toResonError } from "../core/errors.js";
import {
  loadServeToken,
  type MetricsListener,
  RunService,
  startMetricsListener,
  startService,
  taskMasker,
} from "../server/index.js";
import { ServiceTelemetry, traceIdOfRun } from "../telemetry/index.js";
import { logUnexpectedErrors } from "./crash-log.js";
import { EXIT_OK, EXIT_USAGE, exitCodeForError } from "./exit-codes.js";
import { reportError } from "./run-command.js";
import { parseServiceArgs, portFlag, positiveIntFlag, type ServiceArgs } from "./service-args.js";
import { serviceLog, withTraceIds } from "./service-log.js";
import { untilStopSignal } from "./stop-signal.js";
import { packageVersion } from "./version.js";

export const SERVE_HELP = `reson serve: the HTTP API of reson, with live events, for programs and the web

Usage: reson serve [options]
  --host <addr>            address to listen on (default 127.0.0.1; any other needs a
                           token you chose: RESON_SERVE_TOKEN or --token-file)
  --port <n>               port (default 7878; 0 picks a free one)
  --token-file <file>      the bearer token (default $RESON_HOME/serve-token, made on
                           first start with mode 0600; read it with cat, it is never
                           printed)
  --cors <origin>          a web page origin allowed to call the API (repeatable)
  --workspace-root <dir>   requests may name a workspace by a path under <dir>
                           (repeatable; also serve.workspaceRoots in $RESON_HOME/config.json);
                           elsewhere only registered workspaces (id, name or folder)
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
  const own = {
    host: { type: "string" },
    port: { type: "string" },
    "token-file": { type: "string" },
    cors: { type: "string", multiple: true },
    "workspace-root": { type: "string", multiple: true },
    workers: { type: "string" },
  } as const;
  let args: ServiceArgs<typeof own>;
  let port: number;
  let workers: number;
  try {
    args = await parseServiceArgs(argv, own);
    port = args.values.port === undefined ? 7878 : portFlag(args.values.port);
    workers = args.values.workers === undefined ? 2 : positiveIntFlag("workers", args.values.workers, 0);
  } catch (error) {
    reportError(toResonError(error, "usage_error"));
    return EXIT_USAGE;
  }
  if (args.help) {
    process.stdout.write(SERVE_HELP);
    return EXIT_OK;
  }
  const { values, graceMs, promptTimeoutMs, ttlMs } = args;
  let log = serviceLog(args.logFormat);
  logUnexpectedErrors((entry) => log(entry), { name: "serve", leaseTtlMs: ttlMs });
  let telemetry: ServiceTelemetry | undefined;
  let metricsListener: MetricsListener | undefined;
  let store: Awaited<ReturnType<typeof openDefaultStore>> | undefined;
  let hub: ChannelHub | undefined;
  try {
    const home = resonHome();
    const token = await loadServeToken({
      home,
      env: process.env,
      ...(values["token-file"] ? { tokenFile: values["token-file"] as string } : {}),
    });
    store = await openDefaultStore(home, process.env, { leaseTtlMs: ttlMs });
    if (workers === 0 && store.kind === "sqlite")
      log({
        level: "warn",
        message: "--workers 0 on SQLite: runs wait until a `reson worker` on this machine takes them",
      });
    const opened = store;
    telemetry = await ServiceTelemetry.start({
      env: process.env,
      config: args.telemetry,
      queueDepth: () => opened.queue.depth(),
    });
    if (args.metricsPort !== undefined)
      metricsListener = await startMetricsListener({ port: args.metricsPort, metrics: telemetry.metrics });
    if (telemetry.tracer) log = withTraceIds(log, traceIdOfRun);
    const workspaceRoots = [
      ...args.workspaceRoots,
      ...((values["workspace-root"] as string[] | undefined) ?? []).map((root) => resolve(root)),
    ];
    // Posted tasks and chat messages are kept masked: the user's secrets, the provider keys,
    // the channels' credentials and this token never stored raw (task-masking.ts).
    const maskedValues = channelCredentials(args.channels);
    const maskTask = taskMasker({
      home,
      env: process.env,
      masked: [{ name: "serve_token", value: token.value }, ...maskedValues],
    });
    const channelLog = log;
    const setups = await channelSetups({
      config: args.channels,
      home,
      store,
      log: (entry) => channelLog(entry),
    });
    hub =
      setups.length > 0
        ? new ChannelHub({
            store,
            runs: new RunService({ store, executesLocally: workers > 0, workspaceRoots, maskTask }),
            channels: setups,
            log: (entry) => channelLog(entry),
            // A sender that went silent this long (a crash mid-send) is taken over, as a run's lease.
            sendStaleMs: ttlMs,
            maskText: maskTask,
          })
        : undefined;
    const service = await startService({
      store,
      ...(values.host ? { host: values.host as string } : {}),
      port,
      token,
      ...(values.cors ? { corsOrigins: values.cors as string[] } : {}),
      workers,
      workspaceRoots,
      home,
      maskedValues,
      routes: [...channelRoutes(store, args.channels, hub?.live.bind(hub)), ...(hub?.routes() ?? [])],
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
    // Never the token itself: stderr is the service's log (journald, docker logs), read by
    // more people than the token's owner. The file keeps it; this says where.
    if (token.created)
      log({
        level: "info",
        message: `a new token was made and saved in ${token.path} (mode 0600); read it with: cat ${token.path}`,
        tokenFile: token.path,
      });
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
    await hub?.start();
    await untilStopSignal(log, () => service.worker?.active ?? 0);
    await hub?.stop();
    log({
      level: "info",
      message: `stopping: ${service.worker?.active ?? 0} run(s) running, grace ${graceMs} ms`,
    });
    await service.close(graceMs);
    log({ level: "info", message: "stopped" });
    return EXIT_OK;
  } catch (error) {
    const failure = toResonError(error);
    reportError(failure);
    return exitCodeForError(failure.code);
  } finally {
    await hub?.stop();
    await metricsListener?.close().catch(() => {});
    await telemetry?.shutdown();
    await store?.close({ processExiting: true }).catch(() => {});
  }
}
