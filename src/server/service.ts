// `reson serve` put together: the run service over the store, the HTTP server with its routes,
// event announcements and live text (of its own runs, and relayed from other processes') for
// the SSE streams, and (unless told to leave runs to `reson worker` processes) a worker in this
// process that executes the queued runs.

import { resonHome } from "../config/index.js";
import type { Store } from "../store/index.js";
import type { ServiceTelemetry } from "../telemetry/index.js";
import { type ExecutorSettings, Worker, type WorkerLogEntry } from "../worker/index.js";
import { Announcements } from "./announcements.js";
import { ReadySchema } from "./api-schemas.js";
import { eventRoutes } from "./event-routes.js";
import { type HttpServer, startHttpServer } from "./http-server.js";
import { LiveRuns } from "./live-runs.js";
import { metricsRoute } from "./metrics-route.js";
import { promptRoutes } from "./prompt-routes.js";
import type { RequestLogger } from "./request-log.js";
import { rewindRoutes } from "./rewind-routes.js";
import { defineRoute, type Route } from "./router.js";
import { runRoutes } from "./run-routes.js";
import { RunService } from "./run-service.js";
import type { ServeToken } from "./serve-token.js";
import { sessionRoutes } from "./session-routes.js";
import type { SseOptions } from "./sse.js";
import { taskMasker } from "./task-masking.js";
import { webRoutes } from "./web-routes.js";
import { workspaceRoutes } from "./workspace-routes.js";

export interface ServiceOptions {
  store: Store;
  host?: string;
  port?: number;
  token: ServeToken;
  corsOrigins?: readonly string[];
  /** Runs this process executes at once; 0 leaves them all to `reson worker` processes. */
  workers: number;
  /** Folders under which a request may name a workspace by path (else only registered ones). */
  workspaceRoots?: readonly string[];
  ttlMs: number;
  promptTimeoutMs: number;
  env?: NodeJS.ProcessEnv;
  requestLog?: RequestLogger;
  workerLog?: (entry: WorkerLogEntry) => void;
  sse?: SseOptions;
  version?: string;
  /** Metrics (GET /metrics) and spans of the runs this process executes. */
  telemetry?: ServiceTelemetry;
  /** Routes of hosts that live beside the API (chat channels' webhooks and their JSON view). */
  routes?: readonly Route[];
  /** $RESON_HOME, whose secrets.json posted tasks are masked with; default from `env`. */
  home?: string;
  /** Values the host holds besides the token (its channels' credentials), masked like it. */
  maskedValues?: readonly { name: string; value: string }[];
}

export interface Service {
  http: HttpServer;
  worker: Worker | undefined;
  /** Stops taking runs, lets running ones finish within `graceMs`, closes the server. */
  close(graceMs?: number): Promise<void>;
}

export async function startService(options: ServiceOptions): Promise<Service> {
  const { store, telemetry } = options;
  const live = new LiveRuns();
  const announcements = new Announcements();
  await announcements.start(store);
  // The text of runs other processes execute (PostgreSQL); this process's own come as events.
  const stopRelayed = await store.events.subscribeLive((delta) => live.apply(delta));
  // Serve's own token is a secret like the user's: masked in what runs show and in posted tasks.
  const maskedValues = [{ name: "serve_token", value: options.token.value }, ...(options.maskedValues ?? [])];
  const env = options.env ?? process.env;
  const service = new RunService({
    store,
    executesLocally: options.workers > 0,
    workspaceRoots: options.workspaceRoots ?? [],
    ...(options.env ? { env: options.env } : {}),
    maskTask: taskMasker({ home: options.home ?? resonHome(env), env, masked: maskedValues }),
  });
  let worker: Worker | undefined;
  if (options.workers > 0) {
    const settings: Omit<ExecutorSettings, "role"> = {
      store,
      ttlMs: options.ttlMs,
      promptTimeoutMs: options.promptTimeoutMs,
      onEvent: (event) => {
        live.observe(event);
        telemetry?.observe(event);
      },
      ...(options.env ? { env: options.env } : {}),
      maskedValues,
    };
    worker = new Worker({
      ...settings,
      concurrency: options.workers,
      role: "reson serve",
      ...(options.workerLog ? { log: options.workerLog } : {}),
      ...(telemetry
        ? {
            onClaim: (request) => telemetry.claimed(request),
            onOutcome: (outcome) => {
              if (outcome.kind === "lost") telemetry.leaseLost();
            },
          }
        : {}),
    });
    await worker.start();
  }
  const ready = defineRoute({
    method: "GET",
    path: "/readyz",
    summary: "Readiness: the store answers; the queue's depth",
    tags: ["server"],
    responses: { 200: ReadySchema },
    handler: async () => ({
      body: {
        ready: true,
        store: store.kind,
        queue: await store.queue.depth(),
        localWorkers: options.workers,
      },
    }),
  });
  let http: HttpServer;
  try {
    http = await startHttpServer({
      ...(options.host ? { host: options.host } : {}),
      ...(options.port !== undefined ? { port: options.port } : {}),
      token: options.token,
      ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
      routes: [
        ready,
        ...sessionRoutes(service),
        ...workspaceRoutes(service),
        ...runRoutes(service),
        ...promptRoutes(service, announcements),
        ...rewindRoutes({ store, ...(options.env ? { env: options.env } : {}) }),
        ...eventRoutes({ service, announcements, live }),
        ...(telemetry ? [metricsRoute(telemetry.metrics)] : []),
        ...(options.routes ?? []),
        ...webRoutes(),
      ],
      ...(options.requestLog ? { log: options.requestLog } : {}),
      ...(options.sse ? { sse: options.sse } : {}),
      info: { title: "reson serve", version: options.version ?? "0.1.0" },
    });
  } catch (error) {
    await worker?.stop(0);
    await announcements.stop();
    await stopRelayed();
    throw error;
  }
  return {
    http,
    worker,
    async close(graceMs = 30_000) {
      await worker?.stop(graceMs);
      await http.close();
      await announcements.stop();
      await stopRelayed().catch(() => {});
    },
  };
}
