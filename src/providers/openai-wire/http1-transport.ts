// reson's own HTTP/1.1 client for plain http:// model servers (Ollama, llama.cpp, vLLM, LM
// Studio on this machine or the network): kept-alive connections, one request at a time on
// each, and the next request's connection opened ahead when asked. A request is one write on
// a connected socket, its response read by http1-response.ts. node:http's first request costs
// a one-step run ~5 ms of its ~80 (its client, agent and message objects, compiled on first
// use); this costs a fraction of that, on every call. https:// stays with node:https
// (node-transport.ts), where the TLS handshake outweighs either.
import type net from "node:net";
import { HttpParseError, ResponseParser } from "./http1-response.js";
import type { Exchange, Transport, TransportHandlers } from "./transport.js";

/** An unused preconnected connection is closed after this long. */
const UNUSED_MS = 10_000;

interface Idle {
  socket: net.Socket;
  timer: NodeJS.Timeout;
}

export function http1Transport(target: URL, idleSocketMs: number): Transport {
  return new Http1Origin(target, idleSocketMs);
}

class Http1Origin implements Transport {
  readonly #host: string;
  readonly #port: number;
  readonly #head: string;
  readonly #idleMs: number;
  /** Kept-alive connections, the most recently used last. */
  readonly #idle: Idle[] = [];
  /** Opened ahead of the next request (connected or still connecting), with its unused timer. */
  #ahead: Idle | undefined;

  constructor(target: URL, idleSocketMs: number) {
    this.#host = target.hostname.replace(/^\[(.*)\]$/, "$1");
    this.#port = Number(target.port || 80);
    this.#idleMs = idleSocketMs;
    const auth = target.username
      ? `authorization: Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString("base64")}\r\n`
      : "";
    this.#head = `POST ${target.pathname}${target.search} HTTP/1.1\r\nhost: ${target.host}\r\nconnection: keep-alive\r\n${auth}`;
  }

  preconnect(): void {
    if (this.#ahead || this.#idle.length > 0) return;
    const socket = this.#connect();
    // Nobody reads it yet: a refused or reset connection is not an error until a request
    // would have used it, and then the request makes its own.
    socket.on("error", () => {});
    socket.once("close", () => {
      if (this.#ahead?.socket === socket) this.#forgetAhead();
    });
    socket.unref();
    const timer = setTimeout(() => socket.destroy(), UNUSED_MS);
    timer.unref();
    this.#ahead = { socket, timer };
  }

  send(
    headers: Readonly<Record<string, string>>,
    body: readonly Buffer[],
    handlers: TransportHandlers,
  ): Exchange {
    const reused = this.#takeConnection();
    const socket = reused ?? this.#connect();
    let head = this.#head;
    for (const [name, value] of Object.entries(headers)) {
      if (/[\r\n]/.test(name) || /[\r\n]/.test(value))
        throw new TypeError(`a header with a line break: ${name}`);
      head += `${name}: ${value}\r\n`;
    }
    return new Http1Exchange(
      socket,
      reused !== undefined,
      Buffer.from(`${head}\r\n`, "latin1"),
      body,
      handlers,
      (kept) => this.#release(kept),
    );
  }

  #connect(): net.Socket {
    const socket = process
      .getBuiltinModule("node:net")
      .connect({ host: this.#host, port: this.#port, noDelay: true });
    socket.setKeepAlive(true, 1000);
    return socket;
  }

  /** A kept-alive or preconnected connection that still looks open, else none. */
  #takeConnection(): net.Socket | undefined {
    for (let idle = this.#idle.pop(); idle; idle = this.#idle.pop()) {
      clearTimeout(idle.timer);
      if (usable(idle.socket)) return idle.socket;
      idle.socket.destroy();
    }
    const ahead = this.#ahead;
    if (!ahead) return undefined;
    this.#forgetAhead();
    if (usable(ahead.socket)) return ahead.socket;
    ahead.socket.destroy();
    return undefined;
  }

  #forgetAhead(): void {
    if (!this.#ahead) return;
    clearTimeout(this.#ahead.timer);
    this.#ahead.socket.removeAllListeners("error").removeAllListeners("close");
    this.#ahead = undefined;
  }

  /**
   * A connection whose response ended, kept for the next request. An idle connection must not
   * keep the process alive, and is closed after a while; once closed (by either side) it leaves
   * the list. Its late errors are swallowed by the exchange that released it.
   */
  #release(socket: net.Socket): void {
    socket.unref();
    const idle: Idle = { socket, timer: setTimeout(() => socket.destroy(), this.#idleMs) };
    idle.timer.unref();
    socket.once("close", () => {
      const at = this.#idle.indexOf(idle);
      if (at >= 0) this.#idle.splice(at, 1);
      clearTimeout(idle.timer);
    });
    this.#idle.push(idle);
  }
}

function usable(socket: net.Socket): boolean {
  return !socket.destroyed && !socket.readableEnded && socket.writable;
}

class Http1Exchange implements Exchange {
  readonly #socket: net.Socket;
  readonly #handlers: TransportHandlers;
  readonly #parser: ResponseParser;
  readonly #release: (socket: net.Socket) => void;
  #keepAlive = false;
  #stopped = false;

  constructor(
    socket: net.Socket,
    readonly earlier: boolean,
    head: Buffer,
    body: readonly Buffer[],
    handlers: TransportHandlers,
    release: (socket: net.Socket) => void,
  ) {
    this.#socket = socket;
    this.#handlers = handlers;
    this.#release = release;
    this.#parser = new ResponseParser({
      head: (response) => {
        this.#keepAlive = response.keepAlive;
        if (!this.#stopped)
          this.#handlers.response(response.status, (name) => response.headers.get(name) ?? null);
      },
      data: (chunk) => {
        if (!this.#stopped) this.#handlers.data(chunk);
      },
    });
    socket.removeAllListeners("error").removeAllListeners("close");
    socket.ref();
    socket.on("data", this.#onData);
    socket.on("error", this.#onError);
    socket.on("close", this.#onClose);
    // One write: head and body go out in as few packets as the socket allows.
    socket.cork();
    socket.write(head);
    for (const part of body) socket.write(part);
    process.nextTick(() => socket.uncork());
  }

  abort(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#detach();
    this.#socket.destroy();
  }

  readonly #onData = (chunk: Buffer): void => {
    if (this.#stopped) return;
    let used: number;
    try {
      used = this.#parser.push(chunk);
    } catch (error) {
      if (!(error instanceof HttpParseError)) throw error;
      this.#fail(error);
      return;
    }
    // Bytes after the response are no answer to anything: the connection is not kept.
    if (this.#parser.done && !this.#stopped) this.#ended(this.#keepAlive && used === chunk.length);
  };

  readonly #onError = (error: Error): void => {
    this.#fail(error);
  };

  readonly #onClose = (): void => {
    if (this.#stopped) return;
    if (this.#parser.close()) {
      this.#ended(false); // a body that ends with the connection
      return;
    }
    // Closed before a whole response: like node:http, "socket hang up" before one arrived.
    const error = this.#parser.responded
      ? new Error("terminated")
      : Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    this.#fail(error);
  };

  #ended(keep: boolean): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#detach();
    const socket = this.#socket;
    if (keep && usable(socket)) this.#release(socket);
    else socket.destroy();
    this.#handlers.end();
  }

  #fail(error: Error): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#detach();
    this.#socket.destroy();
    this.#handlers.error(error, this.#parser.responded);
  }

  #detach(): void {
    this.#socket.off("data", this.#onData);
    this.#socket.off("error", this.#onError);
    this.#socket.off("close", this.#onClose);
    // A late error of a closed connection is nobody's.
    this.#socket.on("error", () => {});
  }
}
