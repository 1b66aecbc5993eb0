// Live text between processes: what the step in flight of a run says and thinks, relayed by
// the process executing the run to the processes that stream it (a `reson serve` in front of
// workers). On PostgreSQL a NOTIFY on a channel of its own, so only its listeners receive it;
// never stored and never fenced (a delta nobody hears is gone: the committed events carry what
// lasts). SQLite has no transport: nothing leaves the process.
import type { NoticeTransport } from "./driver.js";
import { payloadObject, safely } from "./notices.js";
import type { SqlValue } from "./records.js";
import type { LiveTextDelta, RunEventRepository } from "./service-types.js";

/** NOTIFY takes payloads under 8,000 bytes; the text of one stays well under, the ids aside. */
const MAX_PAYLOAD_BYTES = 7_000;
const MAX_PIECE_BYTES = 6_000;

interface Payload {
  /** The store that sent it: a process never hears its own. */
  o: string;
  t: string;
  s: number;
  b?: 1;
  x?: string;
  h?: string;
  e?: 1;
}

function encode(origin: string, delta: LiveTextDelta): string {
  const payload: Payload = {
    o: origin,
    t: delta.traceId,
    s: delta.step,
    ...(delta.stepStart ? { b: 1 } : {}),
    ...(delta.text ? { x: delta.text } : {}),
    ...(delta.thinking ? { h: delta.thinking } : {}),
    ...(delta.runEnd ? { e: 1 } : {}),
  };
  return JSON.stringify(payload);
}

function decode(payload: string): (LiveTextDelta & { origin: string }) | undefined {
  const value = payloadObject(payload) as Partial<Payload> | undefined;
  if (!value || typeof value.o !== "string" || typeof value.t !== "string" || typeof value.s !== "number")
    return undefined;
  return {
    origin: value.o,
    traceId: value.t,
    step: value.s,
    ...(value.b === 1 ? { stepStart: true } : {}),
    text: typeof value.x === "string" ? value.x : "",
    thinking: typeof value.h === "string" ? value.h : "",
    ...(value.e === 1 ? { runEnd: true } : {}),
  };
}

/** `text` in pieces of at most `maxBytes` once JSON-escaped, never splitting a character. */
function* pieces(text: string, maxBytes: number): Generator<string> {
  let piece = "";
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(JSON.stringify(char)) - 2;
    if (bytes + size > maxBytes && piece !== "") {
      yield piece;
      piece = "";
      bytes = 0;
    }
    piece += char;
    bytes += size;
  }
  if (piece !== "") yield piece;
}

/** The delta as notices NOTIFY accepts: itself, or cut in order, its start first and its end last. */
function split(origin: string, delta: LiveTextDelta): string[] {
  const whole = encode(origin, delta);
  if (Buffer.byteLength(whole) <= MAX_PAYLOAD_BYTES) return [whole];
  const base = { traceId: delta.traceId, step: delta.step };
  const parts: LiveTextDelta[] = [
    ...[...pieces(delta.thinking, MAX_PIECE_BYTES)].map((thinking) => ({ ...base, text: "", thinking })),
    ...[...pieces(delta.text, MAX_PIECE_BYTES)].map((text) => ({ ...base, text, thinking: "" })),
  ];
  if (delta.stepStart) parts[0] = { ...parts[0]!, stepStart: true };
  if (delta.runEnd) parts[parts.length - 1] = { ...parts.at(-1)!, runEnd: true };
  return parts.map((part) => encode(origin, part));
}

export function liveTextRelay(context: {
  query: (sql: string, params: SqlValue[]) => Promise<unknown>;
  transport: NoticeTransport | undefined;
}): Pick<RunEventRepository, "relayLive" | "subscribeLive"> {
  const { query, transport } = context;
  const origin = Math.random().toString(36).slice(2, 12);
  return {
    relayLive: async (delta) => {
      if (!transport) return;
      for (const payload of split(origin, delta)) {
        const statement = transport.statement(payload);
        await query(statement.sql, statement.params);
      }
    },
    subscribeLive: async (listener) => {
      if (!transport) return async () => {};
      return transport.listen(
        (payload) => {
          const delta = decode(payload);
          if (!delta || delta.origin === origin) return;
          const { origin: _origin, ...rest } = delta;
          safely(() => listener(rest));
        },
        // Live text lost while the connection was down stays lost; the next delta goes on.
        () => {},
      );
    },
  };
}
