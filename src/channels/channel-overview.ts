// What `reson channel list|status` and GET /channels show: each configured channel, its chat
// sessions, its messages still on their way, and pending pairings; and approving a pairing code,
// the one way a stranger becomes someone the agent talks to, or denying one.
import type { ChannelsConfig } from "../config/index.js";
import { ResonError } from "../core/errors.js";
import type { PairingRecord, SenderRole, Store } from "../store/index.js";
import { pairingToldKey } from "./access.js";

export interface ChannelView {
  name: string;
  platform: "telegram" | "slack" | "webhook";
  workspace: string;
  dmPolicy: string;
  groups: number;
  sessions: { chat: string; sessionId: string; createdAt: number }[];
  openMessages: number;
  pendingPairings: number;
}

export interface PairingView {
  channel: string;
  senderId: string;
  senderName: string | null;
  status: "pending" | "approved" | "expired" | "denied";
  role: SenderRole;
  code: string | null;
  expiresAt: number | null;
  approvedAt: number | null;
}

export function configuredChannels(config: ChannelsConfig | undefined) {
  const out: {
    name: string;
    platform: ChannelView["platform"];
    workspace: string;
    dmPolicy: string;
    groups: number;
  }[] = [];
  if (config?.telegram)
    out.push({
      name: "telegram",
      platform: "telegram",
      workspace: config.telegram.workspace,
      dmPolicy: config.telegram.dmPolicy ?? "pairing",
      groups: config.telegram.groups?.length ?? 0,
    });
  if (config?.slack)
    out.push({
      name: "slack",
      platform: "slack",
      workspace: config.slack.workspace,
      dmPolicy: config.slack.dmPolicy ?? "pairing",
      groups: config.slack.groups?.length ?? 0,
    });
  for (const [name, hook] of Object.entries(config?.webhook ?? {}))
    out.push({
      name: `webhook:${name}`,
      platform: "webhook",
      workspace: hook.workspace,
      dmPolicy: hook.dmPolicy ?? "pairing",
      groups: hook.groups?.length ?? 0,
    });
  return out;
}

export async function channelViews(store: Store, config: ChannelsConfig | undefined): Promise<ChannelView[]> {
  const open = await store.channels.listOpen();
  const pairings = await pairingViews(store);
  return Promise.all(
    configuredChannels(config).map(async (channel) => ({
      ...channel,
      sessions: (await store.channels.listSessions(channel.name)).map((s) => ({
        chat: s.chatKey,
        sessionId: s.sessionId,
        createdAt: s.createdAt,
      })),
      openMessages: open.filter((m) => m.channel === channel.name).length,
      pendingPairings: pairings.filter((p) => p.channel === channel.name && p.status === "pending").length,
    })),
  );
}

export async function pairingViews(store: Store, channel?: string): Promise<PairingView[]> {
  const now = Date.now();
  return (await store.channels.listPairings(channel)).map((p: PairingRecord) => ({
    channel: p.channel,
    senderId: p.senderId,
    senderName: p.senderName,
    status: p.status === "pending" && (p.expiresAt ?? 0) <= now ? "expired" : p.status,
    role: p.role,
    code: p.status === "pending" ? p.code : null,
    expiresAt: p.expiresAt,
    approvedAt: p.approvedAt,
  }));
}

export async function approvePairing(
  store: Store,
  channel: string,
  code: string,
  role: SenderRole = "allowed",
): Promise<PairingView> {
  const approved = await store.channels.approvePairing(channel, code.trim().toUpperCase(), role, Date.now());
  if (!approved)
    throw new ResonError("not_found", `No pending pairing code ${code} on channel ${channel}.`, {
      hint: "Codes expire after an hour; `reson channel pair list` shows the pending ones. The sender gets a new code by writing again.",
    });
  await store.channels.deleteState(channel, pairingToldKey(approved.senderId));
  return (await pairingViews(store, channel)).find((p) => p.senderId === approved.senderId)!;
}

/** Forgets a sender, approved or pending, and what they were told: false when there was none. */
export async function removePairing(store: Store, channel: string, senderId: string): Promise<boolean> {
  const removed = await store.channels.removePairing(channel, senderId);
  await store.channels.deleteState(channel, pairingToldKey(senderId));
  return removed;
}

/**
 * Denies a sender waiting to pair (by code or sender id, an expired code too): their slot is
 * free, and they get no code again and no answer until the pairing is removed.
 */
export async function denyPairing(store: Store, channel: string, codeOrSender: string): Promise<PairingView> {
  const value = codeOrSender.trim();
  const denied =
    (await store.channels.denyPairing(channel, value.toUpperCase())) ??
    (await store.channels.denyPairing(channel, value));
  if (!denied)
    throw new ResonError(
      "not_found",
      `Nobody waits to pair with code or id ${codeOrSender} on channel ${channel}.`,
      {
        hint: "`reson channel pair list` shows who waits, with their codes.",
      },
    );
  await store.channels.deleteState(channel, pairingToldKey(denied.senderId));
  return (await pairingViews(store, channel)).find((p) => p.senderId === denied.senderId)!;
}
