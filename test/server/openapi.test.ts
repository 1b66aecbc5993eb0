// /openapi.json is built from the route declarations: valid OpenAPI 3.1 (checked by an
// independent validator), every route in it, shared schemas as components, the bearer
// scheme everywhere but /healthz.
import { Validator } from "@seriousme/openapi-schema-validator";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResonEventSchema } from "../../src/core/events.js";
import {
  buildOpenApiDocument,
  defineRoute,
  type HttpServer,
  openApiPath,
  startHttpServer,
} from "../../src/server/index.js";
import { send } from "./client.js";
import { TEST_TOKEN, testRoutes } from "./routes.js";

const token = { value: TEST_TOKEN, source: "env" as const, created: false };

const runEvents = defineRoute({
  method: "GET",
  path: "/runs/:id/events",
  summary: "A run's events",
  auth: "bearer-or-cookie",
  params: Type.Object({ id: Type.String() }),
  query: Type.Object({ after: Type.Optional(Type.Integer({ minimum: 0 })) }),
  responses: {
    200: { description: "The run's events", schema: ResonEventSchema, contentType: "text/event-stream" },
  },
  handler: () => ({ status: 204 }),
});

type Json = Record<string, unknown>;

function refsIn(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refsIn(item, out);
  else if (typeof node === "object" && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") out.push(value);
      else refsIn(value, out);
    }
  }
  return out;
}

function resolve(document: Json, ref: string): unknown {
  return ref
    .slice(2)
    .split("/")
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], document);
}

describe("the OpenAPI document", () => {
  let server: HttpServer;
  let document: Json;
  const { routes } = testRoutes();
  beforeAll(async () => {
    server = await startHttpServer({ token, routes: [...routes, runEvents] });
    const reply = await send(server.url, "/openapi.json", {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(reply.status).toBe(200);
    document = reply.json as Json;
  });
  afterAll(async () => {
    await server.close();
  });

  it("is valid OpenAPI 3.1 and every $ref in it resolves", async () => {
    expect(document.openapi).toBe("3.1.0");
    const result = await new Validator().validate(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    const unresolved = [...new Set(refsIn(document))].filter((ref) => resolve(document, ref) === undefined);
    expect(unresolved).toEqual([]);
  });

  it("lists every route, built-in and declared, under its OpenAPI path", () => {
    const paths = document.paths as Record<string, Json>;
    const expected = [
      ["GET", "/healthz"],
      ["GET", "/openapi.json"],
      ["POST", "/auth/sse-cookie"],
      ...[...routes, runEvents].map((r) => [r.method, r.path]),
    ];
    for (const [method, path] of expected) {
      expect(paths[openApiPath(path!)]?.[method!.toLowerCase()], `${method} ${path}`).toBeDefined();
    }
    const listed = Object.values(paths).reduce((sum, item) => sum + Object.keys(item).length, 0);
    expect(listed).toBe(expected.length);
    expect(paths["/runs/{id}/events"]?.get).toMatchObject({
      parameters: [
        { name: "id", in: "path", required: true, schema: { type: "string" } },
        { name: "after", in: "query", required: false, schema: { type: "integer", minimum: 0 } },
      ],
    });
  });

  it("needs the bearer token everywhere but /healthz, and takes the cookie on event streams", () => {
    const paths = document.paths as Record<string, Record<string, Json>>;
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect((document.components as Json).securitySchemes).toMatchObject({
      bearerAuth: { type: "http", scheme: "bearer" },
      sseCookie: { type: "apiKey", in: "cookie", name: "reson_sse" },
    });
    expect(paths["/healthz"]!.get!.security).toEqual([]);
    expect(paths["/things/{id}"]!.get!.security).toEqual([{ bearerAuth: [] }]);
    expect(paths["/runs/{id}/events"]!.get!.security).toEqual([{ bearerAuth: [] }, { sseCookie: [] }]);
    expect(paths["/things/{id}"]!.get!.responses).toMatchObject({
      401: { $ref: "#/components/responses/Unauthorized" },
      default: { $ref: "#/components/responses/Error" },
    });
  });

  it("puts shared schemas in components once: the run events, Usage, the error shape", () => {
    const schemas = (document.components as { schemas: Record<string, Json> }).schemas;
    for (const name of [
      "Thing",
      "Error",
      "Health",
      "ResonEvent",
      "RunStartEvent",
      "PermissionRequestEvent",
      "Usage",
    ]) {
      expect(schemas[name], name).toBeDefined();
      expect(schemas[name]!.$id).toBeUndefined();
    }
    expect(schemas.ResonEvent!.anyOf).toContainEqual({ $ref: "#/components/schemas/RunEndEvent" });
    const paths = document.paths as Record<string, Record<string, Json>>;
    expect(paths["/runs/{id}/events"]!.get!.responses).toMatchObject({
      200: { content: { "text/event-stream": { schema: { $ref: "#/components/schemas/ResonEvent" } } } },
    });
  });

  it("refuses two different schemas under one name, at start rather than on first read", () => {
    const twin = defineRoute({
      method: "GET",
      path: "/twin",
      summary: "A different Thing",
      responses: { 200: Type.Object({ other: Type.String() }, { $id: "Thing" }) },
      handler: () => ({ body: { other: "x" } }),
    });
    expect(() => buildOpenApiDocument([...routes, twin], { title: "t", version: "1" })).toThrow(/Thing/);
  });
});
