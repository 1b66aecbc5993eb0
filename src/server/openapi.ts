// The OpenAPI 3.1 document of the server, built from the route declarations themselves, so it
// cannot drift from what the router checks. TypeBox emits JSON Schema, which 3.1 takes as is;
// every schema with a `$id` (ResonEvent, Usage, Error, …) becomes one entry under
// components.schemas and a $ref wherever it is used.
import type { TSchema } from "typebox";
import { SSE_COOKIE_NAME } from "./auth.js";
import { ErrorBodySchema } from "./http-errors.js";
import type { DescribedResponse, ResponseSpec, Route } from "./router.js";

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

type Json = Record<string, unknown>;

const COMPONENT_NAME = /^[A-Za-z0-9._-]+$/;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Hoists every `$id` schema into `components`, leaving a $ref; throws on two different ones with one name. */
class SchemaComponents {
  readonly schemas: Record<string, Json> = {};
  readonly #serialized = new Map<string, string>();

  ref(schema: TSchema): Json {
    // Through JSON: TypeBox's own markers are not enumerable and stay behind.
    return this.#hoist(JSON.parse(JSON.stringify(schema)) as unknown) as Json;
  }

  #hoist(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((item) => this.#hoist(item));
    if (!isObject(node)) return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      // "properties" maps names to schemas: a property may be called "$id" without being one.
      out[key] = key === "properties" && isObject(value) ? this.#hoistEach(value) : this.#hoist(value);
    }
    const id = out.$id;
    if (typeof id !== "string") return out;
    if (!COMPONENT_NAME.test(id)) throw new Error(`schema $id ${id} cannot name an OpenAPI component`);
    delete out.$id;
    const text = JSON.stringify(out);
    const known = this.#serialized.get(id);
    if (known !== undefined && known !== text) throw new Error(`two different schemas are named ${id}`);
    this.#serialized.set(id, text);
    this.schemas[id] = out;
    return { $ref: `#/components/schemas/${id}` };
  }

  #hoistEach(properties: Json): Json {
    const out: Json = {};
    for (const [name, schema] of Object.entries(properties)) out[name] = this.#hoist(schema);
    return out;
  }
}

/** A described response has only these keys; anything else is a schema (which may have a description). */
function isDescribed(spec: ResponseSpec): spec is DescribedResponse {
  const keys = Object.keys(spec);
  return (
    typeof (spec as { description?: unknown }).description === "string" &&
    keys.every((key) => key === "description" || key === "schema" || key === "contentType")
  );
}

const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No content",
};

/** `/runs/:id` as OpenAPI spells it, `/runs/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
}

function operationId(route: Route): string {
  if (route.operationId) return route.operationId;
  const words = route.path
    .split("/")
    .filter((part) => part !== "")
    .map((part) => (part.startsWith(":") ? `by_${part.slice(1)}` : part.replace(/[^A-Za-z0-9]+/g, "_")));
  return [route.method.toLowerCase(), ...words].join("_");
}

function parameters(route: Route, components: SchemaComponents): Json[] {
  const out: Json[] = [];
  for (const [where, schema] of [
    ["path", route.params],
    ["query", route.query],
  ] as const) {
    if (!schema) continue;
    const required = new Set<string>(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    for (const [name, property] of Object.entries(schema.properties as Record<string, TSchema>)) {
      const parameter: Json = {
        name,
        in: where,
        required: where === "path" || required.has(name),
        schema: components.ref(property),
      };
      const { description } = property as { description?: unknown };
      if (typeof description === "string") parameter.description = description;
      out.push(parameter);
    }
  }
  return out;
}

function responses(route: Route, components: SchemaComponents): Json {
  const out: Json = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    const code = Number(status);
    const described: DescribedResponse = isDescribed(spec)
      ? spec
      : { description: STATUS_TEXT[code] ?? "Response", schema: spec };
    const response: Json = { description: described.description };
    if (described.schema !== undefined) {
      const contentType = described.contentType ?? "application/json";
      response.content = { [contentType]: { schema: components.ref(described.schema) } };
    }
    out[status] = response;
  }
  const error = { $ref: "#/components/responses/Error" };
  if ((route.auth ?? "bearer") !== "none") out["401"] = { $ref: "#/components/responses/Unauthorized" };
  out.default = error;
  return out;
}

function security(route: Route): Json[] {
  switch (route.auth ?? "bearer") {
    case "none":
      return [];
    case "bearer-or-cookie":
      return [{ bearerAuth: [] }, { sseCookie: [] }];
    case "bearer":
      return [{ bearerAuth: [] }];
  }
}

/** The OpenAPI 3.1 document for these routes. */
export function buildOpenApiDocument(routes: readonly Route[], info: OpenApiInfo): Json {
  const components = new SchemaComponents();
  const errorContent = { "application/json": { schema: components.ref(ErrorBodySchema) } };
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const operation: Json = { operationId: operationId(route), summary: route.summary };
    if (route.description) operation.description = route.description;
    if (route.tags) operation.tags = route.tags;
    const params = parameters(route, components);
    if (params.length > 0) operation.parameters = params;
    if (route.body) {
      operation.requestBody = {
        required: true,
        content: { "application/json": { schema: components.ref(route.body) } },
      };
    }
    operation.responses = responses(route, components);
    operation.security = security(route);
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  return {
    openapi: "3.1.0",
    info,
    paths,
    components: {
      schemas: components.schemas,
      responses: {
        Error: { description: "An error: what went wrong and what to do next", content: errorContent },
        Unauthorized: {
          description: "No token, or a wrong one",
          headers: { "WWW-Authenticate": { schema: { type: "string" } } },
          content: errorContent,
        },
      },
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "The token in $RESON_HOME/serve-token, RESON_SERVE_TOKEN or --token-file",
        },
        sseCookie: {
          type: "apiKey",
          in: "cookie",
          name: SSE_COOKIE_NAME,
          description: "Set by POST /auth/sse-cookie, for EventSource, which cannot send headers",
        },
      },
    },
    security: [{ bearerAuth: [] }],
  };
}
