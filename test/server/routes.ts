// Trivial routes for the server tests: a typed GET, a POST with a strict body, an event stream
// that replays numbered events after the resume point, and a route that fails like a bug.
import { Type } from "typebox";
import { defineRoute, parseResumePoint, type Route, type SseStream } from "../../src/server/index.js";

export const TEST_TOKEN = "test-token-0123456789abcdefghijklmnopqrstuvwxyz";

export const ThingSchema = Type.Object(
  { id: Type.String(), name: Type.String(), count: Type.Integer() },
  { $id: "Thing" },
);
const NewThingSchema = Type.Object(
  { name: Type.String({ minLength: 1 }), count: Type.Integer({ minimum: 0 }) },
  { additionalProperties: false },
);

export interface TestRoutes {
  routes: Route[];
  /** The streams the /events route opened, in order. */
  streams: SseStream[];
  /** The signals of the requests /wait holds. */
  waiting: AbortSignal[];
}

/** Ten committed events (seq 1..10) and one live-only frame after them. */
export function testRoutes(): TestRoutes {
  const streams: SseStream[] = [];
  const waiting: AbortSignal[] = [];
  const routes = [
    defineRoute({
      method: "GET",
      path: "/things/:id",
      summary: "Get a thing",
      params: Type.Object({ id: Type.String({ pattern: "^t[0-9]+$", description: "a thing id" }) }),
      query: Type.Object({ verbose: Type.Optional(Type.Boolean()) }),
      responses: { 200: ThingSchema },
      handler: (ctx) => ({
        body: { id: ctx.params.id, name: ctx.query.verbose ? "thing (verbose)" : "thing", count: 1 },
      }),
    }),
    defineRoute({
      method: "POST",
      path: "/things",
      summary: "Create a thing",
      body: NewThingSchema,
      responses: { 201: ThingSchema },
      handler: (ctx) => ({ status: 201, body: { id: "t1", name: ctx.body.name, count: ctx.body.count } }),
    }),
    defineRoute({
      method: "GET",
      path: "/events",
      summary: "Numbered events after the resume point, then one live frame",
      auth: "bearer-or-cookie",
      query: Type.Object({ after: Type.Optional(Type.String()) }),
      responses: {
        200: { description: "An event stream", schema: ThingSchema, contentType: "text/event-stream" },
      },
      handler: (ctx) => {
        const after = parseResumePoint(ctx.req.headers["last-event-id"], ctx.query.after) ?? 0;
        const stream = ctx.openSse();
        streams.push(stream);
        for (let seq = after + 1; seq <= 10; seq++) {
          stream.send({ id: seq, event: "thing", data: { id: `t${seq}`, name: "line\nbreak", count: seq } });
        }
        stream.send({ event: "text_delta", data: { delta: "live" } });
        return undefined;
      },
    }),
    defineRoute({
      method: "GET",
      path: "/flood",
      summary: "Writes large frames without waiting, as a producer that ignores backpressure would",
      responses: { 200: { description: "An event stream", contentType: "text/event-stream" } },
      handler: async (ctx) => {
        const stream = ctx.openSse({ maxBufferedBytes: 256 * 1024 });
        streams.push(stream);
        const big = "x".repeat(64 * 1024);
        for (let seq = 1; seq <= 100_000 && stream.send({ id: seq, event: "big", data: big }); seq++) {
          await new Promise((resolve) => setImmediate(resolve));
        }
        return undefined;
      },
    }),
    defineRoute({
      method: "GET",
      path: "/wait",
      summary: "Waits until the request is aborted (the client left or the server is closing)",
      responses: { 204: { description: "Never" } },
      handler: (ctx) => {
        waiting.push(ctx.signal);
        return new Promise((_, reject) =>
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }),
        );
      },
    }),
    defineRoute({
      method: "GET",
      path: "/boom",
      summary: "Fails like a bug, with the token in its message",
      responses: { 200: ThingSchema },
      handler: () => {
        throw new Error(`bug while holding ${TEST_TOKEN}`);
      },
    }),
  ];
  return { routes, streams, waiting };
}
