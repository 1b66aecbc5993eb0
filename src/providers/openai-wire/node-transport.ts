// The native wire's requests through node:https (or node:http): a keep-alive agent per
// provider that can open its next connection ahead (preconnect-agent.ts). Used for https://
// servers, where the TLS handshake outweighs what node:http costs.
import type http from "node:http";
import { type PreconnectAgent, preconnectAgent } from "./preconnect-agent.js";
import type { Exchange, Transport, TransportHandlers } from "./transport.js";

/** What node:http and node:https share, as far as this transport uses them. */
interface NodeHttp {
  request: typeof http.request;
  Agent: typeof http.Agent;
}

/**
 * node:http or node:https, loaded only now, as CommonJS modules: `import("node:http")` builds
 * an ES module facade that reads every export, and node:http's WebSocket export loads undici
 * with tls, http2 and zlib (~20 ms).
 */
export function nodeTransport(target: URL, idleSocketMs: number): Transport {
  const secure = target.protocol === "https:";
  const module: NodeHttp = secure
    ? process.getBuiltinModule("node:https")
    : process.getBuiltinModule("node:http");
  const agent = preconnectAgent(module.Agent, { keepAlive: true, timeout: idleSocketMs }, secure);
  const options: http.RequestOptions = {
    protocol: target.protocol,
    hostname: target.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: target.port || (secure ? 443 : 80),
    path: `${target.pathname}${target.search}`,
    method: "POST",
    agent,
    // The watchdog owns the deadlines; 0 stops the idle-socket timeout applying mid-request.
    timeout: 0,
    ...(target.username
      ? { auth: `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}` }
      : {}),
  };
  return {
    send: (headers, body, handlers) => send(module, agent, { ...options, headers }, body, handlers),
    preconnect: () => agent.preconnect(options),
  };
}

function send(
  module: NodeHttp,
  agent: PreconnectAgent,
  options: http.RequestOptions,
  body: readonly Buffer[],
  handlers: TransportHandlers,
): Exchange {
  let stopped = false;
  let responded = false;
  const request = module.request(options);
  request.on("error", (error) => {
    if (!stopped) handlers.error(error, responded);
  });
  request.on("response", (response) => {
    if (stopped) {
      response.resume();
      return;
    }
    responded = true;
    response.on("error", (error) => {
      if (!stopped) handlers.error(error, true);
    });
    response.on("close", () => {
      if (!stopped && !response.complete) handlers.error(new Error("terminated"), true);
    });
    response.on("data", (chunk: Buffer) => {
      if (!stopped) handlers.data(chunk);
    });
    response.on("end", () => {
      if (!stopped) handlers.end();
    });
    handlers.response(response.statusCode ?? 0, (name) => headerValue(response.headers[name]));
  });
  const last = body.length - 1;
  for (let i = 0; i < last; i++) request.write(body[i]);
  request.end(body[last]);
  return {
    get earlier() {
      return request.reusedSocket || agent.preconnected(request.socket);
    },
    abort() {
      stopped = true;
      request.destroy();
    },
  };
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(", ") : value;
}
