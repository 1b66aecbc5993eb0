// Server-sent events over real HTTP: framing, resume points, heartbeats, clients that leave or
// cannot keep up, the cookie for EventSource, and streams ended by close().
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  formatSseFrame,
  type HttpServer,
  parseResumePoint,
  startHttpServer,
} from "../../src/server/index.js";
import { openStream, parseFrames, send } from "./client.js";
import { TEST_TOKEN, type TestRoutes, testRoutes } from "./routes.js";

const token = { value: TEST_TOKEN, source: "env" as const, created: false };
const auth = { authorization: `Bearer ${TEST_TOKEN}` };

describe("formatSseFrame and parseResumePoint", () => {
  it("frames any JSON data as one data line that parses back to the same value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.option(fc.nat(), { nil: undefined }), (data, id) => {
        const text = formatSseFrame({ event: "tool_result", data, ...(id === undefined ? {} : { id }) });
        expect(text.endsWith("\n\n")).toBe(true);
        const lines = text.slice(0, -2).split("\n");
        expect(lines).toHaveLength(id === undefined ? 2 : 3);
        const frame = parseFrames(text)[0]!;
        expect(frame.id).toBe(id === undefined ? undefined : String(id));
        expect(JSON.parse(frame.data!)).toEqual(JSON.parse(JSON.stringify(data)));
      }),
    );
  });

  it("refuses event names and ids that would break the framing", () => {
    expect(() => formatSseFrame({ event: "a\ndata: x", data: 1 })).toThrow();
    expect(() => formatSseFrame({ event: "ok", data: 1, id: -1 })).toThrow();
    expect(() => formatSseFrame({ event: "ok", data: 1, id: 1.5 })).toThrow();
  });

  it("reads the resume point from Last-Event-ID before ?after, and only non-negative integers", () => {
    expect(parseResumePoint(undefined, undefined)).toBeUndefined();
    expect(parseResumePoint("", "")).toBeUndefined();
    expect(parseResumePoint("7", "3")).toBe(7);
    expect(parseResumePoint(undefined, "3")).toBe(3);
    expect(parseResumePoint(["12"], undefined)).toBe(12);
    fc.assert(
      fc.property(fc.maxSafeNat(), (n) => {
        expect(parseResumePoint(String(n), undefined)).toBe(n);
        expect(parseResumePoint(undefined, String(n))).toBe(n);
      }),
    );
    fc.assert(
      fc.property(fc.string(), (raw) => {
        fc.pre(!/^\s*\d{1,16}\s*$/.test(raw) && raw.trim() !== "");
        expect(() => parseResumePoint(raw, undefined)).toThrow(
          expect.objectContaining({ code: "invalid_request" }),
        );
      }),
    );
    for (const bad of ["-1", "1.5", "1e3", "0x10", "99999999999999999"]) {
      expect(() => parseResumePoint(undefined, bad)).toThrow(
        expect.objectContaining({ code: "invalid_request" }),
      );
    }
  });
});

describe("event streams", () => {
  let server: HttpServer;
  let routes: TestRoutes;
  beforeEach(async () => {
    routes = testRoutes();
    server = await startHttpServer({ token, routes: routes.routes, sse: { heartbeatMs: 20, retryMs: 1500 } });
  });
  afterEach(async () => {
    await server.close();
  });

  it("sends retry first, then numbered events with their ids, and live frames without one", async () => {
    const stream = await openStream(server.url, "/events", auth);
    expect(stream.response.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(stream.response.headers["cache-control"]).toBe("no-cache");
    expect(stream.response.headers["x-accel-buffering"]).toBe("no");
    const text = await stream.waitFor((t) => t.includes("event: text_delta"));
    const frames = parseFrames(text).filter((f) => f.comment === undefined);
    expect(frames[0]).toEqual({ retry: "1500" });
    const numbered = frames.filter((f) => f.event === "thing");
    expect(numbered.map((f) => f.id)).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]);
    expect(JSON.parse(numbered[0]!.data!)).toEqual({ id: "t1", name: "line\nbreak", count: 1 });
    const live = frames.find((f) => f.event === "text_delta");
    expect(live).toEqual({ event: "text_delta", data: '{"delta":"live"}' });
    stream.destroy();
  });

  it("resumes after Last-Event-ID or ?after=N, and refuses a bad one with 400", async () => {
    const fromHeader = await openStream(server.url, "/events", { ...auth, "last-event-id": "7" });
    const headerIds = parseFrames(await fromHeader.waitFor((t) => t.includes("text_delta")))
      .filter((f) => f.id !== undefined)
      .map((f) => f.id);
    expect(headerIds).toEqual(["8", "9", "10"]);
    fromHeader.destroy();
    const fromQuery = await openStream(server.url, "/events?after=9", auth);
    const queryIds = parseFrames(await fromQuery.waitFor((t) => t.includes("text_delta")))
      .filter((f) => f.id !== undefined)
      .map((f) => f.id);
    expect(queryIds).toEqual(["10"]);
    fromQuery.destroy();
    for (const headers of [{ "last-event-id": "abc" }, { "last-event-id": "-3" }]) {
      const reply = await send(server.url, "/events", { headers: { ...auth, ...headers } });
      expect(reply.status).toBe(400);
      expect(reply.json).toMatchObject({ error: { code: "invalid_request" } });
    }
    expect((await send(server.url, "/events?after=1.5", { headers: auth })).status).toBe(400);
  });

  it("sends a comment heartbeat while the stream is quiet", async () => {
    const stream = await openStream(server.url, "/events?after=10", auth);
    const text = await stream.waitFor((t) => (t.match(/^: ping$/gm) ?? []).length >= 2);
    expect(text).toContain(": ping\n\n");
    stream.destroy();
  });

  it("stops writing and frees its timer when the client goes away", async () => {
    const stream = await openStream(server.url, "/events", auth);
    await stream.waitFor((t) => t.includes("text_delta"));
    const serverSide = routes.streams[0]!;
    expect(serverSide.closed).toBe(false);
    const left = new Promise((resolve) => serverSide.signal.addEventListener("abort", resolve));
    stream.destroy();
    await left;
    expect(serverSide.closed).toBe(true);
    expect(serverSide.send({ event: "thing", data: {}, id: 11 })).toBe(false);
  });

  it("drops a client that does not read, instead of buffering without bound", async () => {
    const stream = await openStream(server.url, "/flood", auth);
    stream.response.pause();
    await new Promise((resolve) => {
      const check = () => (routes.streams[0]?.closed ? resolve(undefined) : setTimeout(check, 10));
      check();
    });
    expect(routes.streams[0]!.closed).toBe(true);
    stream.destroy();
  });

  it("lets a browser open streams with the cookie from POST /auth/sse-cookie, and nothing else with it", async () => {
    const login = await send(server.url, "/auth/sse-cookie", { method: "POST", headers: auth });
    expect(login.status).toBe(204);
    const setCookie = login.headers["set-cookie"]![0]!;
    expect(setCookie).toMatch(/^reson_sse=[\w-]+; HttpOnly; SameSite=Strict; Path=\//);
    expect(setCookie).not.toContain(TEST_TOKEN);
    const cookie = setCookie.split(";")[0]!;
    const stream = await openStream(server.url, "/events?after=9", { cookie });
    expect(stream.response.statusCode).toBe(200);
    stream.destroy();
    expect((await send(server.url, "/things/t1", { headers: { cookie } })).status).toBe(401);
    expect((await send(server.url, "/events", { headers: { cookie: "reson_sse=forged" } })).status).toBe(401);
    expect((await send(server.url, "/auth/sse-cookie", { method: "POST" })).status).toBe(401);
  });

  it("lets a request in flight finish its grace on close(), then aborts it with a 503", async () => {
    const { routes: list, waiting } = testRoutes();
    const graced = await startHttpServer({ token, routes: list, closeGraceMs: 50 });
    const reply = send(graced.url, "/wait", { headers: auth });
    while (waiting.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await graced.close();
    expect(waiting[0]!.aborted).toBe(true);
    const answered = await reply;
    expect(answered.status).toBe(503);
    expect(answered.json).toMatchObject({
      error: { code: "aborted", message: "The server is shutting down." },
    });
  });

  it("ends open streams on close()", async () => {
    const stream = await openStream(server.url, "/events", auth);
    await stream.waitFor((t) => t.includes("text_delta"));
    await server.close();
    await stream.ended;
    expect(routes.streams[0]!.closed).toBe(true);
  });
});
