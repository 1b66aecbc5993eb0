// The HTTP server of `reson serve` on node:http. Every request passes, in order: security
// headers, Host and Origin (403), CORS preflight, the bearer token (401: strangers learn
// nothing, not even which paths exist), routing (404/405), then the route's schemas and
// handler; any failure leaves as one JSON error shape. Closed to strangers by default: it
// binds 127.0.0.1 and will not listen elsewhere without a token the operator chose.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { Type } from "typebox";
import { ResonError } from "../core/errors.js";
import { Redactor } from "../core/redactor.js";
import { TokenCheck } from "./auth.js";
import { DEFAULT_BODY_LIMIT_BYTES } from "./body.js";
import { type HttpError, httpErrorFrom } from "./http-errors.js";
import { buildOpenApiDocument, type OpenApiInfo } from "./openapi.js";
import { isLoopbackHost, normalizeCorsOrigin, OriginPolicy } from "./origin.js";
import type { RequestLogger, RequestLogRecord } from "./request-log.js";
import { callRoute, defineRoute, HTTP_METHODS, type Route, Router } from "./router.js";
import { isConfiguredToken, type ServeToken } from "./serve-token.js";
import { type SseOptions, SseStream } from "./sse.js";

export interface HttpServerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port (the CLI passes its own default). */
  port?: number;
  token: ServeToken;
  /** Origins of other web pages allowed to call (--cors). */
  corsOrigins?: readonly string[];
  routes: readonly Route[];
  log?: RequestLogger;
  /** Largest JSON body a route accepts (default 1 MiB). */
  bodyLimitBytes?: number;
  /** Defaults for every event stream (heartbeat, retry, buffer limit). */
  sse?: SseOptions;
  /** Masks secrets in error messages and logs, on top of the server's own token. */
  redact?: (text: string) => string;
  info?: OpenApiInfo;
  /** In-flight requests get this long to finish on close() before connections are cut (default 5 s). */
  closeGraceMs?: number;
  signal?: AbortSignal;
}

export interface HttpServer {
  /** http://host:port as bound. */
  url: string;
  host: string;
  port: number;
  /** The OpenAPI document served at /openapi.json. */
  openapi: Record<string, unknown>;
  /** Stops accepting, ends event streams, waits for requests in flight (up to the grace), then cuts. */
  close(): Promise<void>;
}

const SECURITY_HEADERS: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  // JSON and event streams need nothing from a browser; the web view will send its own policy.
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
  "cache-control": "no-store",
};

/** How long aborted handlers get to send their 503 before the connections are cut. */
const CUT_AFTER_ABORT_MS = 250;

function shuttingDown(): ResonError {
  return new ResonError("aborted", "The server is shutting down.", { hint: "Retry once it is back." });
}

const HealthSchema = Type.Object({ ok: Type.Literal(true) }, { $id: "Health" });

function builtInRoutes(token: TokenCheck, openapi: () => Record<string, unknown>): Route[] {
  return [
    defineRoute({
      method: "GET",
      path: "/healthz",
      summary: "Liveness probe; the only route open without a token",
      tags: ["server"],
      auth: "none",
      responses: { 200: HealthSchema },
      handler: () => ({ body: { ok: true } }),
    }),
    defineRoute({
      method: "GET",
      path: "/openapi.json",
      summary: "This document",
      tags: ["server"],
      responses: { 200: { description: "The OpenAPI 3.1 document of this server", schema: Type.Unknown() } },
      handler: () => ({ body: openapi() }),
    }),
    defineRoute({
      method: "POST",
      path: "/auth/sse-cookie",
      summary:
        "Sets the cookie that lets a browser's EventSource (which cannot send headers) open event streams",
      description:
        "Call with the bearer token from the page that will open the streams (same origin). The HttpOnly, " +
        "SameSite=Strict cookie opens event-stream routes (GET) only, for 24 hours.",
      tags: ["server"],
      responses: { 204: { description: "Cookie set" } },
      handler: () => ({ status: 204, headers: { "set-cookie": token.setCookieHeader(false) } }),
    }),
  ];
}

function refuseOpenBind(host: string, port: number): ResonError {
  return new ResonError(
    "usage_error",
    `reson serve will not listen on ${host} with a token it made up itself: anyone who can reach ${host}:${port} could run commands on this machine.`,
    {
      hint:
        "Choose a token (export RESON_SERVE_TOKEN=$(openssl rand -base64 32), or --token-file <file>) and " +
        "put a TLS proxy in front; or keep the default --host 127.0.0.1.",
    },
  );
}

function listen(server: Server, host: string, port: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const why = error.code === "EADDRINUSE" ? "it is already in use" : error.message;
      reject(
        new ResonError("usage_error", `Cannot listen on ${host}:${port}: ${why}.`, {
          hint: "Pick another --port, or stop the program using this one.",
          cause: error,
        }),
      );
    };
    server.once("error", onError);
    server.listen({ host, port, signal }, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

/** Answers CONNECT on the raw socket: this server is no proxy. */
function refuseTunnel(socket: Duplex): void {
  const body = JSON.stringify({
    error: {
      code: "method_not_allowed",
      message: "CONNECT is not supported: this server is not a proxy.",
      hint: "Send requests with a path, e.g. GET /healthz.",
    },
  });
  const headers = {
    ...SECURITY_HEADERS,
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
    allow: HTTP_METHODS.join(", "),
    connection: "close",
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join("\r\n");
  socket.on("error", () => {});
  socket.end(`HTTP/1.1 405 Method Not Allowed\r\n${head}\r\n\r\n${body}`);
}

/** The request target as a URL; "//x" is a path here, not another host. */
function requestUrl(target: string | undefined): URL {
  try {
    if (target?.startsWith("/")) return new URL(`http://server.invalid${target}`);
    if (target !== undefined && /^https?:\/\//i.test(target)) return new URL(target);
  } catch {
    // falls through to the refusal
  }
  throw new ResonError("invalid_request", "The request target is not a valid path.", {
    hint: "Send a path such as /healthz, percent-encoded where needed.",
  });
}

function urlHost(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const host = options.host ?? "127.0.0.1";
  const requestedPort = options.port ?? 0;
  if (!isLoopbackHost(host) && !isConfiguredToken(options.token)) throw refuseOpenBind(host, requestedPort);
  const corsOrigins = (options.corsOrigins ?? []).map(normalizeCorsOrigin);
  const tokenCheck = new TokenCheck(options.token.value);
  // The token is a secret like any other: masked wherever an error message might echo it.
  const redactor = new Redactor();
  redactor.add("serve_token", options.token.value, { allowShort: true });
  const redact = (text: string) => redactor.redact(options.redact ? options.redact(text) : text);
  const info = options.info ?? { title: "reson serve", version: "0.1.0" };
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const shutdown = new AbortController();
  const streams = new Set<SseStream>();

  let openapi: Record<string, unknown> | undefined;
  const routes = [...builtInRoutes(tokenCheck, () => openapiDocument()), ...options.routes];
  const router = new Router(routes);
  const openapiDocument = () => {
    openapi ??= buildOpenApiDocument(router.routes, info);
    return openapi;
  };
  // Built now: a route whose schemas cannot be documented fails the start, not the first reader.
  openapiDocument();

  const log = (record: RequestLogRecord) => {
    try {
      options.log?.(record);
    } catch (error) {
      // A broken log sink must not take the server down with it.
      process.emitWarning(`reson serve: the request log failed: ${String(error)}`);
    }
  };

  let policy: OriginPolicy | undefined;
  const server = createServer({ requestTimeout: 60_000, headersTimeout: 20_000 }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      // Only writing the error response itself can fail here (e.g. a bad header from a route).
      process.emitWarning(`reson serve: could not answer a request: ${redact(String(error))}`);
      res.destroy();
    });
  });

  function sendJson(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) {
    const text = status === 204 || body === undefined ? undefined : JSON.stringify(body);
    res.writeHead(status, {
      ...headers,
      ...(text === undefined ? {} : { "content-type": "application/json; charset=utf-8" }),
    });
    res.end(text);
  }

  function sendError(
    req: IncomingMessage,
    res: ServerResponse,
    failure: HttpError,
    headers: Record<string, string>,
  ) {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // A body left unread (413, 415, an early 401) must not be taken for the next request.
    if (!req.complete) res.setHeader("connection", "close");
    sendJson(res, failure.status, failure.body, headers);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const method = req.method ?? "GET";
    const record: Partial<RequestLogRecord> & { route: string | null } = { route: null };
    const requestDone = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) record.aborted = true;
      requestDone.abort();
      log({
        ts: new Date().toISOString(),
        level: res.statusCode >= 500 ? "error" : res.statusCode >= 400 ? "warn" : "info",
        msg: "http_request",
        requestId: res.getHeader("x-request-id") as string,
        method,
        route: record.route,
        status: res.statusCode,
        ms: Math.round((performance.now() - started) * 100) / 100,
        ...(record.error === undefined ? {} : { error: record.error }),
        ...(record.detail === undefined ? {} : { detail: record.detail }),
        ...(record.aborted ? { aborted: true } : {}),
      });
    });
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    res.setHeader("x-request-id", randomUUID());
    try {
      const verdict = policy!.check(req.headers, req.url);
      if (!verdict.ok) throw verdict.error;
      if (verdict.corsOrigin !== undefined) {
        for (const [name, value] of Object.entries(policy!.corsHeaders(verdict.corsOrigin)))
          res.setHeader(name, value);
        if (method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined) {
          res.writeHead(204, policy!.preflightHeaders(verdict.corsOrigin));
          res.end();
          return;
        }
      }
      const url = requestUrl(req.url);
      const match = router.match(method, url.pathname);
      if (match.kind === "found") record.route = match.route.path;
      const auth = match.kind === "found" ? (match.route.auth ?? "bearer") : "bearer";
      if (!tokenCheck.allows(method, req.headers, auth)) {
        throw new ResonError("unauthorized", "This server needs its token.", {
          hint: "Send Authorization: Bearer <token>; the token is in $RESON_HOME/serve-token (or RESON_SERVE_TOKEN).",
        });
      }
      if (match.kind === "method_not_allowed") {
        res.setHeader("allow", match.allowed.join(", "));
        throw new ResonError("method_not_allowed", `${method} is not supported on ${url.pathname}.`, {
          hint: `Use ${match.allowed.join(" or ")}.`,
        });
      }
      if (match.kind === "not_found") {
        throw new ResonError("not_found", `There is no route ${method} ${url.pathname}.`, {
          hint: "GET /openapi.json lists every route.",
        });
      }
      const signal = AbortSignal.any([shutdown.signal, requestDone.signal]);
      const result = await callRoute(match.route, match.params, {
        req,
        res,
        search: url.searchParams,
        signal,
        bodyLimitBytes,
        openSse: (sse) => {
          const stream = new SseStream(req, res, { ...options.sse, ...sse });
          streams.add(stream);
          stream.signal.addEventListener("abort", () => streams.delete(stream), { once: true });
          if (shutdown.signal.aborted) stream.close();
          return stream;
        },
      });
      if (res.headersSent || res.writableEnded) return;
      sendJson(
        res,
        result?.status ?? (result?.body === undefined ? 204 : 200),
        result?.body,
        result?.headers,
      );
    } catch (thrown) {
      const failure = httpErrorFrom(thrown, redact);
      record.error = failure.body.error.code;
      if (failure.status >= 500 && !(thrown instanceof ResonError && thrown.code !== "internal_error")) {
        record.detail = redact(thrown instanceof Error ? thrown.message : String(thrown));
      }
      const headers: Record<string, string> = failure.status === 401 ? { "www-authenticate": "Bearer" } : {};
      sendError(req, res, failure, headers);
    }
  }

  // CONNECT asks for a tunnel elsewhere; node:http hands it to this event, not to the handler.
  server.on("connect", (req: IncomingMessage, socket: Duplex) => {
    refuseTunnel(socket);
    log({
      ts: new Date().toISOString(),
      level: "warn",
      msg: "http_request",
      requestId: randomUUID(),
      method: req.method ?? "CONNECT",
      route: null,
      status: 405,
      ms: 0,
      error: "method_not_allowed",
    });
  });

  await listen(server, host, requestedPort, options.signal);
  const port = (server.address() as AddressInfo).port;
  policy = new OriginPolicy({ host, port, corsOrigins });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      const stopped = new Promise<void>((done) => server.close(() => done()));
      for (const stream of streams) stream.close();
      server.closeIdleConnections();
      const graceMs = options.closeGraceMs ?? 5_000;
      // Past the grace, handlers still running are aborted (they answer 503), and a moment
      // later whatever connection is left is cut.
      const grace = setTimeout(() => shutdown.abort(shuttingDown()), graceMs);
      const cut = setTimeout(() => server.closeAllConnections(), graceMs + CUT_AFTER_ABORT_MS);
      void stopped.then(() => {
        clearTimeout(grace);
        clearTimeout(cut);
        shutdown.abort(shuttingDown());
        resolve();
      });
    });
    return closing;
  };
  options.signal?.addEventListener("abort", () => void close(), { once: true });

  return { url: `http://${urlHost(host)}:${port}`, host, port, openapi: openapiDocument(), close };
}
