// Reading an HTTP/1.1 response as its bytes arrive: every framing a model server uses, the same
// result however the bytes are cut, interim responses skipped, and a clear error for what is
// not HTTP.
import { describe, expect, it } from "vitest";
import {
  HttpParseError,
  type ResponseHead,
  ResponseParser,
} from "../../src/providers/openai-wire/http1-response.js";

interface Read {
  head?: ResponseHead;
  body: string;
  ended: boolean;
  used: number[];
}

/** Feeds `pieces` in turn; what the parser reported, and whether it saw the response end. */
function read(pieces: readonly (string | Buffer)[]): Read {
  const out: Read = { body: "", ended: false, used: [] };
  const parser = new ResponseParser({
    head: (head) => {
      out.head = head;
    },
    data: (chunk) => {
      out.body += chunk.toString("latin1");
    },
  });
  for (const piece of pieces) out.used.push(parser.push(Buffer.from(piece)));
  out.ended = parser.done;
  return out;
}

/** Every way to cut `text` in two, and byte by byte. */
function cuts(text: string): string[][] {
  const ways = [[text], [...text]];
  for (let i = 1; i < text.length; i++) ways.push([text.slice(0, i), text.slice(i)]);
  return ways;
}

const SSE =
  "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
  'f\r\ndata: {"a":1}\n\n\r\n' +
  "10;name=value\r\ndata: [DONE]\n\n..\r\n" +
  "0\r\nX-Trailer: yes\r\n\r\n";

describe("ResponseParser", () => {
  it("reads a chunked body however the bytes are cut, extensions and trailers included", () => {
    for (const pieces of cuts(SSE)) {
      const out = read(pieces);
      expect(out.head?.status).toBe(200);
      expect(out.head?.headers.get("content-type")).toBe("text/event-stream");
      expect(out.head?.keepAlive).toBe(true);
      expect(out.body).toBe('data: {"a":1}\n\ndata: [DONE]\n\n..');
      expect(out.ended).toBe(true);
    }
  });

  it("reads a body of a Content-Length, and says how much of the bytes were its own", () => {
    const response =
      'HTTP/1.1 429 Too Many Requests\r\ncontent-length: 11\r\nretry-after: 2\r\n\r\n{"e":"slow"}';
    for (const pieces of cuts(response)) {
      const out = read(pieces);
      expect(out.head?.status).toBe(429);
      expect(out.head?.headers.get("retry-after")).toBe("2");
      expect(out.body).toBe('{"e":"slow"');
      expect(out.ended).toBe(true);
    }
    // The last byte is not this response's: whoever reads the connection must know.
    expect(read([response]).used).toEqual([response.length - 1]);
  });

  it("skips interim responses and joins a header sent twice", () => {
    const out = read([
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n",
      "HTTP/1.1 200 OK\r\nVary: a\r\nvary: b\r\nContent-Length: 2\r\n\r\nok",
    ]);
    expect(out.head?.status).toBe(200);
    expect(out.head?.headers.get("vary")).toBe("a, b");
    expect(out.body).toBe("ok");
    expect(out.ended).toBe(true);
  });

  it("ends a body without framing at the close, and never keeps that connection", () => {
    let body = "";
    let keepAlive: boolean | undefined;
    const parser = new ResponseParser({
      head: (head) => {
        keepAlive = head.keepAlive;
      },
      data: (chunk) => {
        body += chunk;
      },
    });
    parser.push(Buffer.from("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: x\n\n"));
    expect(parser.done).toBe(false);
    expect(parser.close()).toBe(true);
    expect({ ended: parser.done, body, keepAlive }).toEqual({
      ended: true,
      body: "data: x\n\n",
      keepAlive: false,
    });
  });

  it("knows when a connection stays open: HTTP/1.1 unless it says close, HTTP/1.0 only if asked", () => {
    const keep = (head: string) => read([`${head}\r\nContent-Length: 0\r\n\r\n`]).head?.keepAlive;
    expect(keep("HTTP/1.1 200 OK")).toBe(true);
    expect(keep("HTTP/1.1 200 OK\r\nConnection: close")).toBe(false);
    expect(keep("HTTP/1.0 200 OK")).toBe(false);
    expect(keep("HTTP/1.0 200 OK\r\nConnection: keep-alive")).toBe(true);
  });

  it("has no body for 204 and 304", () => {
    expect(read(["HTTP/1.1 204 No Content\r\n\r\n"]).ended).toBe(true);
    expect(read(["HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n"]).ended).toBe(true);
  });

  it("refuses what is not HTTP/1.x, or framed in a way it cannot trust", () => {
    const refused = (text: string) => () => read([text]);
    expect(refused("SSH-2.0-OpenSSH\r\n\r\n")).toThrow(HttpParseError);
    expect(refused("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n")).toThrow(/malformed header/);
    expect(refused("HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n")).toThrow(/Content-Length/);
    expect(refused("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n")).toThrow(/Content-Length/);
    expect(refused("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n")).toThrow(/transfer coding/);
    expect(refused("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")).toThrow(/chunk size/);
    expect(refused("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n")).toThrow(/longer/);
    expect(refused(`HTTP/1.1 200 OK\r\nX: ${"a".repeat(70_000)}\r\n\r\n`)).toThrow(/over 65536 bytes/);
  });
});
