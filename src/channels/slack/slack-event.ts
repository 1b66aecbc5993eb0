// Slack's Events API payloads as channel deliveries and presses: a message in a direct chat, or
// a message (or app_mention) in a channel, with its envelope; a block action (a button) as a
// press. A delivery's dedupe key is the channel and message ts, so a retry (X-Slack-Retry-Num),
// and the same message arriving as both `message` and `app_mention`, are stored once. A message
// with a file (`file_share`) is taken for its text, the files' names kept to say they were not
// read; a thread reply also sent to the channel (`thread_broadcast`) is a message like any other.
import type { ButtonPress, InboundDelivery } from "../types.js";

interface SlackMessageEvent {
  type?: string;
  subtype?: string;
  channel?: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  event_ts?: string;
  files?: { name?: unknown; title?: unknown }[];
}

/** Subtypes that are someone writing to the agent; the rest (edits, deletions, joins, bots) are not. */
const TAKEN_SUBTYPES: ReadonlySet<string> = new Set(["file_share", "thread_broadcast"]);
/** Slack allows ten files a message; more names would only lengthen the notice. */
const MAX_FILES_NAMED = 10;

export function deliveryOfEvent(
  payload: unknown,
  botUserId: string | undefined,
): InboundDelivery | undefined {
  const event = (payload as { event?: SlackMessageEvent }).event;
  if (!event || (event.type !== "message" && event.type !== "app_mention")) return undefined;
  // Edits, deletions, joins, the bot's own messages: not tasks.
  if (event.subtype !== undefined && !TAKEN_SUBTYPES.has(event.subtype)) return undefined;
  if (event.bot_id !== undefined || !event.user || !event.channel || !event.ts) return undefined;
  if (botUserId && event.user === botUserId) return undefined;
  const text = event.text ?? "";
  const files = (Array.isArray(event.files) ? event.files : []).slice(0, MAX_FILES_NAMED).map((file, i) => {
    const name =
      typeof file?.name === "string" ? file.name : typeof file?.title === "string" ? file.title : "";
    return name.slice(0, 200) || `file ${i + 1}`;
  });
  const direct = event.channel_type === "im";
  const mentioned =
    event.type === "app_mention" || (botUserId !== undefined && text.includes(`<@${botUserId}>`));
  // In a channel, answers go in a thread: the message's own, or the one it started.
  const threadId = event.thread_ts ?? (direct ? undefined : event.ts);
  return {
    dedupeKey: `${event.channel}:${event.ts}`,
    chatKey: threadId ? `${event.channel}:${threadId}` : event.channel,
    message: {
      text,
      envelope: {
        receivedAt: Math.round(Number(event.ts) * 1000) || Date.now(),
        channel: "slack",
        chatType: direct ? "direct" : "group",
        chatId: event.channel,
        ...(threadId ? { threadId } : {}),
        messageId: event.ts,
        senderId: event.user,
        ...(event.thread_ts && event.thread_ts !== event.ts ? { replyToMessageId: event.thread_ts } : {}),
        ...(direct ? {} : { mentioned }),
      },
      target: { chatId: event.channel, ...(threadId ? { threadId } : {}), messageId: event.ts },
      ...(files.length > 0 ? { unreadFiles: files } : {}),
    },
  };
}

interface BlockActionsPayload {
  type?: string;
  user?: { id?: string; name?: string; username?: string };
  channel?: { id?: string };
  container?: { message_ts?: string; thread_ts?: string };
  message?: { ts?: string; thread_ts?: string };
  actions?: { action_id?: string; value?: string }[];
  trigger_id?: string;
}

export function pressOfAction(payload: unknown): ButtonPress | undefined {
  const action = payload as BlockActionsPayload;
  if (action.type !== "block_actions") return undefined;
  const value = action.actions?.[0]?.value;
  const senderId = action.user?.id;
  const chatId = action.channel?.id;
  if (!value || !senderId || !chatId) return undefined;
  const messageId = action.container?.message_ts ?? action.message?.ts;
  const threadId = action.container?.thread_ts ?? action.message?.thread_ts;
  const name = action.user?.name ?? action.user?.username;
  return {
    id: action.trigger_id ?? `${chatId}:${messageId ?? ""}:${senderId}`,
    data: value,
    senderId,
    ...(name ? { senderName: name } : {}),
    chatId,
    ...(threadId ? { threadId } : {}),
    ...(messageId ? { messageId } : {}),
  };
}
