// A keep-alive agent that can open the connection of its next request ahead of it: a run
// asks for it when it starts (Provider.preconnect), so the TCP connect (and the TLS handshake
// of an https:// server) happens while the run is still writing its records and building
// the prompt, not after the request is ready. The socket is made by the agent's own
// createConnection with the options a request would give it, and handed to the first request
// to the same host. One left unused is closed after a while; one that failed or was closed
// by the server meanwhile is not used.
import type http from "node:http";
import type net from "node:net";

/** An unused preconnected socket is closed after this long. */
const UNUSED_MS = 10_000;

interface Preconnected {
  name: string;
  socket: net.Socket;
  timer: NodeJS.Timeout;
}

export interface PreconnectAgent extends http.Agent {
  /** Opens a connection for a request with these options, unless one is open or opening. */
  preconnect(options: http.RequestOptions): void;
  /** Whether `socket` is one this agent opened ahead of its request. */
  preconnected(socket: net.Socket | null | undefined): boolean;
}

type AgentClass = typeof http.Agent;
// What Agent#createSocket gives createConnection: the request's options with the agent's.
type ConnectionOptions = http.RequestOptions & Record<string, unknown>;

/** A keep-alive agent of `Base` (node:http's or node:https's Agent) that can preconnect. */
export function preconnectAgent(
  Base: AgentClass,
  options: http.AgentOptions,
  secure: boolean,
): PreconnectAgent {
  class Agent extends Base implements PreconnectAgent {
    #ahead: Preconnected | undefined;
    readonly #opened = new WeakSet<net.Socket>();

    preconnect(request: http.RequestOptions): void {
      if (this.#ahead && !this.#ahead.socket.destroyed) return;
      const connection = this.#connectionOptions(request);
      const name = this.getName(connection);
      if ((this.freeSockets[name]?.length ?? 0) > 0) return; // a kept-alive one is there
      const socket = this.#create(connection);
      // Nobody reads it yet: a refused or reset connection is not an error until a request
      // would have used it, and then the request makes its own.
      socket.on("error", () => {});
      socket.unref();
      const timer = setTimeout(() => {
        if (this.#ahead?.socket === socket) this.#ahead = undefined;
        socket.destroy();
      }, UNUSED_MS);
      timer.unref();
      this.#ahead = { name, socket, timer };
      this.#opened.add(socket);
    }

    preconnected(socket: net.Socket | null | undefined): boolean {
      return socket ? this.#opened.has(socket) : false;
    }

    // Called by Agent#createSocket for a request that found no free socket.
    override createConnection(connection: ConnectionOptions, callback?: unknown): net.Socket {
      const ahead = this.#ahead;
      this.#ahead = undefined;
      if (ahead) {
        clearTimeout(ahead.timer);
        const usable =
          ahead.name === this.getName(connection) && !ahead.socket.destroyed && !ahead.socket.readableEnded;
        if (usable) return ahead.socket.ref();
        ahead.socket.destroy();
      }
      return this.#create(connection, callback);
    }

    override destroy(): void {
      if (this.#ahead) {
        clearTimeout(this.#ahead.timer);
        this.#ahead.socket.destroy();
        this.#ahead = undefined;
      }
      super.destroy();
    }

    #create(connection: ConnectionOptions, callback?: unknown): net.Socket {
      // Both node:http's (net.createConnection) and node:https's take (options, callback).
      const create = Base.prototype.createConnection as unknown as (
        this: http.Agent,
        options: ConnectionOptions,
        callback?: unknown,
      ) => net.Socket;
      return create.call(this, connection, callback);
    }

    /** The options Agent#createSocket would pass for `request` (Node's _http_agent.js). */
    #connectionOptions(request: http.RequestOptions): ConnectionOptions {
      const connection: ConnectionOptions = {
        ...request,
        ...options,
        // The request's path is its URL's; to the socket, `path` is a Unix socket's.
        path: request.socketPath ?? null,
        host: request.hostname ?? request.host ?? "localhost",
      };
      if (secure && !connection.servername && !isIpAddress(String(connection.host))) {
        connection.servername = String(connection.host);
      }
      connection._agentKey = this.getName(connection);
      connection.encoding = null;
      if (options.keepAlive) {
        connection.keepAlive = true;
        connection.keepAliveInitialDelay = options.keepAliveMsecs ?? 1000;
      }
      return connection;
    }
  }
  return new Agent(options);
}

function isIpAddress(host: string): boolean {
  return process.getBuiltinModule("node:net").isIP(host) !== 0;
}
