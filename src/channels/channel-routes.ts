// The JSON API of channels in `reson serve` (bearer token like every route): the channels with
// their sessions and open messages, the pairings, and approving a code (what the web view and
// scripts use; `reson channel` reads the store directly).
import { Type } from "typebox";
import type { ChannelsConfig } from "../config/index.js";
import { defineRoute, type Route } from "../server/index.js";
import type { Store } from "../store/index.js";
import { approvePairing, channelViews, denyPairing, pairingViews } from "./channel-overview.js";
import type { ChannelLive } from "./types.js";

const PairingSchema = Type.Object({
  channel: Type.String(),
  senderId: Type.String(),
  senderName: Type.Union([Type.String(), Type.Null()]),
  status: Type.String({ description: "pending, approved, expired or denied" }),
  role: Type.String({ description: "owner or allowed" }),
  code: Type.Union([Type.String(), Type.Null()]),
  expiresAt: Type.Union([Type.Integer(), Type.Null()]),
  approvedAt: Type.Union([Type.Integer(), Type.Null()]),
});

const ChannelSchema = Type.Object({
  name: Type.String({ description: "telegram, webhook:<name>" }),
  platform: Type.String(),
  workspace: Type.String(),
  dmPolicy: Type.String(),
  groups: Type.Integer({ description: "allowed group chats" }),
  sessions: Type.Array(
    Type.Object({ chat: Type.String(), sessionId: Type.String(), createdAt: Type.Integer() }),
  ),
  openMessages: Type.Integer({ description: "messages stored and not yet answered" }),
  pendingPairings: Type.Integer(),
  live: Type.Optional(
    Type.Object(
      {
        state: Type.Union(
          ["connecting", "waiting", "taking", "standby", "stopped"].map((state) => Type.Literal(state)),
          {
            description:
              "in this serve: connecting to the platform, waiting for it to answer (asked again at retryAt), taking messages, on standby while another serve polls the bot, or stopped (the platform refused the token)",
          },
        ),
        reason: Type.Optional(Type.String({ description: "why it waits or stopped" })),
        hint: Type.Optional(Type.String({ description: "what to do about a stop" })),
        retryAt: Type.Optional(Type.Integer({ description: "epoch ms of the next try, while waiting" })),
      },
      { additionalProperties: true, description: "absent when serve runs no channels" },
    ),
  ),
});

/** `live`: how each channel stands in this serve (the hub's view), when serve runs channels. */
export function channelRoutes(
  store: Store,
  config: ChannelsConfig | undefined,
  live?: () => Map<string, ChannelLive>,
): Route[] {
  return [
    defineRoute({
      method: "GET",
      path: "/channels",
      summary: "Configured chat channels, each with its chat sessions, open messages and pending pairings",
      tags: ["channels"],
      responses: { 200: Type.Object({ channels: Type.Array(ChannelSchema) }) },
      handler: async () => {
        const now = live?.();
        const channels = (await channelViews(store, config)).map((view) => {
          const state = now?.get(view.name);
          return state ? { ...view, live: state } : view;
        });
        return { body: { channels } };
      },
    }),
    defineRoute({
      method: "GET",
      path: "/channels/pairings",
      summary: "Senders who asked to pair (with their codes) and senders approved",
      tags: ["channels"],
      responses: { 200: Type.Object({ pairings: Type.Array(PairingSchema) }) },
      handler: async () => ({ body: { pairings: await pairingViews(store) } }),
    }),
    defineRoute({
      method: "POST",
      path: "/channels/:channel/pairings/:code/approve",
      summary: "Approves a pending pairing code: its sender may talk to the agent",
      tags: ["channels"],
      params: Type.Object({ channel: Type.String({ minLength: 1 }), code: Type.String({ minLength: 1 }) }),
      body: Type.Object({ owner: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
      responses: { 200: PairingSchema },
      handler: async ({ params, body }) => ({
        body: await approvePairing(store, params.channel, params.code, body.owner ? "owner" : "allowed"),
      }),
    }),
    defineRoute({
      method: "POST",
      path: "/channels/:channel/pairings/:code/deny",
      summary:
        "Denies a sender waiting to pair (by code, or sender id): the slot is free and they get no code again until removed",
      tags: ["channels"],
      params: Type.Object({ channel: Type.String({ minLength: 1 }), code: Type.String({ minLength: 1 }) }),
      responses: { 200: PairingSchema },
      handler: async ({ params }) => ({ body: await denyPairing(store, params.channel, params.code) }),
    }),
  ];
}
