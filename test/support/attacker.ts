// The attacker of the injection suite: an HTTP server on a loopback address that serves what a
// fooled model is told to read (a page with instructions, a redirect, a form) and records every
// request that reaches it, so a test judges an attack by what arrived, not by what the model
// was told. Two servers on different loopback addresses (127.0.0.1 and 127.0.0.2) are two hosts
// for domain rules: "the site the user allowed" and "somewhere else".
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** What the server answers on a path: a page, a redirect, or a handler of its own. */
export type Route =
  | { html: string; status?: number }
  | { text: string; status?: number; contentType?: string }
  | { redirect: string; status?: 301 | 302 | 303 | 307 | 308 }
  | ((request: ReceivedRequest, response: ServerResponse) => void);

export interface Attacker {
  /** `http://127.0.0.x:port`, without a trailing slash. */
  readonly origin: string;
  readonly host: string;
  readonly port: number;
  /** Every request that reached it, in order. */
  readonly received: ReceivedRequest[];
  /** Sets (or replaces) what a path answers; unknown paths answer 404 (and are recorded). */
  route(path: string, route: Route): void;
  /** Whether any request carried `needle` in its URL, headers or body (also URL-decoded). */
  sawText(needle: string): boolean;
  close(): Promise<void>;
}

function serve(route: Route | undefined, request: ReceivedRequest, response: ServerResponse): void {
  if (!route) {
    response.writeHead(404, { "content-type": "text/plain" });
    response.end("not found");
    return;
  }
  if (typeof route === "function") {
    route(request, response);
    return;
  }
  if ("redirect" in route) {
    response.writeHead(route.status ?? 302, { location: route.redirect });
    response.end();
    return;
  }
  if ("html" in route) {
    response.writeHead(route.status ?? 200, { "content-type": "text/html; charset=utf-8" });
    response.end(route.html);
    return;
  }
  response.writeHead(route.status ?? 200, {
    "content-type": route.contentType ?? "text/plain; charset=utf-8",
  });
  response.end(route.text);
}

/** Starts an attacker on `host` (a loopback address; 127.0.0.2 makes a second host). */
export async function startAttacker(host = "127.0.0.1"): Promise<Attacker> {
  const routes = new Map<string, Route>();
  const received: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      const request: ReceivedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body,
      };
      received.push(request);
      const path = new URL(request.url, "http://x").pathname;
      serve(routes.get(path), request, res);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host}:${port}`;
  return {
    origin,
    host,
    port,
    received,
    route: (path, route) => {
      routes.set(path, route);
    },
    sawText(needle) {
      return received.some((request) => {
        const text = `${request.url}\n${JSON.stringify(request.headers)}\n${request.body}`;
        let decoded = text;
        try {
          decoded = decodeURIComponent(text.replaceAll("+", " "));
        } catch {}
        return text.includes(needle) || decoded.includes(needle);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
