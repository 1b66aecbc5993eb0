// Wake-ups of the store's listeners: "run X has events up to seq N", "prompt P of run X was
// answered", "the queue has work", "run X is asked to stop". One payload format and one fan-out for both backends; on
// PostgreSQL the payloads travel by NOTIFY (every process hears them), on SQLite they are
// handed to this process's listeners after the commit (other processes poll).
import type { NoticeTransport, Statement } from "./driver.js";
import type { SubscribeOptions, Unsubscribe } from "./types.js";

export type Notice =
  | { kind: "events"; traceId: string; lastSeq: number }
  | { kind: "prompt"; traceId: string; promptId: string }
  | { kind: "queue" }
  | { kind: "cancel"; runId: string };

type Listener = (notice: Notice) => void;

/** Short keys: NOTIFY payloads are limited to 8,000 bytes and travel to every listener. */
function encode(notice: Notice): string {
  switch (notice.kind) {
    case "events":
      return JSON.stringify({ k: "e", t: notice.traceId, s: notice.lastSeq });
    case "prompt":
      return JSON.stringify({ k: "p", t: notice.traceId, p: notice.promptId });
    case "queue":
      return JSON.stringify({ k: "q" });
    case "cancel":
      return JSON.stringify({ k: "c", r: notice.runId });
  }
}

/** A payload's JSON object; undefined for anything else (a payload of another version, noise). */
export function payloadObject(payload: string): Record<string, unknown> | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(payload);
  } catch {
    return undefined;
  }
  return typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : undefined;
}

function decode(payload: string): Notice | undefined {
  const value = payloadObject(payload);
  if (!value) return undefined;
  if (value.k === "e" && typeof value.t === "string" && typeof value.s === "number") {
    return { kind: "events", traceId: value.t, lastSeq: value.s };
  }
  if (value.k === "p" && typeof value.t === "string" && typeof value.p === "string") {
    return { kind: "prompt", traceId: value.t, promptId: value.p };
  }
  if (value.k === "q") return { kind: "queue" };
  if (value.k === "c" && typeof value.r === "string") return { kind: "cancel", runId: value.r };
  return undefined;
}

/**
 * A listener's failure is its own: the commit has happened and the other listeners must still
 * hear of it, and a throw on the listening connection's event would end the process. It is
 * reported as a process warning, where it shows.
 */
export function safely(call: () => void): void {
  try {
    call();
  } catch (error) {
    process.emitWarning(error instanceof Error ? error : String(error), "ResonStoreListenerWarning");
  }
}

export class Notices {
  readonly #transport: NoticeTransport | undefined;

  readonly #local = new Set<{ listener: Listener }>();

  constructor(transport: NoticeTransport | undefined) {
    this.#transport = transport;
  }

  /** The statements that announce `notices` when their transaction commits (PostgreSQL only). */
  statements(notices: readonly Notice[]): Statement[] {
    const transport = this.#transport;
    if (!transport) return [];
    return unique(notices).map((notice) => transport.statement(encode(notice)));
  }

  /** After a commit: tells this process's listeners where no transport carries the notices. */
  committed(notices: readonly Notice[]): void {
    if (this.#transport) return;
    for (const notice of unique(notices)) this.#deliver(notice);
  }

  async subscribe(listener: Listener, options: SubscribeOptions = {}): Promise<Unsubscribe> {
    const entry = { listener };
    if (!this.#transport) {
      this.#local.add(entry);
      return async () => {
        this.#local.delete(entry);
      };
    }
    return this.#transport.listen(
      (payload) => {
        const notice = decode(payload);
        if (notice) safely(() => listener(notice));
      },
      () => options.onGap?.(),
    );
  }

  #deliver(notice: Notice): void {
    for (const { listener } of [...this.#local]) safely(() => listener(notice));
  }
}

/** One notice per run and per prompt; of a run's event notices, the one with the highest seq. */
function unique(notices: readonly Notice[]): Notice[] {
  const byKey = new Map<string, Notice>();
  for (const notice of notices) {
    const key =
      notice.kind === "events"
        ? `e:${notice.traceId}`
        : notice.kind === "prompt"
          ? `p:${notice.promptId}`
          : "q";
    const seen = byKey.get(key);
    if (seen?.kind === "events" && notice.kind === "events" && seen.lastSeq > notice.lastSeq) continue;
    byKey.set(key, notice);
  }
  return [...byKey.values()];
}
