// What a run is to be, as a program or another machine asks for it: the workspace, the model,
// limits, preset and permission rules. Stored with a queued run (so no key or secret is ever
// part of it: a worker takes keys from its own environment) and validated where it comes in.
import { type Static, Type } from "typebox";
import { RunLimitsSchema } from "../core/usage.js";
import { PERMISSION_MODES, type PermissionMode } from "../permissions/index.js";

/** A run's settings besides its workspace: what a request may give (never a key or secret). */
export const RunSettingsFields = {
  provider: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  baseUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  maxIterations: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  limits: Type.Optional(RunLimitsSchema),
  preset: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  // Unsafe<PermissionMode>: TypeBox's static type of a union built from an array is lost.
  permissionMode: Type.Optional(
    Type.Unsafe<PermissionMode>(Type.Union(PERMISSION_MODES.map((mode) => Type.Literal(mode)))),
  ),
  /** Permission rules added for this run (the same syntax as --allow / --deny). */
  allow: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), { maxItems: 100 })),
  deny: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), { maxItems: 100 })),
  /** "off": commands run without the OS sandbox (the host has its own containment). */
  sandbox: Type.Optional(Type.Union([Type.Literal("on"), Type.Literal("off")])),
  /** Work in a broad folder (home or above) although no one trusted it interactively. */
  trustWorkspace: Type.Optional(Type.Boolean()),
};

/** The envelope of a message from a chat channel (store's MessageContext), as queued with its run. */
const MessageContextSchema = Type.Object(
  {
    receivedAt: Type.Integer({ minimum: 0 }),
    channel: Type.String({ minLength: 1, maxLength: 128 }),
    chatType: Type.Union([Type.Literal("direct"), Type.Literal("group"), Type.Literal("channel")]),
    chatId: Type.Optional(Type.String({ maxLength: 256 })),
    threadId: Type.Optional(Type.String({ maxLength: 256 })),
    messageId: Type.Optional(Type.String({ maxLength: 256 })),
    senderId: Type.Optional(Type.String({ maxLength: 256 })),
    senderName: Type.Optional(Type.String({ maxLength: 256 })),
    senderUsername: Type.Optional(Type.String({ maxLength: 256 })),
    roleLabel: Type.Optional(Type.String({ maxLength: 64 })),
    replyToMessageId: Type.Optional(Type.String({ maxLength: 256 })),
    mentioned: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/**
 * A run started by a message from a chat channel: its envelope (kept with the task turn) and
 * whether the sender is someone other than the owner (the run then starts untrusted). Only a
 * channel host sets it; the HTTP API's run settings do not include it.
 */
export const ChannelMessageSchema = Type.Object(
  {
    envelope: MessageContextSchema,
    untrusted: Type.Boolean(),
    /** Who sent it, for the reason a run is untrusted: "telegram user 42 in chat 42". */
    origin: Type.String({ maxLength: 512 }),
    /** The stored inbound message. */
    inboundId: Type.String({ maxLength: 64 }),
  },
  { additionalProperties: false },
);

export type ChannelMessage = Static<typeof ChannelMessageSchema>;

export const RunSpecSchema = Type.Object(
  {
    /** The folder the run works in (absolute). */
    workspace: Type.String({ minLength: 1, maxLength: 4096 }),
    ...RunSettingsFields,
    channelMessage: Type.Optional(ChannelMessageSchema),
  },
  { additionalProperties: false },
);

export type RunSpec = Static<typeof RunSpecSchema>;
