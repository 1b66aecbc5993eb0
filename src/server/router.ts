// Routes are data: method, path pattern, the TypeBox schemas of what comes in and goes out,
// and a handler. The router matches a request, checks its path, query and body against the
// schemas and calls the handler with typed values; /openapi.json is built from the same list.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Static, TObject, TSchema } from "typebox";
import { ResonError } from "../core/errors.js";
import type { RouteAuth } from "./auth.js";
import { readJsonBody } from "./body.js";
import type { SseOptions, SseStream } from "./sse.js";
import { validateRequestPart } from "./validate.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export const HTTP_METHODS: readonly HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** A response with its description and content type (default application/json); no schema: no body. */
export interface DescribedResponse {
  description: string;
  schema?: TSchema;
  contentType?: string;
}

/** A response as documented: a schema (JSON), or a described response. */
export type ResponseSpec = TSchema | DescribedResponse;

export interface RouteContext<Params, Query, Body> {
  req: IncomingMessage;
  res: ServerResponse;
  params: Params;
  query: Query;
  body: Body;
  /** Aborts when the client goes away or the server closes. */
  signal: AbortSignal;
  /** Takes over the response as an event stream; the server closes it on shutdown. */
  openSse(options?: SseOptions): SseStream;
}

/** What a handler returns; nothing (after openSse) means it wrote the response itself. */
export interface RouteResult {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RouteDefinition<Params extends TObject, Query extends TObject, Body extends TSchema> {
  method: HttpMethod;
  /** "/runs/:id/events": `:name` segments are path parameters. */
  path: string;
  summary: string;
  description?: string;
  tags?: string[];
  operationId?: string;
  /** Default bearer; none only for probes like /healthz. */
  auth?: RouteAuth;
  params?: Params;
  query?: Query;
  body?: Body;
  /** Overrides the server's body limit for this route. */
  bodyLimitBytes?: number;
  /** By status: 200, 201, 204, … (errors are documented for every route). */
  responses: Record<number, ResponseSpec>;
  handler(
    ctx: RouteContext<Static<Params>, Static<Query>, Static<Body>>,
  ): Promise<RouteResult | undefined> | RouteResult | undefined;
}

/** A route with its types erased, as the router and the OpenAPI generator hold it. */
export type Route = RouteDefinition<TObject, TObject, TSchema>;

/** Declares a route; the handler's params, query and body are typed from the schemas. */
export function defineRoute<Params extends TObject, Query extends TObject, Body extends TSchema>(
  route: RouteDefinition<Params, Query, Body>,
): Route {
  return route as unknown as Route;
}

type Segment = { literal: string } | { param: string };

interface CompiledRoute {
  route: Route;
  segments: Segment[];
  /** Literal segments first: /runs/latest beats /runs/:id. */
  specificity: number;
}

export type RouteMatch =
  | { kind: "found"; route: Route; params: Record<string, string> }
  | { kind: "method_not_allowed"; allowed: HttpMethod[] }
  | { kind: "not_found" };

const PARAM = /^:([A-Za-z_][A-Za-z0-9_]*)$/;

function compile(route: Route): CompiledRoute {
  if (!route.path.startsWith("/")) throw new Error(`route path ${route.path} must start with /`);
  const segments = route.path
    .split("/")
    .slice(1)
    .map((part): Segment => {
      const param = PARAM.exec(part);
      if (param) return { param: param[1]! };
      if (part.includes(":")) throw new Error(`route path ${route.path}: bad parameter segment ${part}`);
      return { literal: part };
    });
  const specificity = segments.reduce((sum, s, i) => sum + ("literal" in s ? 2 ** (32 - i) : 0), 0);
  return { route, segments, specificity };
}

function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ResonError("invalid_request", "The request path is not valid percent-encoding.", {
      hint: "Encode path segments with encodeURIComponent.",
    });
  }
}

export class Router {
  readonly routes: readonly Route[];
  readonly #compiled: CompiledRoute[];

  constructor(routes: readonly Route[]) {
    const seen = new Set<string>();
    for (const route of routes) {
      const key = `${route.method} ${route.path.replace(/:[^/]+/g, ":")}`;
      if (seen.has(key)) throw new Error(`two routes for ${route.method} ${route.path}`);
      seen.add(key);
    }
    this.routes = routes;
    this.#compiled = routes.map(compile).sort((a, b) => b.specificity - a.specificity);
  }

  match(method: string, pathname: string): RouteMatch {
    const parts = pathname.split("/").slice(1);
    const allowed = new Set<HttpMethod>();
    for (const candidate of this.#compiled) {
      const params = this.#matchSegments(candidate.segments, parts);
      if (!params) continue;
      if (candidate.route.method === method) return { kind: "found", route: candidate.route, params };
      allowed.add(candidate.route.method);
    }
    if (allowed.size > 0) return { kind: "method_not_allowed", allowed: [...allowed] };
    return { kind: "not_found" };
  }

  #matchSegments(segments: Segment[], parts: string[]): Record<string, string> | undefined {
    if (segments.length !== parts.length) return undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i]!;
      const part = parts[i]!;
      if ("literal" in segment) {
        if (segment.literal !== part) return undefined;
      } else {
        if (part === "") return undefined;
        params[segment.param] = decodeSegment(part);
      }
    }
    return params;
  }
}

/** Query parameters as an object: a repeated name becomes an array. */
function queryObject(search: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of search) {
    const existing = out[name];
    if (existing === undefined) out[name] = value;
    else out[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

export interface CallOptions {
  req: IncomingMessage;
  res: ServerResponse;
  search: URLSearchParams;
  signal: AbortSignal;
  bodyLimitBytes: number;
  openSse(options?: SseOptions): SseStream;
}

/** Checks the request against the route's schemas and runs its handler. */
export async function callRoute(
  route: Route,
  pathParams: Record<string, string>,
  options: CallOptions,
): Promise<RouteResult | undefined> {
  const params = route.params ? validateRequestPart(route.params, pathParams, "path") : pathParams;
  const rawQuery = queryObject(options.search);
  const query = route.query ? validateRequestPart(route.query, rawQuery, "query") : rawQuery;
  let body: unknown;
  if (route.body) {
    const limitBytes = route.bodyLimitBytes ?? options.bodyLimitBytes;
    const raw = await readJsonBody(options.req, { limitBytes, signal: options.signal });
    body = validateRequestPart(route.body, raw, "body");
  }
  return route.handler({
    req: options.req,
    res: options.res,
    params: params as Static<TObject>,
    query: query as Static<TObject>,
    body,
    signal: options.signal,
    openSse: options.openSse,
  });
}
