// Chat channels (a host at layer 7): Telegram, signed webhooks and whatever implements the
// adapter contract deliver messages into `reson serve`, which stores them before acknowledging,
// decides who may talk, runs them through the one run set-up (the run queue) and answers in the
// chat and thread they came from.
export {
  type Access,
  type AccessSettings,
  decideAccess,
  PAIRING_CODE_TTL_MS,
  pairingCode,
} from "./access.js";
export { ChannelHub, type ChannelHubOptions, type ChannelSetup } from "./channel-hub.js";
export {
  approvePairing,
  type ChannelView,
  channelViews,
  configuredChannels,
  denyPairing,
  type PairingView,
  pairingViews,
  removePairing,
} from "./channel-overview.js";
export { channelRoutes } from "./channel-routes.js";
export { channelSetups } from "./channel-settings.js";
export { type ChatCommand, chatCommand } from "./chat-commands.js";
export { type LiveReport, liveReports } from "./live-reports.js";
export { SLACK_MAX_MESSAGE_CHARS, SlackAdapter } from "./slack/slack-adapter.js";
export { splitForPlatform } from "./split-text.js";
export { TELEGRAM_MAX_MESSAGE_CHARS, TelegramAdapter } from "./telegram/telegram-adapter.js";
export type { ChannelAdapter, ChannelLog, InboundDelivery, InboundSink } from "./types.js";
export { WebhookAdapter } from "./webhook/webhook-adapter.js";
export {
  SIGNATURE_HEADER,
  signWebhook,
  TIMESTAMP_HEADER,
  verifyWebhook,
} from "./webhook/webhook-signature.js";
