// A fake Telegram Bot API for tests: plain node:http on 127.0.0.1 answering the methods reson's
// Telegram channel calls through grammY (getMe, getUpdates with long polling and offsets,
// sendMessage, sendChatAction), as Telegram does: /bot<token>/<method>, JSON in and
// {"ok": true, "result": …} out, 401 for another token. A getUpdates with an offset confirms
// and forgets every update below it and gives those from it on; without an offset it gives
// every update not confirmed yet. `restartIds` numbers the next updates anew, as Telegram
// does after a week without updates (its ids may then fall below an offset already given).
//
//   const telegram = await startFakeTelegram({ token: "123:abc" });
//   telegram.apiRoot                         // give to channels.telegram.apiRoot
//   telegram.send({ chatId: 42, fromId: 42, text: "hi" })   // a user writes; returns the update_id
//   await telegram.waitForSent((m) => m.chat_id === 42)     // what the bot sent
//   telegram.redeliver(updateId)             // the same update again, as after a lost ack
//   telegram.restartIds(500)                 // the next update_id is 500 again
//
// Link previews as Telegram makes them: a message (sent or edited) whose link previews are not
// disabled has its first link fetched before the send is answered, as Telegram's servers fetch
// it to show a preview; `previewed` lists those links.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export const FAKE_BOT = { id: 999_000, is_bot: true, first_name: "Reson", username: "reson_test_bot" };

export interface SentMessage {
  chat_id: number | string;
  text: string;
  reply_markup?: { inline_keyboard: { text: string; callback_data: string }[][] };
  message_thread_id?: number;
  reply_parameters?: { message_id: number };
  /** The id the fake gave the message. */
  message_id?: number;
}

export interface UserMessage {
  chatId: number;
  fromId: number;
  text: string;
  firstName?: string;
  username?: string;
  /** "private" (default when chatId === fromId) or "supergroup". */
  chatType?: "private" | "supergroup";
  /** A forum topic. */
  threadId?: number;
  replyToBot?: boolean;
  /** Sent with a file: `text` is then its caption ("" for none). */
  file?: { kind: "document"; name: string } | { kind: "photo" };
}

export interface FakeTelegram {
  apiRoot: string;
  send(message: UserMessage): number;
  redeliver(updateId: number): void;
  /** The next update gets `nextId` as its update_id, and the ones after it count on from there. */
  restartIds(nextId: number): void;
  /**
   * The next `count` sendMessage calls are delivered (they appear in `sent`) and answered only
   * after `delayMs`, as from a slow platform or one that makes the bot wait (429 retry_after).
   */
  delaySends(count: number, delayMs: number): void;
  /** The offset of each getUpdates call, undefined for a call without one. */
  readonly polls: (number | undefined)[];
  /** The next `count` sendMessage calls fail with HTTP 502, as when Telegram is down. */
  failSends(count: number): void;
  /**
   * The next getMe calls are answered, one each, with these HTTP statuses (502: Telegram down;
   * 429: flood control, `retry_after: 1`; 401: the token refused).
   */
  failGetMe(...statuses: number[]): void;
  /** The next getUpdates calls are answered, one each, with these HTTP statuses (409, 429, 502…). */
  failGetUpdates(...statuses: number[]): void;
  /**
   * Flood control: the next sendMessage is refused with 429 and `retry_after: seconds`, and so
   * is every one until that wait is over (each counted in `floodRefusals`).
   */
  floodWait(seconds: number): void;
  /** sendMessage calls refused by flood control. */
  readonly floodRefusals: number;
  /**
   * The next `count` sendMessage calls are delivered (they appear in `sent`) but never answered,
   * as when the sender dies before it hears back.
   */
  holdSends(count: number): void;
  /**
   * The next `count` answerCallbackQuery calls are recorded but never answered, as when the bot
   * dies while acknowledging a press.
   */
  holdPressAnswers(count: number): void;
  /** A user presses an inline-keyboard button under one of the bot's messages. */
  press(options: { fromId: number; chatId: number; messageId: number; data: string }): void;
  /** answerCallbackQuery calls: what the presser was told. */
  readonly pressAnswers: { callback_query_id: string; text?: string }[];
  /** editMessageText calls. */
  readonly edits: { chat_id: number | string; message_id: number; text: string }[];
  readonly sent: SentMessage[];
  readonly actions: { chat_id: number | string; action: string; message_thread_id?: number }[];
  /** Every method called, in order. */
  readonly calls: string[];
  /** Links fetched for a preview, in order. */
  readonly previewed: string[];
  waitForSent(match: (message: SentMessage) => boolean, timeoutMs?: number): Promise<SentMessage>;
  close(): Promise<void>;
}

export async function startFakeTelegram(options: { token: string }): Promise<FakeTelegram> {
  const updates: { update_id: number; message: Record<string, unknown> }[] = [];
  const sent: SentMessage[] = [];
  const actions: FakeTelegram["actions"] = [];
  const calls: string[] = [];
  const pressAnswers: FakeTelegram["pressAnswers"] = [];
  const edits: FakeTelegram["edits"] = [];
  const previewed: string[] = [];
  /** Fetches the message's first link, as Telegram does for a preview, unless previews are off. */
  const preview = async (body: Record<string, unknown>) => {
    const options = body.link_preview_options as { is_disabled?: boolean } | undefined;
    if (options?.is_disabled === true || body.disable_web_page_preview === true) return;
    const link = /https?:\/\/[^\s<>"]+/.exec(String(body.text ?? ""))?.[0];
    if (!link) return;
    previewed.push(link);
    await fetch(link, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
  };
  const forced: { update_id: number; message: Record<string, unknown> }[] = [];
  const history = new Map<number, Record<string, unknown>>();
  const polls: (number | undefined)[] = [];
  const pollers = new Set<() => void>();
  const sentWaiters = new Set<() => void>();
  let nextUpdateId = 500;
  let nextMessageId = 1;
  let failingSends = 0;
  const getMeFailures: number[] = [];
  const updateFailures: number[] = [];
  let floodArmed: number | undefined;
  let floodUntil = 0;
  let floodRefusals = 0;
  let holdingSends = 0;
  let delayingSends = { count: 0, ms: 0 };
  let holdingPressAnswers = 0;

  const wakePollers = () => {
    for (const wake of pollers) wake();
  };

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };

  const readBody = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };

  const pending = (offset = 0) => [...forced, ...updates.filter((u) => u.update_id >= offset)];
  const confirm = (offset: number | undefined) => {
    if (offset === undefined) return;
    for (let i = updates.length - 1; i >= 0; i--) if (updates[i]!.update_id < offset) updates.splice(i, 1);
  };

  const server = createServer(async (req, res) => {
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.url?.split("?")[0] ?? "");
    if (!match) return answer(res, 404, { ok: false, error_code: 404, description: "Not Found" });
    const [, token, method] = match;
    if (token !== options.token)
      return answer(res, 401, { ok: false, error_code: 401, description: "Unauthorized" });
    const body = await readBody(req);
    calls.push(method!);
    switch (method) {
      case "getMe": {
        const status = getMeFailures.shift();
        if (status === undefined) return answer(res, 200, { ok: true, result: FAKE_BOT });
        return answer(res, status, {
          ok: false,
          error_code: status,
          description: status === 429 ? "Too Many Requests: retry after 1" : `HTTP ${status}`,
          ...(status === 429 ? { parameters: { retry_after: 1 } } : {}),
        });
      }
      case "getUpdates": {
        const failure = updateFailures.shift();
        if (failure !== undefined)
          return answer(res, failure, {
            ok: false,
            error_code: failure,
            description:
              failure === 409
                ? "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"
                : failure === 429
                  ? "Too Many Requests: retry after 1"
                  : `HTTP ${failure}`,
            ...(failure === 429 ? { parameters: { retry_after: 1 } } : {}),
          });
        const offset = typeof body.offset === "number" ? body.offset : undefined;
        polls.push(offset);
        confirm(offset);
        const timeoutMs = Number(body.timeout ?? 0) * 1000;
        if (pending(offset).length === 0 && timeoutMs > 0) {
          await new Promise<void>((resolve) => {
            const done = () => {
              clearTimeout(timer);
              pollers.delete(done);
              resolve();
            };
            const timer = setTimeout(done, timeoutMs);
            pollers.add(done);
            res.on("close", done);
          });
        }
        const result = pending(offset);
        forced.length = 0;
        return answer(res, 200, { ok: true, result });
      }
      case "answerCallbackQuery":
        pressAnswers.push(body as FakeTelegram["pressAnswers"][number]);
        for (const wake of sentWaiters) wake();
        if (holdingPressAnswers > 0) {
          holdingPressAnswers--;
          return;
        }
        return answer(res, 200, { ok: true, result: true });
      case "editMessageText":
        await preview(body);
        edits.push(body as FakeTelegram["edits"][number]);
        return answer(res, 200, { ok: true, result: true });
      case "sendMessage": {
        if (floodArmed !== undefined) {
          floodUntil = Date.now() + floodArmed * 1000;
          floodArmed = undefined;
        }
        if (Date.now() < floodUntil) {
          floodRefusals++;
          const retryAfter = Math.ceil((floodUntil - Date.now()) / 1000);
          return answer(res, 429, {
            ok: false,
            error_code: 429,
            description: `Too Many Requests: retry after ${retryAfter}`,
            parameters: { retry_after: retryAfter },
          });
        }
        if (failingSends > 0) {
          failingSends--;
          return answer(res, 502, { ok: false, error_code: 502, description: "Bad Gateway" });
        }
        await preview(body);
        const messageId = nextMessageId++;
        sent.push({ ...(body as unknown as SentMessage), message_id: messageId } as SentMessage);
        for (const wake of sentWaiters) wake();
        if (holdingSends > 0) {
          holdingSends--;
          return;
        }
        if (delayingSends.count > 0) {
          delayingSends.count--;
          await new Promise((resolve) => setTimeout(resolve, delayingSends.ms));
        }
        return answer(res, 200, {
          ok: true,
          result: {
            message_id: messageId,
            date: Math.floor(Date.now() / 1000),
            chat: { id: body.chat_id, type: "private" },
            from: FAKE_BOT,
            text: body.text,
          },
        });
      }
      case "sendChatAction":
        actions.push(body as FakeTelegram["actions"][number]);
        return answer(res, 200, { ok: true, result: true });
      default:
        return answer(res, 404, { ok: false, error_code: 404, description: `Not Found: method ${method}` });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    apiRoot: `http://127.0.0.1:${port}`,
    sent,
    actions,
    calls,
    previewed,
    polls,
    pressAnswers,
    edits,
    failSends(count) {
      failingSends = count;
    },
    failGetMe(...statuses) {
      getMeFailures.push(...statuses);
    },
    failGetUpdates(...statuses) {
      updateFailures.push(...statuses);
    },
    floodWait(seconds) {
      floodArmed = seconds;
    },
    get floodRefusals() {
      return floodRefusals;
    },
    holdSends(count) {
      holdingSends = count;
    },
    delaySends(count, delayMs) {
      delayingSends = { count, ms: delayMs };
    },
    restartIds(nextId) {
      nextUpdateId = nextId;
    },
    holdPressAnswers(count) {
      holdingPressAnswers = count;
    },
    press({ fromId, chatId, messageId, data }) {
      const updateId = nextUpdateId++;
      updates.push({
        update_id: updateId,
        callback_query: {
          id: `cq${updateId}`,
          from: { id: fromId, is_bot: false, first_name: `User${fromId}` },
          chat_instance: "ci",
          data,
          message: {
            message_id: messageId,
            date: Math.floor(Date.now() / 1000),
            chat: { id: chatId, type: "private" },
            from: FAKE_BOT,
            text: "(buttons)",
          },
        },
      } as unknown as { update_id: number; message: Record<string, unknown> });
      wakePollers();
    },
    send(message) {
      const updateId = nextUpdateId++;
      const chatType = message.chatType ?? (message.chatId === message.fromId ? "private" : "supergroup");
      const text = message.text;
      const mention = `@${FAKE_BOT.username}`;
      const at = text.indexOf(mention);
      const update = {
        update_id: updateId,
        message: {
          message_id: nextMessageId++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: message.chatId, type: chatType, ...(chatType === "private" ? {} : { title: "team" }) },
          from: {
            id: message.fromId,
            is_bot: false,
            first_name: message.firstName ?? `User${message.fromId}`,
            ...(message.username ? { username: message.username } : {}),
          },
          ...fileFields(
            message.file,
            text,
            at >= 0 ? [{ type: "mention", offset: at, length: mention.length }] : [],
          ),
          ...(message.threadId ? { message_thread_id: message.threadId, is_topic_message: true } : {}),
          ...(message.replyToBot
            ? {
                reply_to_message: {
                  message_id: 1,
                  date: 0,
                  chat: { id: message.chatId, type: chatType },
                  from: FAKE_BOT,
                },
              }
            : {}),
        },
      };
      history.set(updateId, update.message);
      updates.push(update);
      wakePollers();
      return updateId;
    },
    redeliver(updateId) {
      // As if the acknowledgement were lost: the update comes again, whatever the offset.
      const message = history.get(updateId);
      if (!message) throw new Error(`no update ${updateId} to redeliver`);
      forced.push({ update_id: updateId, message });
      wakePollers();
    },
    waitForSent(match, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = sent.find(match);
          if (!found) return;
          cleanup();
          resolve(found);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `the bot sent no matching message within ${timeoutMs} ms; sent: ${JSON.stringify(sent)}`,
            ),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          sentWaiters.delete(check);
        };
        sentWaiters.add(check);
        check();
      });
    },
    async close() {
      wakePollers();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A text message's text and entities, or a file message's caption and caption entities. */
function fileFields(file: UserMessage["file"], text: string, entities: unknown[]): Record<string, unknown> {
  const withEntities = (key: string) => (entities.length > 0 ? { [key]: entities } : {});
  if (!file) return { text, ...withEntities("entities") };
  const caption = text ? { caption: text, ...withEntities("caption_entities") } : {};
  if (file.kind === "photo")
    return { photo: [{ file_id: "P1", file_unique_id: "P1u", width: 90, height: 90 }], ...caption };
  return { document: { file_id: "D1", file_unique_id: "D1u", file_name: file.name }, ...caption };
}
