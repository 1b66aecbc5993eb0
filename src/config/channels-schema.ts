// `channels` of $RESON_HOME/config.json: the chat apps and webhooks `reson serve` takes messages
// from, who may talk through each, and where their runs work. Only the user's own file may hold
// it (a project's is refused in load.ts): a repository must never open a way into the agent.
import { type Static, Type } from "typebox";

/** Who may start runs through a channel besides the owner. */
const DmPolicySchema = Type.Union(
  [Type.Literal("pairing"), Type.Literal("allowlist"), Type.Literal("open")],
  {
    description:
      "pairing (default): unknown senders get a code the owner approves; allowlist: only allowFrom; open: anyone (explicit choice)",
  },
);

/** What every channel shares: who may talk, and the runs its messages start. */
const channelCommon = {
  /** Where the runs work: a registered workspace's id or name, or an absolute path. */
  workspace: Type.String({ minLength: 1 }),
  /** Sender ids whose messages are the owner's own (trusted input); others' mark the run untrusted. */
  owner: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  /** Sender ids allowed without pairing. */
  allowFrom: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  dmPolicy: Type.Optional(DmPolicySchema),
  /** Group chats allowed (by chat id); the agent answers there only when mentioned. */
  groups: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  preset: Type.Optional(Type.String({ minLength: 1 })),
  provider: Type.Optional(Type.String({ minLength: 1 })),
  model: Type.Optional(Type.String({ minLength: 1 })),
  baseUrl: Type.Optional(Type.String({ minLength: 1 })),
  /** Permission rules the channel's runs get (the --allow / --deny syntax). */
  allow: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  deny: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  sandbox: Type.Optional(Type.Union([Type.Literal("on"), Type.Literal("off")])),
  /** The permission mode of the channel's runs (default, acceptEdits, plan, dontAsk; never bypass from a chat). */
  permissionMode: Type.Optional(
    Type.Union([
      Type.Literal("default"),
      Type.Literal("acceptEdits"),
      Type.Literal("plan"),
      Type.Literal("dontAsk"),
    ]),
  ),
};

export const TelegramChannelSchema = Type.Object(
  {
    ...channelCommon,
    /** The bot token from @BotFather, or a `<secret>name</secret>` reference. */
    token: Type.String({ minLength: 1 }),
    /** The Bot API server (a local one, or a fake in tests); default https://api.telegram.org. */
    apiRoot: Type.Optional(Type.String({ minLength: 1 })),
    /** Seconds a getUpdates long poll waits (default 25). */
    pollTimeoutS: Type.Optional(Type.Integer({ minimum: 0, maximum: 50 })),
  },
  { additionalProperties: false },
);

export const WebhookChannelSchema = Type.Object(
  {
    ...channelCommon,
    /** The HMAC-SHA256 key callers sign with, or a `<secret>name</secret>` reference. */
    secret: Type.String({ minLength: 1 }),
    /** Where answers are POSTed (signed the same way); without it they come in the response. */
    callbackUrl: Type.Optional(Type.String({ minLength: 1 })),
    /** How old a signed timestamp may be, in seconds (default 300). */
    replayWindowS: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
  },
  { additionalProperties: false },
);

export const SlackChannelSchema = Type.Object(
  {
    ...channelCommon,
    /** The bot token (xoxb-…), or a `<secret>name</secret>` reference. */
    botToken: Type.String({ minLength: 1 }),
    /** The app's signing secret: Events API requests are checked against it (Events API only). */
    signingSecret: Type.Optional(Type.String({ minLength: 1 })),
    /** An app-level token (xapp-…, scope connections:write): deliveries come over Socket Mode. */
    appToken: Type.Optional(Type.String({ minLength: 1 })),
    /** The Web API (a fake in tests); default https://slack.com/api/. */
    apiUrl: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

export const ChannelsSchema = Type.Object(
  {
    telegram: Type.Optional(TelegramChannelSchema),
    slack: Type.Optional(SlackChannelSchema),
    webhook: Type.Optional(
      Type.Record(Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" }), WebhookChannelSchema),
    ),
  },
  { additionalProperties: false },
);

export type ChannelsConfig = Static<typeof ChannelsSchema>;
export type TelegramChannelConfig = Static<typeof TelegramChannelSchema>;
export type SlackChannelConfig = Static<typeof SlackChannelSchema>;
export type WebhookChannelConfig = Static<typeof WebhookChannelSchema>;

/**
 * The credentials the channels are given, as named values (a `<secret>` reference aside: the
 * user's secrets are masked as such): what a run's output must never show, whoever reads it.
 */
export function channelCredentials(channels: ChannelsConfig | undefined): { name: string; value: string }[] {
  if (!channels) return [];
  const named: [string, string | undefined][] = [
    ["telegram_token", channels.telegram?.token],
    ["slack_bot_token", channels.slack?.botToken],
    ["slack_app_token", channels.slack?.appToken],
    ["slack_signing_secret", channels.slack?.signingSecret],
    ...Object.entries(channels.webhook ?? {}).map(([hook, settings]): [string, string] => [
      `webhook_${hook}_secret`,
      settings.secret,
    ]),
  ];
  return named.flatMap(([name, value]) =>
    value === undefined || value.includes("<secret>") ? [] : [{ name, value }],
  );
}
