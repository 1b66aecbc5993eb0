// reson's own HTTP/1.1 client against servers that answer with raw bytes: what the request
// looks like on the wire, a connection kept for the next request only when the response says
// so and ended cleanly, and every way a connection can fail reported as node:http would.
import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { http1Transport } from "../../src/providers/openai-wire/http1-transport.js";
import type { TransportHandlers } from "../../src/providers/openai-wire/transport.js";

interface RawServer {
  url: URL;
  connections: number;
  requests: string[];
  close(): Promise<void>;
}

const servers: Server[] = [];
const open = new Set<Socket>();
afterEach(async () => {
  // The client keeps its connections while idle: the server side ends them.
  for (const socket of open) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A server that reads each request whole (head and Content-Length body), then answers `reply`. */
async function rawServer(reply: (request: string, socket: Socket, nth: number) => void): Promise<RawServer> {
  const state = { connections: 0, requests: [] as string[] };
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    open.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      open.delete(socket);
    });
    let buffer = "";
    let nth = 0;
    socket.on("data", (chunk) => {
      buffer += chunk.toString("latin1");
      for (;;) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        const request = buffer.slice(0, end + 4 + length);
        buffer = buffer.slice(request.length);
        state.requests.push(request);
        reply(request, socket, ++nth);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: new URL(`http://127.0.0.1:${port}/v1/chat/completions?x=1`),
    get connections() {
      return state.connections;
    },
    requests: state.requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

interface Outcome {
  status?: number;
  type?: string | null;
  body: string;
  ended: boolean;
  error?: { message: string; code?: string; responded: boolean };
}

function exchange(transport: ReturnType<typeof http1Transport>, body = '{"stream":true}') {
  const outcome: Outcome = { body: "", ended: false };
  let settle: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const handlers: TransportHandlers = {
    response: (status, header) => {
      outcome.status = status;
      outcome.type = header("content-type");
    },
    data: (chunk) => {
      outcome.body += chunk.toString("utf8");
    },
    end: () => {
      outcome.ended = true;
      settle();
    },
    error: (error, responded) => {
      outcome.error = { message: error.message, code: (error as NodeJS.ErrnoException).code, responded };
      settle();
    },
  };
  const bytes = Buffer.from(body);
  const sent = transport.send(
    { "content-type": "application/json", "content-length": String(bytes.length) },
    [bytes.subarray(0, 3), bytes.subarray(3)],
    handlers,
  );
  return { sent, outcome, done };
}

const OK =
  "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";

describe("the HTTP/1.1 transport", () => {
  it("sends one well-formed request and reads the answer; a second request reuses the connection", async () => {
    const server = await rawServer((_request, socket) => socket.write(OK));
    const transport = http1Transport(server.url, 4_000);
    const first = exchange(transport);
    await first.done;
    expect(first.outcome).toEqual({ status: 200, type: "text/event-stream", body: "hello", ended: true });
    expect(first.sent.earlier).toBe(false);
    expect(server.requests[0]).toBe(
      `POST /v1/chat/completions?x=1 HTTP/1.1\r\nhost: ${server.url.host}\r\nconnection: keep-alive\r\n` +
        'content-type: application/json\r\ncontent-length: 15\r\n\r\n{"stream":true}',
    );
    const second = exchange(transport);
    await second.done;
    expect(second.outcome.body).toBe("hello");
    expect(second.sent.earlier).toBe(true);
    expect(server.connections).toBe(1);
  });

  it("opens a new connection after a response that says close, or that had bytes after it", async () => {
    const server = await rawServer((_request, socket, nth) => {
      if (nth === 1) socket.write("HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok");
      else socket.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokEXTRA");
    });
    const transport = http1Transport(server.url, 4_000);
    for (let i = 0; i < 3; i++) {
      const call = exchange(transport);
      await call.done;
      expect(call.outcome).toMatchObject({ status: 200, body: "ok", ended: true });
      expect(call.sent.earlier).toBe(false);
    }
    expect(server.connections).toBe(3);
  });

  it("reads a body that ends with the connection", async () => {
    const server = await rawServer((_request, socket) =>
      socket.end("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: [DONE]\n\n"),
    );
    const call = exchange(http1Transport(server.url, 4_000));
    await call.done;
    expect(call.outcome).toEqual({
      status: 200,
      type: "text/event-stream",
      body: "data: [DONE]\n\n",
      ended: true,
    });
  });

  it("reports a body cut short, a connection closed before any answer, and a refused one", async () => {
    const cut = await rawServer((_request, socket) =>
      socket.end("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly part"),
    );
    const partial = exchange(http1Transport(cut.url, 4_000));
    await partial.done;
    expect(partial.outcome).toMatchObject({
      body: "only part",
      ended: false,
      error: { message: "terminated", responded: true },
    });

    const hangUp = await rawServer((_request, socket) => socket.destroy());
    const none = exchange(http1Transport(hangUp.url, 4_000));
    await none.done;
    expect(none.outcome.error).toMatchObject({ responded: false });
    expect(["socket hang up", "read ECONNRESET"]).toContain(none.outcome.error?.message);

    const port = cut.url.port;
    await new Promise((resolve) => servers.shift()!.close(resolve));
    const refused = exchange(http1Transport(new URL(`http://127.0.0.1:${port}/v1`), 4_000));
    await refused.done;
    expect(refused.outcome.error).toMatchObject({ code: "ECONNREFUSED", responded: false });
  });

  it("reports an answer that is not HTTP as an error, and a kept connection the server closed as a hang-up on an earlier connection", async () => {
    const garbage = await rawServer((_request, socket) => socket.write("SSH-2.0-OpenSSH_9.6\r\n\r\n"));
    const bad = exchange(http1Transport(garbage.url, 4_000));
    await bad.done;
    expect(bad.outcome.error?.message).toMatch(/not an HTTP\/1.x status line/);

    const server = await rawServer((_request, socket, nth) => {
      socket.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
      // Closed while idle, after the answer: the next request finds it closed.
      if (nth === 1) setTimeout(() => socket.destroy(), 20);
    });
    const transport = http1Transport(server.url, 4_000);
    await exchange(transport).done;
    await new Promise((resolve) => setTimeout(resolve, 60));
    const again = exchange(transport);
    await again.done;
    // Seen closed before it was taken: a new connection, nothing to resend.
    expect(again.outcome).toMatchObject({ body: "ok", ended: true });
    expect(server.connections).toBe(2);
  });

  it("uses the connection it opened ahead of the first request, and calls nothing after an abort", async () => {
    let answer: Socket | undefined;
    const server = await rawServer((_request, socket) => {
      answer = socket;
      socket.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n");
    });
    const transport = http1Transport(server.url, 4_000);
    transport.preconnect();
    transport.preconnect(); // one is open already: no second
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(server.connections).toBe(1);
    const call = exchange(transport);
    expect(call.sent.earlier).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(call.outcome.body).toBe("hello");
    call.sent.abort();
    answer?.write("5\r\nworld\r\n0\r\n\r\n");
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(call.outcome).toEqual({ status: 200, type: null, body: "hello", ended: false });
    expect(server.connections).toBe(1);
  });
});
