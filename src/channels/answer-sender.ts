// Sending a stored answer back to its chat, exactly once as far as the platform lets anyone know:
// the answer is claimed (a claim gone stale is a crashed sender's, taken over), sent in parts
// within the platform's limit, and each part is recorded in channel_state ("send:<inbound id>")
// as being sent by an attempt before it goes out and as sent after, so whoever takes over knows
// which part may have gone out already. The claim is kept fresh while a part is being sent, so
// a slow send (a slow platform, one waiting out a 429) is not taken for a crash and sent twice. A
// platform that is down is tried again with a backoff.
import { toResonError } from "../core/errors.js";
import { ulid } from "../core/ids.js";
import type { InboundRecord, Store } from "../store/index.js";
import type { ChannelSetup } from "./channel-setup.js";
import { splitForPlatform } from "./split-text.js";
import type { ChannelLog } from "./types.js";

/** The longest wait a platform may name before the next try (a 429's retry_after). */
const MAX_NAMED_WAIT_MS = 60 * 60 * 1000;

export interface AnswerSenderOptions {
  store: Store;
  log: ChannelLog;
  signal: AbortSignal;
  /** A claim to send that is older than this was a crash: it is taken over (default 30 s). */
  sendStaleMs?: number;
}

export class AnswerSender {
  readonly #options: AnswerSenderOptions;
  /** Answers whose sending failed for now: not tried again before then (this process only). */
  readonly #retryAt = new Map<string, { at: number; failures: number }>();

  constructor(options: AnswerSenderOptions) {
    this.#options = options;
  }

  /**
   * Claims the reply (or a claim that went stale), sends it in parts, marks it answered. Before
   * each part the attempt is recorded in the store as sending that part, and after it as sent:
   * whoever takes over a crashed sender's claim knows which part may have gone out already and
   * lets the adapter check (Slack) or mark it (Telegram's notice, the webhook's stable id).
   */
  async send(record: InboundRecord, setup: ChannelSetup, takeover: boolean): Promise<boolean> {
    const { store, log } = this.#options;
    const staleMs = this.#options.sendStaleMs ?? 30_000;
    const retry = this.#retryAt.get(record.id);
    if (retry && Date.now() < retry.at) return false;
    const claimed = await store.channels.transition(
      record.id,
      takeover ? "sending" : "reply",
      "sending",
      {},
      takeover ? staleMs : undefined,
    );
    if (!claimed) return false;
    const parts = splitForPlatform(record.reply?.trim() || "(no answer)", setup.adapter.maxMessageChars);
    const progressKey = `send:${record.id}`;
    const before = parseSendProgress(await store.channels.getState(record.channel, progressKey));
    const attemptId = ulid();
    if (before?.trying !== undefined)
      log({
        level: "info",
        message: `channel ${record.channel}: the answer to message ${record.id} was being sent by attempt ${before.attemptId}, which stopped before recording it; checking for a repeat`,
        channel: record.channel,
        inbound: record.id,
      });
    let index = before?.sent ?? 0;
    const maybeSentPart = before?.trying;
    try {
      for (; index < parts.length; index++) {
        const maybeSent = maybeSentPart === index;
        const sinceMs = maybeSent ? (before?.sinceMs ?? Date.now()) : Date.now();
        await this.#recordProgress(record, { attemptId, sent: index, trying: index, sinceMs });
        await this.#keepingClaim(record, staleMs, () =>
          setup.adapter.send(record.message.target, parts[index]!, this.#options.signal, {
            id: `${record.id}.${index}`,
            attemptId,
            maybeSent,
            ...(maybeSent ? { sinceMs } : {}),
          }),
        );
        await this.#recordProgress(record, { attemptId, sent: index + 1 });
        // A long answer keeps its claim fresh, so nobody takes over a sender that still works.
        if (index + 1 < parts.length) await store.channels.transition(record.id, "sending", "sending");
      }
    } catch (error) {
      const failure = toResonError(error);
      const permanent = failure.code === "channel_send_refused";
      // Not sent as far as anyone knows, unless the platform may have taken it (a timeout), or an
      // earlier attempt may have: then the next attempt checks again.
      const uncertain = failure.details?.maybeDelivered === true || maybeSentPart === index;
      await this.#recordProgress(record, {
        attemptId,
        sent: index,
        ...(uncertain ? { trying: index, sinceMs: before?.sinceMs ?? Date.now() } : {}),
      }).catch(() => {});
      log({
        level: "warn",
        message: `channel ${record.channel}: the answer to message ${record.id} was not sent: ${failure.message}`,
        channel: record.channel,
        inbound: record.id,
        ...(permanent ? {} : { retry: true }),
      });
      if (permanent) {
        const ended = await store.channels.transition(record.id, "sending", "answered", {
          note: `send_refused: ${failure.message}`,
        });
        if (ended) await this.#forgetProgress(record);
        return ended;
      }
      // Backing off, doubling up to a minute: a platform that is down is not hammered. One that
      // names its wait (Telegram's 429 retry_after) is not asked again before then (up to an hour).
      const failures = (retry?.failures ?? 0) + 1;
      const named = failure.details?.retryAfterMs;
      const waitMs = Math.max(
        Math.min(60_000, 1000 * 2 ** (failures - 1)),
        typeof named === "number" ? Math.min(MAX_NAMED_WAIT_MS, named) : 0,
      );
      this.#retryAt.set(record.id, { at: Date.now() + waitMs, failures });
      await store.channels.transition(record.id, "sending", "reply");
      return false;
    }
    this.#retryAt.delete(record.id);
    const answered = await store.channels.transition(record.id, "sending", "answered");
    if (answered) await this.#forgetProgress(record);
    return answered;
  }

  /**
   * Runs `send` while renewing the claim (a third of the stale time apart): a sender that still
   * works is never taken over. A renewal finds nothing to renew once the message left "sending".
   */
  async #keepingClaim(record: InboundRecord, staleMs: number, send: () => Promise<void>): Promise<void> {
    const { store } = this.#options;
    const renewal = setInterval(
      () => void store.channels.transition(record.id, "sending", "sending").catch(() => {}),
      Math.max(10, Math.floor(staleMs / 3)),
    );
    try {
      await send();
    } finally {
      clearInterval(renewal);
    }
  }

  /** An answered message's progress no longer matters (`reson gc` deletes any left by a crash). */
  async #forgetProgress(record: InboundRecord): Promise<void> {
    await this.#options.store.channels.deleteState(record.channel, `send:${record.id}`);
  }

  async #recordProgress(record: InboundRecord, progress: SendProgress): Promise<void> {
    await this.#options.store.channels.setState(
      record.channel,
      `send:${record.id}`,
      JSON.stringify(progress),
    );
  }
}

/** How far the sending of an answer got, kept in channel_state under "send:<inbound id>". */
interface SendProgress {
  attemptId: string;
  /** Parts confirmed sent. */
  sent: number;
  /** The part an attempt began to send and did not record as sent. */
  trying?: number;
  /** When the first attempt at that part began. */
  sinceMs?: number;
}

function parseSendProgress(value: string | undefined): SendProgress | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(value) as Partial<SendProgress>;
    if (typeof parsed.attemptId !== "string" || typeof parsed.sent !== "number") return undefined;
    return {
      attemptId: parsed.attemptId,
      sent: parsed.sent,
      ...(typeof parsed.trying === "number" ? { trying: parsed.trying } : {}),
      ...(typeof parsed.sinceMs === "number" ? { sinceMs: parsed.sinceMs } : {}),
    };
  } catch {
    return undefined;
  }
}
