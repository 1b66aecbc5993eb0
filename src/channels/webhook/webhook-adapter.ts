// A generic, signed JSON webhook as a channel: `POST /channels/webhook/<name>` takes a message
// (checked signature first, then stored under its idempotency key before anything is answered)
// and gives the answer back in the response, or POSTs it, signed the same way, to the channel's
// callback URL. A repeat of a request (same Idempotency-Key) never starts a second run: it gets
// the stored answer, or "accepted" while the run still works.
import { Type } from "typebox";
import { ResonError } from "../../core/errors.js";
import { typeboxValue } from "../../core/typebox-runtime.js";
import { defineRoute, type Route, readRawBody } from "../../server/index.js";
import type { InboundRecord, ReplyTarget, Store } from "../../store/index.js";
import type {
  ChannelAdapter,
  ChannelLive,
  ChannelLog,
  InboundDelivery,
  InboundSink,
  OutgoingMessage,
} from "../types.js";
import { SIGNATURE_HEADER, signWebhook, TIMESTAMP_HEADER, verifyWebhook } from "./webhook-signature.js";

const WebhookMessageSchema = Type.Object({
  text: Type.String({ minLength: 1, maxLength: 100_000 }),
  sender: Type.Object({
    id: Type.String({ minLength: 1, maxLength: 256 }),
    name: Type.Optional(Type.String({ maxLength: 256 })),
    username: Type.Optional(Type.String({ maxLength: 256 })),
  }),
  chat: Type.Optional(
    Type.Object({
      id: Type.String({ minLength: 1, maxLength: 256 }),
      type: Type.Optional(Type.Union([Type.Literal("direct"), Type.Literal("group")])),
      threadId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    }),
  ),
  messageId: Type.Optional(Type.String({ maxLength: 256 })),
  replyTo: Type.Optional(Type.String({ maxLength: 256 })),
  mentioned: Type.Optional(Type.Boolean()),
});

const WebhookAnswerSchema = Type.Object({
  id: Type.String({ description: "the stored inbound message" }),
  status: Type.String({
    description: "answered, accepted (still working; repeat the request later), ignored",
  }),
  reply: Type.Optional(Type.String()),
});

/** channel_state keys of the signatures seen lately: "signed:v1=<hex>". */
const SIGNED_PREFIX = "signed:";
/** How often the signatures kept past their time are looked for and deleted. */
const SWEEP_EVERY_MS = 60_000;

export interface WebhookAdapterOptions {
  /** The name under channels.webhook. */
  hookName: string;
  secret: string;
  callbackUrl?: string;
  replayWindowS?: number;
  store: Store;
  log: ChannelLog;
  /** How long a request without a callback URL waits for its answer (default 120 s). */
  waitMs?: number;
}

export class WebhookAdapter implements ChannelAdapter {
  readonly name: string;
  readonly maxMessageChars = 1_000_000;
  readonly #options: WebhookAdapterOptions;
  /** When this process last deleted the signatures kept past their time (epoch ms). */
  #sweptAt = 0;

  constructor(options: WebhookAdapterOptions) {
    this.#options = options;
    this.name = `webhook:${options.hookName}`;
  }

  describe(): ChannelLive {
    return {
      // Deliveries come to serve's own route: nothing to connect to.
      state: "taking",
      platform: "webhook",
      path: `/channels/webhook/${this.#options.hookName}`,
      replies: this.#options.callbackUrl ? "callback" : "response",
    };
  }

  async start(): Promise<void> {}

  async send(
    target: ReplyTarget,
    text: string,
    signal: AbortSignal,
    outgoing?: OutgoingMessage,
  ): Promise<void> {
    // Without a callback the answer is read from the store by the waiting (or repeated) request.
    if (!target.callbackUrl) return;
    // The answer's stable id, in the signed body and as the Idempotency-Key: a receiver drops a
    // repeat (an attempt taken over after a crash between sending and recording sends it again).
    const body = JSON.stringify({
      ...(outgoing ? { id: outgoing.id } : {}),
      chat: { id: target.chatId, ...(target.threadId ? { threadId: target.threadId } : {}) },
      ...(target.messageId ? { inReplyTo: target.messageId } : {}),
      text,
    });
    const timestampS = Math.floor(Date.now() / 1000);
    const response = await fetch(target.callbackUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        [TIMESTAMP_HEADER]: String(timestampS),
        [SIGNATURE_HEADER]: signWebhook(this.#options.secret, timestampS, body),
        ...(outgoing ? { "idempotency-key": outgoing.id } : {}),
      },
      body,
      signal,
    }).catch((error: unknown) => {
      throw new ResonError("channel_unavailable", `The webhook's callback did not answer: ${String(error)}`, {
        details: { maybeDelivered: true },
      });
    });
    await response.body?.cancel();
    if (response.status >= 500 || response.status === 429)
      throw new ResonError("channel_unavailable", `The webhook's callback answered HTTP ${response.status}.`);
    if (response.status >= 400)
      throw new ResonError(
        "channel_send_refused",
        `The webhook's callback refused the answer: HTTP ${response.status}.`,
      );
  }

  routes(sink: InboundSink): Route[] {
    const hook = this.#options.hookName;
    return [
      defineRoute({
        method: "POST",
        path: `/channels/webhook/${hook}`,
        summary: `A signed message to the "${hook}" webhook channel (HMAC-SHA256; see README "Channels")`,
        tags: ["channels"],
        auth: "none",
        responses: { 200: WebhookAnswerSchema, 202: WebhookAnswerSchema },
        handler: async ({ req, signal }) => {
          const body = await readRawBody(req, { limitBytes: 256 * 1024, signal });
          verifyWebhook({
            secret: this.#options.secret,
            body,
            signature: header(req.headers[SIGNATURE_HEADER]),
            timestamp: header(req.headers[TIMESTAMP_HEADER]),
            replayWindowS: this.#options.replayWindowS ?? 300,
          });
          const key = header(req.headers["idempotency-key"]);
          const delivery = this.#delivery(parseMessage(body), key);
          const signature = header(req.headers[SIGNATURE_HEADER])!.trim();
          const dedupeKey = await this.#firstKeyOf(signature, delivery.dedupeKey);
          const { record } = await sink({ ...delivery, dedupeKey });
          const answered = this.#options.callbackUrl ? record : await this.#awaitAnswer(record, signal);
          return { status: answered.status === "answered" ? 200 : 202, body: answerView(answered) };
        },
      }),
    ];
  }

  /**
   * The key the first request with these signed bytes came under. The Idempotency-Key header is
   * not signed: a request captured on its way (a proxy's log) and played again inside the replay
   * window under another key, or none, would otherwise run again. Kept for twice the window (a
   * timestamp may be that far from when it was first seen and still pass).
   */
  async #firstKeyOf(signature: string, dedupeKey: string): Promise<string> {
    const { store } = this.#options;
    const now = Date.now();
    const keptMs = 2 * (this.#options.replayWindowS ?? 300) * 1000;
    const stateKey = `${SIGNED_PREFIX}${signature}`;
    if (await store.channels.claimState(this.name, stateKey, JSON.stringify({ dedupeKey, at: now }))) {
      await this.#forgetOldSignatures(now, keptMs);
      return dedupeKey;
    }
    const earlier = await store.channels.getState(this.name, stateKey);
    const first = earlier ? (JSON.parse(earlier) as { dedupeKey?: unknown }).dedupeKey : undefined;
    return typeof first === "string" ? first : dedupeKey;
  }

  /**
   * Deletes the signatures kept longer than `keptMs`, at most once a minute: reading every kept
   * signature on each request made a busy webhook's requests slower the busier it was. One kept a
   * little longer is harmless: its timestamp no longer passes the replay window.
   */
  async #forgetOldSignatures(now: number, keptMs: number): Promise<void> {
    if (now - this.#sweptAt < SWEEP_EVERY_MS) return;
    this.#sweptAt = now;
    const { store } = this.#options;
    for (const { key, value } of await store.channels.listState(this.name, SIGNED_PREFIX)) {
      const at = (JSON.parse(value) as { at?: unknown }).at;
      if (typeof at !== "number" || now - at > keptMs) await store.channels.deleteState(this.name, key);
    }
  }

  #delivery(message: ReturnType<typeof parseMessage>, key: string | undefined): InboundDelivery {
    const dedupeKey = key ?? message.messageId;
    if (!dedupeKey)
      throw new ResonError(
        "invalid_request",
        "A webhook message needs an Idempotency-Key header or a messageId.",
        {
          hint: "Send the same key when you repeat a request: it is how a repeat gets the first answer instead of a second run.",
        },
      );
    const chatId = message.chat?.id ?? message.sender.id;
    const threadId = message.chat?.threadId;
    const chatType = message.chat?.type ?? "direct";
    return {
      dedupeKey,
      chatKey: threadId ? `${chatId}:${threadId}` : chatId,
      message: {
        text: message.text,
        envelope: {
          receivedAt: Date.now(),
          channel: this.name,
          chatType,
          chatId,
          ...(threadId ? { threadId } : {}),
          ...(message.messageId ? { messageId: message.messageId } : {}),
          senderId: message.sender.id,
          ...(message.sender.name ? { senderName: message.sender.name } : {}),
          ...(message.sender.username ? { senderUsername: message.sender.username } : {}),
          ...(message.replyTo ? { replyToMessageId: message.replyTo } : {}),
          ...(chatType === "direct" ? {} : { mentioned: message.mentioned === true }),
        },
        target: {
          chatId,
          ...(threadId ? { threadId } : {}),
          ...(message.messageId ? { messageId: message.messageId } : {}),
          ...(this.#options.callbackUrl ? { callbackUrl: this.#options.callbackUrl } : {}),
        },
      },
    };
  }

  /** The record once answered or ignored, or as it is when the wait runs out. */
  async #awaitAnswer(first: InboundRecord, signal: AbortSignal): Promise<InboundRecord> {
    const deadline = Date.now() + (this.#options.waitMs ?? 120_000);
    let record = first;
    while (record.status !== "answered" && record.status !== "ignored" && Date.now() < deadline) {
      if (signal.aborted) return record;
      await new Promise((resolve) => setTimeout(resolve, 100));
      record = (await this.#options.store.channels.getInbound(record.id)) ?? record;
    }
    return record;
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function parseMessage(body: Buffer) {
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch {
    throw new ResonError("invalid_request", "The webhook body is not valid JSON.");
  }
  if (typeboxValue().Check(WebhookMessageSchema, value)) return value;
  const first = [...typeboxValue().Errors(WebhookMessageSchema, value)][0];
  throw new ResonError(
    "invalid_request",
    `The webhook message is invalid: ${first?.instancePath ?? ""} ${first?.message ?? ""}.`,
    {
      hint: 'Send {"text": "...", "sender": {"id": "..."}} and optionally chat, messageId, replyTo, mentioned (README "Channels").',
    },
  );
}

function answerView(record: InboundRecord) {
  const status = record.status === "answered" || record.status === "ignored" ? record.status : "accepted";
  return {
    id: record.id,
    status,
    ...(record.status === "answered" && record.reply !== null ? { reply: record.reply } : {}),
  };
}
