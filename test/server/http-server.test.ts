// The server over real HTTP on 127.0.0.1: closed to strangers (token, Origin, Host), strict
// about bodies, one JSON error shape, and request logs that never hold a secret.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServer, type RequestLogRecord, startHttpServer } from "../../src/server/index.js";
import { send, sendRaw } from "./client.js";
import { TEST_TOKEN, testRoutes } from "./routes.js";

const token = { value: TEST_TOKEN, source: "env" as const, created: false };
const auth = { authorization: `Bearer ${TEST_TOKEN}` };
const LISTED = "https://app.example.com";

describe("startHttpServer", () => {
  let server: HttpServer;
  const logs: RequestLogRecord[] = [];
  beforeAll(async () => {
    server = await startHttpServer({
      token,
      routes: testRoutes().routes,
      corsOrigins: [LISTED],
      bodyLimitBytes: 1024,
      log: (record) => logs.push(record),
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it("binds 127.0.0.1 and answers /healthz without a token, with the security headers", async () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const reply = await send(server.url, "/healthz");
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ ok: true });
    expect(reply.headers["x-content-type-options"]).toBe("nosniff");
    expect(reply.headers["referrer-policy"]).toBe("no-referrer");
    expect(reply.headers["content-security-policy"]).toContain("default-src 'none'");
  });

  it("refuses every other route without a token: 401, WWW-Authenticate: Bearer, a JSON error", async () => {
    for (const path of ["/things/t1", "/openapi.json", "/no/such/route"]) {
      const reply = await send(server.url, path);
      expect(reply.status).toBe(401);
      expect(reply.headers["www-authenticate"]).toBe("Bearer");
      expect(reply.json).toMatchObject({
        error: { code: "unauthorized", hint: expect.stringContaining("Authorization: Bearer") },
      });
    }
  });

  it("refuses a wrong token, a token in another scheme and a token in the query string", async () => {
    const wrong = [
      { authorization: `Bearer ${TEST_TOKEN.slice(0, -1)}X` },
      { authorization: `Bearer ${TEST_TOKEN}x` },
      { authorization: `Basic ${Buffer.from(`reson:${TEST_TOKEN}`).toString("base64")}` },
      { authorization: TEST_TOKEN },
    ];
    for (const headers of wrong) expect((await send(server.url, "/things/t1", { headers })).status).toBe(401);
    expect((await send(server.url, `/things/t1?token=${TEST_TOKEN}`)).status).toBe(401);
    const right = await send(server.url, "/things/t1?verbose=true", { headers: auth });
    expect(right.status).toBe(200);
    expect(right.json).toEqual({ id: "t1", name: "thing (verbose)", count: 1 });
  });

  it("accepts no Authorization header but the exact token (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "grapheme-ascii", maxLength: 80 }), async (guess) => {
        fc.pre(guess.trim() !== TEST_TOKEN && !/[\r\n]/.test(guess));
        const reply = await send(server.url, "/things/t1", { headers: { authorization: `Bearer ${guess}` } });
        expect(reply.status).toBe(401);
      }),
      { numRuns: 60 },
    );
  });

  it("refuses a foreign Origin with 403 before the token is even looked at", async () => {
    for (const origin of ["https://evil.example", "null", `http://127.0.0.1:${server.port + 1}`, "file://"]) {
      const reply = await send(server.url, "/things/t1", { headers: { ...auth, origin } });
      expect(reply.status).toBe(403);
      expect(reply.json).toMatchObject({
        error: { code: "forbidden", hint: expect.stringContaining("--cors") },
      });
    }
    // A browser's request without Origin (an image, a link) still says it comes from elsewhere.
    const image = await send(server.url, "/things/t1", {
      headers: { ...auth, "sec-fetch-site": "cross-site" },
    });
    expect(image.status).toBe(403);
    // Its own origin, under either loopback name, is fine.
    for (const origin of [`http://127.0.0.1:${server.port}`, `http://localhost:${server.port}`]) {
      expect((await send(server.url, "/things/t1", { headers: { ...auth, origin } })).status).toBe(200);
    }
  });

  it("refuses any Origin that is not its own or listed (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.webUrl({ withQueryParameters: false, withFragments: false }), async (url) => {
        const origin = new URL(url).origin;
        fc.pre(origin !== LISTED);
        const reply = await send(server.url, "/healthz", { headers: { origin } });
        expect(reply.status).toBe(403);
      }),
      { numRuns: 40 },
    );
  });

  it("refuses a Host that is not a loopback name (DNS rebinding), even with the token", async () => {
    for (const host of [
      `evil.example:${server.port}`,
      `127.0.0.1.evil.example:${server.port}`,
      "a@127.0.0.1",
      "[::1",
    ]) {
      const reply = await send(server.url, "/things/t1", { headers: { ...auth, host } });
      expect(reply.status).toBe(403);
    }
    for (const host of [
      `localhost:${server.port}`,
      `127.0.0.1:${server.port}`,
      `app.localhost:${server.port}`,
    ]) {
      expect((await send(server.url, "/things/t1", { headers: { ...auth, host } })).status).toBe(200);
    }
  });

  it("refuses every Host that is not a loopback name (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.domain(),
        fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
        async (name, port) => {
          fc.pre(!/(^|\.)localhost$/i.test(name));
          const host = port === undefined ? name : `${name}:${port}`;
          const reply = await send(server.url, "/healthz", { headers: { host } });
          expect(reply.status).toBe(403);
        },
      ),
      { numRuns: 40 },
    );
  });

  const raw = (line: string, host: string) =>
    `${line} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nConnection: close\r\n\r\n`;

  it("refuses a request target in absolute form that names another host than its own, over a raw socket", async () => {
    const own = `127.0.0.1:${server.port}`;
    for (const target of [
      "http://evil.example/things/t1",
      `http://evil.example:${server.port}/things/t1`,
      "HTTP://EVIL.EXAMPLE/things/t1",
      `http://127.0.0.1.evil.example:${server.port}/things/t1`,
      `http://${own}@evil.example/things/t1`,
      `http://evil.example@${own}/things/t1`,
      `http://localhost:${server.port}/things/t1`,
      "https://evil.example/things/t1",
      "ws://evil.example/things/t1",
    ]) {
      const reply = await sendRaw(server.url, raw(`GET ${target}`, own));
      expect(reply.status, target).toBe(403);
      expect(reply.text).toContain('"code":"forbidden"');
      expect(reply.text).not.toContain("thing");
    }
    // The same host in the target as in Host is what a proxy sends: served.
    const same = await sendRaw(server.url, raw(`GET http://${own}/things/t1`, own));
    expect(same.status).toBe(200);
    expect(same.text).toContain('"name":"thing"');
  });

  it("refuses every absolute-form target naming another host (property)", async () => {
    const own = `127.0.0.1:${server.port}`;
    await fc.assert(
      fc.asyncProperty(fc.webUrl({ withQueryParameters: true, withFragments: false }), async (url) => {
        fc.pre(new URL(url).host !== own && !/\s/.test(url));
        const reply = await sendRaw(server.url, raw(`GET ${url}`, own));
        expect(reply.status, url).toBe(403);
      }),
      { numRuns: 40 },
    );
  });

  it("answers CONNECT, asterisk-form and path-less targets without reaching a route", async () => {
    const own = `127.0.0.1:${server.port}`;
    for (const line of ["CONNECT evil.example:443", `CONNECT ${own}`]) {
      const reply = await sendRaw(server.url, raw(line, own));
      expect(reply.status, line).toBe(405);
      expect(reply.text).toContain('"code":"method_not_allowed"');
    }
    for (const line of [
      "OPTIONS *",
      "GET *",
      "GET things/t1",
      "GET evil.example/things/t1",
      "GET evil.example:443",
      "GET mailto:a@evil.example",
    ]) {
      const reply = await sendRaw(server.url, raw(line, own));
      expect(reply.status, line).toBeGreaterThanOrEqual(400);
      expect(reply.status, line).toBeLessThan(500);
      expect(reply.text).not.toContain("thing");
    }
    expect(logs.some((r) => r.method === "CONNECT" && r.status === 405)).toBe(true);
    // Still serving: the refusals closed only their own connections.
    expect((await send(server.url, "/things/t1", { headers: auth })).status).toBe(200);
  });

  it("answers a CORS preflight from a listed origin, and marks its responses; others get no CORS headers", async () => {
    const preflight = await send(server.url, "/things", {
      method: "OPTIONS",
      headers: {
        origin: LISTED,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe(LISTED);
    expect(preflight.headers["access-control-allow-headers"]).toContain("authorization");
    expect(preflight.headers["access-control-allow-methods"]).toContain("POST");
    const listed = await send(server.url, "/things/t1", { headers: { ...auth, origin: LISTED } });
    expect(listed.headers["access-control-allow-origin"]).toBe(LISTED);
    const own = await send(server.url, "/things/t1", {
      headers: { ...auth, origin: `http://localhost:${server.port}` },
    });
    expect(own.headers["access-control-allow-origin"]).toBeUndefined();
    const foreign = await send(server.url, "/things", {
      method: "OPTIONS",
      headers: { origin: "https://other.example", "access-control-request-method": "POST" },
    });
    expect(foreign.status).toBe(403);
  });

  it("creates from a valid JSON body", async () => {
    const reply = await send(server.url, "/things", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ name: "a", count: 2 }),
    });
    expect(reply.status).toBe(201);
    expect(reply.json).toEqual({ id: "t1", name: "a", count: 2 });
  });

  it("refuses a body over the limit with 413, whether its length is declared or not", async () => {
    const body = JSON.stringify({ name: "x".repeat(256 * 1024), count: 1 });
    for (const chunked of [false, true]) {
      const reply = await send(server.url, "/things", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body,
        chunked,
      });
      expect(reply.status).toBe(413);
      expect(reply.json).toMatchObject({ error: { code: "payload_too_large" } });
    }
    // The connection was closed, not poisoned: the next request works.
    expect((await send(server.url, "/things/t1", { headers: auth })).status).toBe(200);
  });

  it("refuses a body that is not JSON with 415", async () => {
    for (const type of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
    ]) {
      const reply = await send(server.url, "/things", {
        method: "POST",
        headers: { ...auth, "content-type": type },
        body: '{"name":"a","count":1}',
      });
      expect(reply.status).toBe(415);
      expect(reply.json).toMatchObject({
        error: { code: "unsupported_media_type", hint: expect.stringContaining("application/json") },
      });
    }
  });

  it("says where a body is wrong: malformed JSON, missing, mistyped and unknown fields", async () => {
    const post = (body: string) =>
      send(server.url, "/things", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body,
      });
    const malformed = await post('{"name": "a",');
    expect(malformed.status).toBe(400);
    expect(malformed.json).toMatchObject({
      error: { code: "invalid_request", message: "The request body is not valid JSON." },
    });
    const invalid = await post(JSON.stringify({ count: -1, extra: true }));
    expect(invalid.status).toBe(400);
    const problems = (invalid.json as { error: { problems: Array<{ path: string }> } }).error.problems;
    expect(problems.map((p) => p.path).sort()).toEqual(["/count", "/extra", "/name"]);
    const empty = await post("");
    expect(empty.status).toBe(400);
  });

  it("answers any JSON body with 201 or a 400 that lists problems, never a failure of its own (property)", async () => {
    const body = fc.oneof(
      fc.jsonValue(),
      fc.record({ name: fc.jsonValue(), count: fc.jsonValue() }, { requiredKeys: [] }),
      fc.dictionary(fc.string(), fc.jsonValue()),
    );
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        const reply = await send(server.url, "/things", {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify(value),
        });
        const text = JSON.stringify(value);
        if (Buffer.byteLength(text) > 1024) expect(reply.status).toBe(413);
        else if (reply.status !== 201) {
          expect(reply.status).toBe(400);
          expect(reply.json).toMatchObject({
            error: { code: "invalid_request", problems: expect.any(Array) },
          });
        }
      }),
      { numRuns: 80 },
    );
  });

  it("checks path and query parameters against their schemas", async () => {
    const badId = await send(server.url, "/things/nope", { headers: auth });
    expect(badId.status).toBe(400);
    expect(badId.json).toMatchObject({ error: { code: "invalid_request", problems: [{ path: "/id" }] } });
    const badQuery = await send(server.url, "/things/t1?verbose=maybe", { headers: auth });
    expect(badQuery.status).toBe(400);
    const badEncoding = await send(server.url, "/things/%E0%A4%A", { headers: auth });
    expect(badEncoding.status).toBe(400);
  });

  it("answers 404 for an unknown route and 405 with Allow for a known path and another method", async () => {
    const missing = await send(server.url, "/nothing", { headers: auth });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({
      error: { code: "not_found", hint: expect.stringContaining("/openapi.json") },
    });
    const wrongMethod = await send(server.url, "/things/t1", { method: "DELETE", headers: auth });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe("GET");
  });

  it("answers any request path with a 2xx or 4xx, never a failure of its own (property)", async () => {
    const segment = fc.oneof(
      fc.constantFrom("things", "t1", "..", ".", "", "%", "%2F", "%00", ":id", "openapi.json"),
      fc.string({ unit: "grapheme-ascii", maxLength: 12 }).map(encodeURIComponent),
      fc.string({ maxLength: 6 }).map((s) => encodeURIComponent(s).replaceAll("%2", "%")),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { minLength: 1, maxLength: 5 }),
        fc.constantFrom("GET", "POST", "DELETE"),
        async (parts, method) => {
          // Event streams answer 200 and stay open: not what this property is about.
          fc.pre(!parts.some((p) => p === "events" || p === "flood"));
          const reply = await send(server.url, `/${parts.join("/")}`, { method, headers: auth });
          expect(reply.status, `${method} /${parts.join("/")}`).toBeLessThan(500);
          if (reply.status >= 400) expect(reply.json).toMatchObject({ error: { code: expect.any(String) } });
        },
      ),
      { numRuns: 80 },
    );
  });

  it("turns a bug into a 500 with no stack and no secret; the log keeps the message, masked", async () => {
    const reply = await send(server.url, "/boom", { headers: auth });
    expect(reply.status).toBe(500);
    expect(reply.json).toEqual({
      error: {
        code: "internal_error",
        message: "The server failed on this request.",
        hint: expect.any(String),
      },
    });
    expect(reply.text).not.toContain(TEST_TOKEN);
    expect(reply.text).not.toContain("at ");
    const record = logs.find((r) => r.route === "/boom");
    expect(record).toMatchObject({ status: 500, error: "internal_error", level: "error" });
    expect(record?.detail).toContain("<secret>serve_token</secret>");
  });

  it("logs one record per request with method, route pattern, status and time, and never the token", async () => {
    await send(server.url, "/things/t42", { headers: auth });
    const record = logs.findLast((r) => r.route === "/things/:id" && r.status === 200);
    expect(record).toMatchObject({ msg: "http_request", method: "GET", route: "/things/:id", status: 200 });
    expect(record?.ms).toBeGreaterThanOrEqual(0);
    const all = JSON.stringify(logs);
    expect(all).not.toContain(TEST_TOKEN);
    expect(all).not.toContain("t42");
  });
});

describe("where the server may listen", () => {
  it("refuses a non-loopback host with a token it created itself, and names the fix", async () => {
    const created = { value: TEST_TOKEN, source: "home" as const, created: true };
    for (const host of ["0.0.0.0", "::", "192.0.2.10"]) {
      await expect(startHttpServer({ host, token: created, routes: [] })).rejects.toMatchObject({
        code: "usage_error",
        hint: expect.stringContaining("RESON_SERVE_TOKEN"),
      });
    }
  });

  it("listens on loopback with the token it created itself", async () => {
    const created = { value: TEST_TOKEN, source: "home" as const, created: true };
    const server = await startHttpServer({ token: created, routes: [] });
    try {
      const reply = await send(server.url, "/openapi.json", {
        headers: { authorization: `Bearer ${TEST_TOKEN}` },
      });
      expect(reply.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("listens on every interface with a configured token, and then checks Origin against the request's host", async () => {
    const server = await startHttpServer({ host: "0.0.0.0", token, routes: [] });
    try {
      const url = `http://127.0.0.1:${server.port}`;
      const host = `192.0.2.10:${server.port}`;
      expect((await send(url, "/healthz", { headers: { host, origin: `http://${host}` } })).status).toBe(200);
      expect((await send(url, "/healthz", { headers: { host, origin: "http://evil.example" } })).status).toBe(
        403,
      );
      expect((await send(url, "/openapi.json")).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it("refuses a --cors entry that is not an origin", async () => {
    for (const entry of ["*", "https://*.example.com", "https://app.example.com/path", "app.example.com"]) {
      await expect(startHttpServer({ token, routes: [], corsOrigins: [entry] })).rejects.toMatchObject({
        code: "usage_error",
      });
    }
  });
});
