// How the native wire's requests reach the server: one POST with a body, answered by a status,
// headers and a streamed body. Two implementations: http1-transport.ts, reson's own for plain
// http:// servers, and node-transport.ts, node:https (or node:http) for the rest.

export interface TransportHandlers {
  /** The response's status and headers (by lower-case name, repeated ones joined). */
  response(status: number, header: (name: string) => string | null): void;
  data(chunk: Buffer): void;
  /** The body has ended, whole. */
  end(): void;
  /**
   * The connection failed. Before a response: `error` as the socket gave it (ECONNRESET,
   * ECONNREFUSED, "socket hang up"…). After one: the body was cut short.
   */
  error(error: Error, responded: boolean): void;
}

export interface Exchange {
  /** Whether the request went out on a connection opened before it (kept alive or preconnected). */
  readonly earlier: boolean;
  /** Stops the exchange and closes its connection; no handler is called after it. */
  abort(): void;
}

export interface Transport {
  /** Sends the request; the handlers are called from the next tick on, never after `abort`. */
  send(
    headers: Readonly<Record<string, string>>,
    body: readonly Buffer[],
    handlers: TransportHandlers,
  ): Exchange;
  /** Opens the next request's connection now, unless one is open or opening. */
  preconnect(): void;
}
