// Who may talk to the agent through a channel, decided from the channel's settings and the
// stored pairings alone (never from anything in the message but who sent it and where):
// the owner and allowed senders talk; unknown senders get a pairing code (or nothing, under an
// allow-list, or once the owner denied them); anyone only when the user chose "open". Groups are allow-listed and answered
// only when the agent is mentioned. Commands (/new, /stop) only from the owner or allowed.
import { randomInt } from "node:crypto";
import type { MessageContext, PairingRecord } from "../store/index.js";

export interface AccessSettings {
  owner: readonly string[];
  allowFrom: readonly string[];
  dmPolicy: "pairing" | "allowlist" | "open";
  groups: readonly string[];
}

/** How the sender stands: owner (trusted input), allowed (by list or pairing), anyone (open, a group member). */
export type SenderStanding = "owner" | "allowed" | "anyone";

export type Access =
  | {
      kind: "ignore";
      note: "group_not_allowed" | "not_mentioned" | "not_allowed" | "no_sender" | "pairing_denied";
    }
  | { kind: "pair" }
  | { kind: "talk"; standing: SenderStanding; mayCommand: boolean };

export const PAIRING_CODE_TTL_MS = 60 * 60 * 1000;
export const MAX_PENDING_PAIRINGS = 3;
/**
 * An expired code stays this long (listed as expired: the owner may still deny its sender), then
 * is deleted when the next stranger asks to pair, or by `reson gc`.
 */
export const EXPIRED_PAIRING_KEPT_MS = 24 * 60 * 60 * 1000;
/** A stranger holding a code is told it again, if they write, after this long (they may have lost it). */
export const PAIRING_ANSWER_AGAIN_MS = 15 * 60 * 1000;

/** The channel_state key of what a stranger was last told about pairing, and when. */
export function pairingToldKey(senderId: string): string {
  return `pairing-told:${senderId}`;
}
/** No 0/O, 1/I/L: read aloud or typed from a phone without doubt. */
const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

export function pairingCode(): string {
  let code = "";
  for (let i = 0; i < 8; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

export function decideAccess(
  settings: AccessSettings,
  envelope: MessageContext,
  pairing: PairingRecord | undefined,
): Access {
  const sender = envelope.senderId;
  if (sender === undefined) return { kind: "ignore", note: "no_sender" };
  const known: SenderStanding | undefined =
    settings.owner.includes(sender) || (pairing?.status === "approved" && pairing.role === "owner")
      ? "owner"
      : settings.allowFrom.includes(sender) || pairing?.status === "approved"
        ? "allowed"
        : undefined;
  if (envelope.chatType !== "direct") {
    if (envelope.chatId === undefined || !settings.groups.includes(envelope.chatId))
      return { kind: "ignore", note: "group_not_allowed" };
    if (envelope.mentioned !== true) return { kind: "ignore", note: "not_mentioned" };
    return { kind: "talk", standing: known ?? "anyone", mayCommand: known !== undefined };
  }
  if (known) return { kind: "talk", standing: known, mayCommand: true };
  if (settings.dmPolicy === "open") return { kind: "talk", standing: "anyone", mayCommand: false };
  if (settings.dmPolicy === "allowlist") return { kind: "ignore", note: "not_allowed" };
  if (pairing?.status === "denied") return { kind: "ignore", note: "pairing_denied" };
  return { kind: "pair" };
}
