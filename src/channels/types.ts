// The adapter contract every chat platform implements (Telegram, webhooks; Slack or Discord as
// plugins): turn the platform's deliveries into inbound messages handed to the hub, which stores
// them before the adapter acknowledges anything, and send text (and a typing indicator) back to
// the chat and thread a message came from. Nothing here decides who may talk or starts runs:
// the hub does, the same for every platform.

import type { Route } from "../server/index.js";
import type { InboundMessage, InboundRecord, ReplyTarget } from "../store/index.js";

/** One delivery, as an adapter hands it over. */
export interface InboundDelivery {
  /** The platform's id of the delivery (Telegram chat and message id, Slack event_id, an idempotency key). */
  dedupeKey: string;
  /** The chat and thread: each has its own session. */
  chatKey: string;
  message: InboundMessage;
}

/**
 * Stores a delivery (once per dedupe key) and wakes the hub: only after it resolves may the
 * adapter acknowledge the delivery to the platform. `created` is false for a redelivery.
 */
export type InboundSink = (delivery: InboundDelivery) => Promise<{ record: InboundRecord; created: boolean }>;

/** A button pressed under a message the agent sent (an approval, a choice). */
export interface ButtonPress {
  /** The platform's id of the press, to answer it (Telegram's callback query id). */
  id: string;
  /** What the button carried: "<prompt id>:<choice>". */
  data: string;
  senderId: string;
  senderName?: string;
  chatId: string;
  threadId?: string;
  /** The message that holds the buttons. */
  messageId?: string;
}

/**
 * Takes a press: an authorised one is stored (once per prompt; a redelivery finds it) before the
 * sink resolves, so only then may the adapter acknowledge the delivery to the platform.
 */
export type PressSink = (press: ButtonPress) => Promise<void>;

/** A button under a message: its label, and the data a press brings back. */
export interface ChatButton {
  label: string;
  data: string;
}

/**
 * One answer part as the hub sends it: its stable id (the same in every attempt, so a platform
 * or receiver can recognise a repeat) and whether an earlier attempt may already have delivered
 * it (its sender died, or lost its claim, between sending and recording).
 */
export interface OutgoingMessage {
  /** "<inbound id>.<part>": stable across attempts and processes. */
  id: string;
  /** The attempt sending it now (a new one per claim; kept in the store while it sends). */
  attemptId: string;
  /** An earlier attempt may have delivered this part. */
  maybeSent: boolean;
  /** When the earlier attempt began to send it (where a lookup of sent messages starts). */
  sinceMs?: number;
}

/** The notice before an answer that may have been delivered already. */
export const MAYBE_REPEAT_NOTICE = "(this may be a repeat: reson restarted while sending)";

export type ChannelLog = (entry: {
  level: "info" | "warn" | "error";
  message: string;
  [key: string]: unknown;
}) => void;

/**
 * How a channel stands in this serve: `connecting` to its platform, `waiting` for the platform to
 * answer (serve asks again at `retryAt`), `taking` messages, on `standby` while another serve on
 * the same store polls the bot, or `stopped` (the platform refused the token: `reason`, `hint`).
 */
export interface ChannelLive {
  state: "connecting" | "waiting" | "taking" | "standby" | "stopped";
  reason?: string;
  hint?: string;
  /** When serve asks the platform again (epoch ms), while waiting. */
  retryAt?: number;
  /** The platform's facts: the bot's name, the webhook's path… */
  [fact: string]: unknown;
}

export interface ChannelAdapter {
  /** The channel's name as stored and shown: "telegram", "webhook:ci". */
  readonly name: string;
  /** The longest text one message may carry on this platform; longer answers are split. */
  readonly maxMessageChars: number;
  /** Starts taking deliveries (a poll loop, or nothing for webhook routes) until `signal` aborts. */
  start(sink: InboundSink, signal: AbortSignal, press?: PressSink): Promise<void>;
  /**
   * Sends one message (already within maxMessageChars) to where `target` says. Answers come with
   * `outgoing`: where it says `maybeSent`, the adapter checks what it can (Slack looks the
   * answer up) or marks the repeat (Telegram's notice). A thrown ResonError with
   * `details.maybeDelivered` says the platform may have taken it even so (a timeout).
   */
  send(target: ReplyTarget, text: string, signal: AbortSignal, outgoing?: OutgoingMessage): Promise<void>;
  /** Sends a message with buttons (approvals, choices), where the platform has them. */
  ask?(target: ReplyTarget, text: string, buttons: ChatButton[], signal: AbortSignal): Promise<void>;
  /**
   * Tells the presser at once that a stored press was taken (Telegram answers the callback query,
   * which it wants within seconds), before the press is given to the run.
   */
  acknowledgePress?(press: ButtonPress, notice: string, signal: AbortSignal): Promise<void>;
  /**
   * Tells the presser what came of a press (no `notice` where acknowledgePress told them), and
   * where it can, replaces the buttons with `result`.
   */
  settlePress?(
    press: ButtonPress,
    notice: string | undefined,
    result: string | undefined,
    signal: AbortSignal,
  ): Promise<void>;
  /** Shows that the agent is working (Telegram's "typing…"), where the platform has that. */
  typing?(target: ReplyTarget, signal: AbortSignal): Promise<void>;
  /** HTTP routes of the platform's deliveries (webhooks), served by `reson serve` without its token. */
  routes?(sink: InboundSink, press?: PressSink): Route[];
  /** How the channel stands in this serve, and what it knows of its platform (the bot's name…). */
  describe(): ChannelLive;
}
