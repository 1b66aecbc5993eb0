// A Telegram update as an inbound delivery: text messages from private chats, groups and forum
// topics, with their envelope (who, where, which message, whether the bot was named), and a
// file (a document, photo, video, audio or voice note) taken for its caption, the file named as
// not read. Anything else (edits, channel posts, stickers) is not a task and is acknowledged
// without a message.
import type { Message, Update, UserFromGetMe } from "grammy/types";
import type { ButtonPress, InboundDelivery } from "../types.js";

export function deliveryOfUpdate(update: Update, me: UserFromGetMe): InboundDelivery | undefined {
  const message = update.message;
  if (!message?.from || message.from.is_bot) return undefined;
  const files = unreadFilesOf(message);
  const text =
    typeof message.text === "string" ? message.text : files.length > 0 ? (message.caption ?? "") : undefined;
  if (text === undefined) return undefined;
  const chatType = message.chat.type === "private" ? "direct" : "group";
  const threadId =
    message.is_topic_message && message.message_thread_id ? String(message.message_thread_id) : undefined;
  const chatId = String(message.chat.id);
  const from = message.from;
  const name = [from.first_name, from.last_name].filter(Boolean).join(" ");
  return {
    // The message's own identity, not the update_id: Telegram numbers updates anew at random
    // after a week without any, so a new message may come with an update_id an old one had.
    dedupeKey: `${chatId}:${message.message_id}`,
    chatKey: threadId ? `${chatId}:${threadId}` : chatId,
    message: {
      text,
      envelope: {
        receivedAt: message.date * 1000,
        channel: "telegram",
        chatType,
        chatId,
        ...(threadId ? { threadId } : {}),
        messageId: String(message.message_id),
        senderId: String(from.id),
        ...(name ? { senderName: name } : {}),
        ...(from.username ? { senderUsername: from.username } : {}),
        ...(message.reply_to_message
          ? { replyToMessageId: String(message.reply_to_message.message_id) }
          : {}),
        ...(chatType === "direct" ? {} : { mentioned: mentions(message, me) }),
      },
      target: {
        chatId,
        ...(threadId ? { threadId } : {}),
        messageId: String(message.message_id),
      },
      ...(files.length > 0 ? { unreadFiles: files } : {}),
    },
  };
}

/** What a message carries besides text that reson does not read (yet), by name where it has one. */
function unreadFilesOf(message: Message): string[] {
  if (message.document) return [message.document.file_name ?? "a document"];
  if (message.photo) return ["a photo"];
  if (message.video) return [message.video.file_name ?? "a video"];
  if (message.audio) return [message.audio.file_name ?? "an audio file"];
  if (message.voice) return ["a voice message"];
  return [];
}

/** Named with @username in the text, or a reply to one of the bot's own messages. */
function mentions(message: Message, me: UserFromGetMe): boolean {
  if (message.reply_to_message?.from?.id === me.id) return true;
  const text = message.text ?? message.caption ?? "";
  const handle = `@${me.username}`.toLowerCase();
  return (message.entities ?? message.caption_entities ?? []).some(
    (entity) =>
      entity.type === "mention" &&
      text.slice(entity.offset, entity.offset + entity.length).toLowerCase() === handle,
  );
}

/** A pressed inline-keyboard button, as a press for the hub. */
export function pressOfUpdate(update: Update): ButtonPress | undefined {
  const query = update.callback_query;
  if (!query?.data || !query.message) return undefined;
  const message = query.message;
  const name = [query.from.first_name, query.from.last_name].filter(Boolean).join(" ");
  const threadId =
    "message_thread_id" in message && message.message_thread_id
      ? String(message.message_thread_id)
      : undefined;
  return {
    id: query.id,
    data: query.data,
    senderId: String(query.from.id),
    ...(name ? { senderName: name } : {}),
    chatId: String(message.chat.id),
    ...(threadId ? { threadId } : {}),
    messageId: String(message.message_id),
  };
}
