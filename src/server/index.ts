// The HTTP foundations of `reson serve`: the server, its routes as data, auth, origin checks,
// bodies, errors, the OpenAPI document and server-sent events. Routes for sessions and runs
// are declared with defineRoute and handed to startHttpServer.
export { bearerToken, type RouteAuth, SSE_COOKIE_NAME, TokenCheck } from "./auth.js";
export { DEFAULT_BODY_LIMIT_BYTES, isJsonContentType, readJsonBody, readRawBody } from "./body.js";
export {
  type ErrorBody,
  ErrorBodySchema,
  type HttpError,
  httpErrorFrom,
  httpStatusFor,
  type Problem,
  ProblemSchema,
} from "./http-errors.js";
export { type HttpServer, type HttpServerOptions, startHttpServer } from "./http-server.js";
export { type MetricsListener, startMetricsListener } from "./metrics-listener.js";
export { metricsRoute } from "./metrics-route.js";
export { buildOpenApiDocument, type OpenApiInfo, openApiPath } from "./openapi.js";
export { isLoopbackHost, isLoopbackName, normalizeCorsOrigin, OriginPolicy } from "./origin.js";
export { jsonLineLogger, type RequestLogger, type RequestLogRecord } from "./request-log.js";
export {
  type DescribedResponse,
  defineRoute,
  HTTP_METHODS,
  type HttpMethod,
  type ResponseSpec,
  type Route,
  type RouteContext,
  type RouteDefinition,
  type RouteResult,
  Router,
} from "./router.js";
export { type BusyPolicy, RunService, type RunView, type SessionView } from "./run-service.js";
export {
  existingServeToken,
  isConfiguredToken,
  type LoadServeTokenOptions,
  loadServeToken,
  MIN_TOKEN_LENGTH,
  SERVE_TOKEN_FILE,
  type ServeToken,
  type ServeTokenSource,
} from "./serve-token.js";
export { type Service, type ServiceOptions, startService } from "./service.js";
export {
  DEFAULT_SSE_HEARTBEAT_MS,
  DEFAULT_SSE_MAX_BUFFERED_BYTES,
  DEFAULT_SSE_RETRY_MS,
  formatSseFrame,
  parseResumePoint,
  type SseFrame,
  type SseOptions,
  SseStream,
} from "./sse.js";
export { type TaskMaskingOptions, taskMasker } from "./task-masking.js";
export { type RequestPart, validateRequestPart } from "./validate.js";
