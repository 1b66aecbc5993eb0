// A plain node:http client for the server tests: it can send what fetch refuses to (a forged
// Host header, a body with no length, a body the server stops reading) and read SSE frames.
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { connect } from "node:net";

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: unknown;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send the body in chunks without content-length (chunked transfer encoding). */
  chunked?: boolean;
}

/** Where to send `path` on `baseUrl`, taken as written ("//x" is a path here, not a host). */
function target(baseUrl: string, path: string) {
  const base = new URL(baseUrl);
  return { hostname: base.hostname.replace(/^\[|\]$/g, ""), port: base.port, path };
}

export function send(baseUrl: string, path: string, options: RequestOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { ...target(baseUrl, path), method: options.method ?? "GET", headers: options.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on("error", reject);
      },
    );
    // The server may answer (413) and close before the whole body is sent: the answer counts.
    req.on("error", reject);
    if (options.body === undefined) {
      req.end();
    } else if (options.chunked) {
      const body = Buffer.from(options.body);
      for (let at = 0; at < body.length; at += 16 * 1024) req.write(body.subarray(at, at + 16 * 1024));
      req.end();
    } else {
      req.end(options.body);
    }
  });
}

export interface ParsedFrame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comment?: string;
}

/** Splits SSE text into frames (blank-line separated), each field by name. */
export function parseFrames(text: string): ParsedFrame[] {
  return text
    .split("\n\n")
    .filter((block) => block !== "")
    .map((block) => {
      const frame: ParsedFrame = {};
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) frame.comment = line.slice(1).trim();
        else {
          const colon = line.indexOf(":");
          const name = line.slice(0, colon) as keyof ParsedFrame;
          frame[name] = line.slice(colon + 1).replace(/^ /, "");
        }
      }
      return frame;
    });
}

/** An open event stream: the text so far, and a wait for text that matches. */
export interface OpenStream {
  response: IncomingMessage;
  text(): string;
  waitFor(predicate: (text: string) => boolean): Promise<string>;
  ended: Promise<void>;
  destroy(): void;
}

export function openStream(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ ...target(baseUrl, path), headers, agent: false }, (response) => {
      let text = "";
      const waiters: Array<{ predicate: (text: string) => boolean; resolve: (text: string) => void }> = [];
      const ended = new Promise<void>((done) => {
        response.on("end", done);
        response.on("close", done);
      });
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
        for (const waiter of [...waiters]) {
          if (waiter.predicate(text)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(text);
          }
        }
      });
      response.on("error", () => {});
      resolve({
        response,
        text: () => text,
        waitFor: (predicate) =>
          predicate(text)
            ? Promise.resolve(text)
            : new Promise((done) => waiters.push({ predicate, resolve: done })),
        ended,
        destroy: () => req.destroy(),
      });
    });
    req.on("error", reject);
    req.end();
  });
}

export interface RawReply {
  /** The status code of the first response line, or 0 when the server closed without one. */
  status: number;
  text: string;
}

/**
 * Writes `request` as it is on a new TCP connection to `baseUrl`'s host and port, and reads
 * until the server closes it or `quietMs` pass without data (a kept-alive connection).
 */
export function sendRaw(baseUrl: string, request: string, quietMs = 500): Promise<RawReply> {
  const { hostname, port } = target(baseUrl, "/");
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let text = "";
    let quiet = setTimeout(() => socket.destroy(), quietMs);
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      text += chunk;
      clearTimeout(quiet);
      quiet = setTimeout(() => socket.destroy(), quietMs);
    });
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(quiet);
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0), text });
    });
  });
}
