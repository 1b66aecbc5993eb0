// The store's contract for chat channels: every inbound message kept (with the platform's
// dedupe key) before it is acknowledged and followed to its answer, the session of each chat or
// thread, pairing codes and approved senders, and small per-channel state (Telegram's offset;
// "send:<inbound id>" while an answer is sent, "prompt:<id>" and "press:<id>" for prompts offered
// in a chat: `Store.gc` deletes those once their message is answered or their prompt is gone;
// it deletes a settled message itself once it is older than the cutoff and a day, gc-plan.ts).
import type { EpochMs, MessageContext } from "./types.js";

/**
 * received: stored, not yet looked at; queued: its run is queued or running; reply: an answer
 * (a run's, a pairing code, a refusal) waits to be sent; sending: a process is sending it (a
 * stale claim is taken over); answered: sent; ignored: nothing to do (a group message without a
 * mention, an edit).
 */
export type InboundStatus = "received" | "queued" | "reply" | "sending" | "answered" | "ignored";

/** Where an answer goes: the chat and thread a message came from, never a place the model names. */
export interface ReplyTarget {
  chatId: string;
  threadId?: string;
  /** The message the answer replies to. */
  messageId?: string;
  /** A webhook's callback URL, when it has one. */
  callbackUrl?: string;
}

export interface InboundMessage {
  text: string;
  envelope: MessageContext;
  target: ReplyTarget;
  /** The names of files sent with the message, which reson does not read (yet). */
  unreadFiles?: string[];
}

export interface InboundRecord {
  id: string;
  /** "telegram", "slack", "webhook:<name>". */
  channel: string;
  /** The platform's id for the delivery (Telegram chat and message id, Slack event_id, an idempotency key). */
  dedupeKey: string;
  /** The chat and thread: one session each. */
  chatKey: string;
  message: InboundMessage;
  status: InboundStatus;
  runId: string | null;
  /** What to send (a run's answer, a pairing code…) once status is "reply" or later. */
  reply: string | null;
  /** Why it was ignored or answered without a run ("pairing", "not_mentioned"…). */
  note: string | null;
  claimedAt: EpochMs | null;
  createdAt: EpochMs;
  updatedAt: EpochMs;
}

export type SenderRole = "owner" | "allowed";

export interface PairingRecord {
  channel: string;
  senderId: string;
  senderName: string | null;
  /** Pending: the code to approve; approved or denied: null. */
  code: string | null;
  /** Denied: the owner refused the sender, who gets no code again (until the pairing is removed). */
  status: "pending" | "approved" | "denied";
  role: SenderRole;
  createdAt: EpochMs;
  expiresAt: EpochMs | null;
  approvedAt: EpochMs | null;
}

export interface ChannelSessionRecord {
  channel: string;
  chatKey: string;
  sessionId: string;
  createdAt: EpochMs;
}

export interface ChannelRepository {
  /**
   * Stores an inbound message unless (channel, dedupeKey) is already stored: of racing or
   * repeated deliveries exactly one is `created`, and every one gets the stored record.
   */
  receive(
    input: Pick<InboundRecord, "id" | "channel" | "dedupeKey" | "chatKey" | "message">,
  ): Promise<{ record: InboundRecord; created: boolean }>;
  getInbound(id: string): Promise<InboundRecord | undefined>;
  /** Messages not yet answered nor ignored, oldest first (a channel's, or all). */
  listOpen(channel?: string): Promise<InboundRecord[]>;
  /** The newest messages of a channel, newest first. */
  listInbound(channel: string, limit: number): Promise<InboundRecord[]>;
  /**
   * Moves a message from `from` to `to` with the patch; false when it was not in `from` (another
   * process moved it first). `sending` is claimed with the database's clock, and a claim older
   * than `staleMs` may be taken over by moving from "sending" with `staleMs` given.
   */
  transition(
    id: string,
    from: InboundStatus,
    to: InboundStatus,
    patch?: { runId?: string; reply?: string; note?: string },
    staleMs?: number,
  ): Promise<boolean>;

  sessionFor(channel: string, chatKey: string): Promise<ChannelSessionRecord | undefined>;
  /** Keeps the first session of a chat: a racing second one gets the first's. */
  bindSession(record: ChannelSessionRecord): Promise<ChannelSessionRecord>;
  /** Forgets a chat's session (/new): its next message starts a new one. */
  unbindSession(channel: string, chatKey: string): Promise<void>;
  listSessions(channel: string): Promise<ChannelSessionRecord[]>;

  /** The pairing or approval of a sender, if any (expired pending codes included). */
  pairingOf(channel: string, senderId: string): Promise<PairingRecord | undefined>;
  /** Stores a pending code for a sender, replacing an expired one of theirs. */
  putPairing(record: PairingRecord): Promise<void>;
  /** Approves the pending, unexpired code; the sender's record, or undefined for no such code. */
  approvePairing(
    channel: string,
    code: string,
    role: SenderRole,
    now: EpochMs,
  ): Promise<PairingRecord | undefined>;
  /**
   * Denies a pending sender, named by their code or their id (expired codes too): their record,
   * or undefined when no such sender is pending.
   */
  denyPairing(channel: string, codeOrSender: string): Promise<PairingRecord | undefined>;
  listPairings(channel?: string): Promise<PairingRecord[]>;
  /** Forgets a sender (approved or pending). */
  removePairing(channel: string, senderId: string): Promise<boolean>;
  /** Deletes the pending codes that expired before `expiredBefore`; the senders they were given to. */
  deleteExpiredPairings(channel: string, expiredBefore: EpochMs): Promise<string[]>;

  getState(channel: string, key: string): Promise<string | undefined>;
  setState(channel: string, key: string, value: string): Promise<void>;
  /** Sets the state only if it is not set yet: true for the one caller that set it. */
  claimState(channel: string, key: string, value: string): Promise<boolean>;
  /** Replaces the state only if it still is `expected`: true for the one caller that replaced it. */
  replaceState(channel: string, key: string, expected: string, value: string): Promise<boolean>;
  deleteState(channel: string, key: string): Promise<void>;
  /** The state whose keys begin with `prefix` ("press:"), in key order. */
  listState(channel: string, prefix: string): Promise<{ key: string; value: string }[]>;
}
