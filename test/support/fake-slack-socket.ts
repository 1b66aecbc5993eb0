// A fake Slack Socket Mode server for tests (ws on 127.0.0.1): what apps.connections.open on the
// fake Web API hands out. Each connection gets `hello`; envelopes (events_api, interactive) go to
// the newest open connection and stay unacknowledged until the client sends back their
// envelope_id; on a new connection the unacknowledged ones are sent again with retry_attempt + 1,
// as Slack does. It can ask the client to reconnect (a `disconnect` message) or drop the socket.
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";

export interface SocketEnvelope {
  envelope_id: string;
  type: "events_api" | "interactive";
  payload: unknown;
  retry_attempt: number;
  retry_reason: string;
  accepts_response_payload: boolean;
}

export interface FakeSlackSocket {
  /** The ws:// URL apps.connections.open returns. */
  readonly url: string;
  /** Connections opened so far (each got `hello`). */
  readonly connections: number;
  /** Envelope ids the client acknowledged, in order (a redelivered one may appear twice). */
  readonly acks: string[];
  /** Sends an envelope; resolves with its id once the client acknowledged it. */
  deliver(type: SocketEnvelope["type"], payload: unknown): Promise<string>;
  /** The next `count` acks are lost on the way (the envelope stays unacknowledged). */
  loseAcks(count: number): void;
  /** Sends an envelope without waiting for its ack. */
  send(type: SocketEnvelope["type"], payload: unknown): string;
  /** Asks the connected client to reconnect (Slack's `disconnect` message). */
  askToReconnect(): void;
  /** Drops every open socket without a close handshake. */
  dropConnections(): void;
  waitForConnections(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeSlackSocket(): Promise<FakeSlackSocket> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/link/?ticket=fake`;
  const open = new Set<WebSocket>();
  const unacked = new Map<string, SocketEnvelope>();
  const ackWaiters = new Map<string, () => void>();
  const connectionWaiters = new Set<() => void>();
  const acks: string[] = [];
  let connections = 0;
  let nextId = 0;
  let newest: WebSocket | undefined;
  let losing = 0;

  const transmit = (envelope: SocketEnvelope) => {
    if (newest && newest.readyState === newest.OPEN) newest.send(JSON.stringify(envelope));
  };

  server.on("connection", (socket) => {
    connections++;
    open.add(socket);
    newest = socket;
    socket.on("close", () => {
      open.delete(socket);
      if (newest === socket) newest = [...open].at(-1);
    });
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as { envelope_id?: string };
      if (!message.envelope_id) return;
      if (losing > 0) {
        losing--;
        return;
      }
      acks.push(message.envelope_id);
      unacked.delete(message.envelope_id);
      ackWaiters.get(message.envelope_id)?.();
    });
    socket.send(
      JSON.stringify({
        type: "hello",
        num_connections: open.size,
        connection_info: { app_id: "A1" },
        debug_info: { host: "fake" },
      }),
    );
    // What the last connection left unacknowledged comes again, marked as a retry.
    for (const envelope of unacked.values()) {
      envelope.retry_attempt++;
      envelope.retry_reason = "timeout";
      transmit(envelope);
    }
    for (const wake of connectionWaiters) wake();
  });

  const send = (type: SocketEnvelope["type"], payload: unknown) => {
    const envelope: SocketEnvelope = {
      envelope_id: `env-${++nextId}`,
      type,
      payload,
      retry_attempt: 0,
      retry_reason: "",
      accepts_response_payload: false,
    };
    unacked.set(envelope.envelope_id, envelope);
    transmit(envelope);
    return envelope.envelope_id;
  };

  return {
    url,
    get connections() {
      return connections;
    },
    acks,
    send,
    loseAcks(count) {
      losing = count;
    },
    deliver(type, payload) {
      const id = send(type, payload);
      return new Promise((resolve) => {
        if (!unacked.has(id)) return resolve(id);
        ackWaiters.set(id, () => {
          ackWaiters.delete(id);
          resolve(id);
        });
      });
    },
    askToReconnect() {
      newest?.send(JSON.stringify({ type: "disconnect", reason: "refresh_requested" }));
    },
    dropConnections() {
      for (const socket of open) socket.terminate();
    },
    waitForConnections(count, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (connections < count || !newest || newest.readyState !== newest.OPEN) return;
          cleanup();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`fewer than ${count} Socket Mode connections within ${timeoutMs} ms (${connections})`),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          connectionWaiters.delete(check);
        };
        connectionWaiters.add(check);
        check();
      });
    },
    async close() {
      for (const socket of open) socket.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
