// Telegram through grammY: long polling (getUpdates) with the offset kept in the store, moved
// past a batch of updates only once they are stored, so a crash at any point redelivers rather
// than loses (and the store drops a message it already has by its chat and message id). After a
// long quiet the poll asks without an offset (see QUIET_MS). `apiRoot` points grammY at a local
// Bot API server, or at a fake one in tests. grammY is loaded when the channel starts.
import type { Bot } from "grammy";
import type { UserFromGetMe } from "grammy/types";
import { ResonError } from "../../core/errors.js";
import { importEsm } from "../../core/esm-import.js";
import type { ReplyTarget, Store } from "../../store/index.js";
import { pause, pollWhileHolding } from "../poller-lease.js";
import {
  type ButtonPress,
  type ChannelAdapter,
  type ChannelLive,
  type ChannelLog,
  type ChatButton,
  type InboundSink,
  MAYBE_REPEAT_NOTICE,
  type OutgoingMessage,
  type PressSink,
} from "../types.js";
import { type PlatformFailure, untilPlatformAnswers } from "../until-platform-answers.js";
import { deliveryOfUpdate, pressOfUpdate } from "./telegram-update.js";

export const TELEGRAM_MAX_MESSAGE_CHARS = 4096;
const OFFSET_KEY = "update_offset";
/** When the last update came (epoch ms), to know when the offset may no longer be trusted. */
const SEEN_AT_KEY = "update_seen_at";
/**
 * Telegram numbers updates in sequence, except that after a week without any it numbers the next
 * one at random, perhaps below the stored offset: a getUpdates with that offset would confirm it
 * unseen and the message would be lost. So after this long without an update (well inside the
 * week, whatever the clocks), and on a first start, the poll asks without an offset, which gives
 * every update not yet confirmed. That costs nothing: the polls with the offset confirmed all the
 * earlier ones, and one stored but not confirmed (a crash) comes again and is dropped as stored.
 */
const QUIET_MS = 24 * 60 * 60 * 1000;
/**
 * Every message goes out without a link preview: Telegram's servers fetch the first link of a
 * message to preview it, so a link a fooled model wrote into its answer (or a held request's URL
 * in an approval prompt) would carry what the run read to the host it names, unasked.
 */
const NO_PREVIEW = { link_preview_options: { is_disabled: true } } as const;

export interface TelegramAdapterOptions {
  token: string;
  apiRoot?: string;
  pollTimeoutS?: number;
  store: Store;
  log: ChannelLog;
}

export class TelegramAdapter implements ChannelAdapter {
  readonly name = "telegram";
  readonly maxMessageChars = TELEGRAM_MAX_MESSAGE_CHARS;
  readonly #options: TelegramAdapterOptions;
  #bot: Bot | undefined;
  #me: UserFromGetMe | undefined;
  #live: ChannelLive = { state: "connecting" };

  constructor(options: TelegramAdapterOptions) {
    this.#options = options;
  }

  describe(): ChannelLive {
    return {
      ...this.#live,
      platform: "telegram",
      ...(this.#me ? { bot: `@${this.#me.username}` } : {}),
      ...(this.#options.apiRoot ? { apiRoot: this.#options.apiRoot } : {}),
    };
  }

  async start(sink: InboundSink, signal: AbortSignal, press?: PressSink): Promise<void> {
    const { store, log } = this.#options;
    const bot = await this.#identify(signal);
    const me = this.#me;
    if (!bot || !me) return;
    log({ level: "info", message: `channel telegram: polling as @${me.username}`, channel: "telegram" });
    this.#live = { state: "standby" };
    await pollWhileHolding({ store, channel: this.name, log, signal }, (held) => {
      this.#live = { state: "taking" };
      return this.#poll(bot, me, sink, held, press).finally(() => {
        this.#live = { state: "standby" };
      });
    });
  }

  async #poll(
    bot: Bot,
    me: UserFromGetMe,
    sink: InboundSink,
    signal: AbortSignal,
    press: PressSink | undefined,
  ): Promise<void> {
    const { store, log } = this.#options;
    let failures = 0;
    while (!signal.aborted) {
      const stored = await store.channels.getState(this.name, OFFSET_KEY);
      const seenAt = Number((await store.channels.getState(this.name, SEEN_AT_KEY)) ?? "0");
      const offset = stored !== undefined && Date.now() - seenAt < QUIET_MS ? Number(stored) : undefined;
      let updates: Awaited<ReturnType<Bot["api"]["getUpdates"]>>;
      try {
        updates = await bot.api.getUpdates(
          {
            ...(offset !== undefined ? { offset } : {}),
            timeout: this.#options.pollTimeoutS ?? 25,
            allowed_updates: ["message", "callback_query"],
          },
          grammySignal(signal),
        );
        failures = 0;
        if (this.#live.state !== "taking") this.#live = { state: "taking" };
      } catch (error) {
        if (signal.aborted) return;
        failures++;
        const { error_code: status, parameters } = error as {
          error_code?: unknown;
          parameters?: { retry_after?: unknown };
        };
        // A 429 names its wait; 409: another program takes this bot's updates (a second poller
        // outside this store, or a webhook set on the bot), which Telegram will not share.
        const named = status === 429 ? parameters?.retry_after : undefined;
        const waitMs =
          typeof named === "number" && named > 0
            ? Math.min(60 * 60_000, named * 1000)
            : Math.min(30_000, 500 * 2 ** Math.min(failures, 6));
        const reason = this.#scrub(error);
        this.#live = { state: "waiting", reason, retryAt: Date.now() + waitMs };
        log({
          level: "warn",
          message: `channel telegram: getUpdates failed (${reason}); trying again in ${Math.ceil(waitMs / 1000)} s`,
          channel: "telegram",
          retryInMs: waitMs,
          ...(status === 409
            ? {
                hint: "Another program takes this bot's updates: stop the other poller, or remove the bot's webhook (deleteWebhook); reson polls with getUpdates.",
              }
            : {}),
        });
        await pause(waitMs, signal);
        continue;
      }
      if (updates.length === 0) continue;
      for (const update of updates) {
        const delivery = deliveryOfUpdate(update, me);
        if (delivery) await sink(delivery);
        const pressed = pressOfUpdate(update);
        if (pressed && press) await press(pressed);
      }
      // Only now may Telegram forget them: the next getUpdates with this offset confirms them all.
      // After a quiet the ids may have started again anywhere, so the batch's own ids set it.
      const next = Math.max(...updates.map((update) => update.update_id)) + 1;
      if (stored !== undefined && next <= Number(stored))
        log({
          level: "info",
          message: `channel telegram: update ids started again at ${next - 1} (below ${stored}) after a quiet; polling from there`,
          channel: "telegram",
        });
      await store.channels.setState(this.name, OFFSET_KEY, String(next));
      await store.channels.setState(this.name, SEEN_AT_KEY, String(Date.now()));
    }
  }

  async send(
    target: ReplyTarget,
    text: string,
    signal: AbortSignal,
    outgoing?: OutgoingMessage,
  ): Promise<void> {
    // The Bot API cannot read back what the bot sent: a part that may have gone out already is
    // sent again with a notice, so a reader who sees it twice knows why.
    if (!outgoing?.maybeSent) return this.#sendMessage(target, text, undefined, signal);
    const marked = `${MAYBE_REPEAT_NOTICE}\n\n${text}`;
    if (marked.length <= this.maxMessageChars) return this.#sendMessage(target, marked, undefined, signal);
    await this.#sendMessage(target, MAYBE_REPEAT_NOTICE, undefined, signal);
    await this.#sendMessage(target, text, undefined, signal);
  }

  async ask(target: ReplyTarget, text: string, buttons: ChatButton[], signal: AbortSignal): Promise<void> {
    // One button per row: labels stay readable on a phone.
    await this.#sendMessage(
      target,
      text,
      buttons.map((b) => [{ text: b.label, callback_data: b.data }]),
      signal,
    );
  }

  async acknowledgePress(press: ButtonPress, notice: string, signal: AbortSignal): Promise<void> {
    const bot = await this.#connect(signal);
    await bot.api.answerCallbackQuery(press.id, { text: notice }, grammySignal(signal));
  }

  async settlePress(
    press: ButtonPress,
    notice: string | undefined,
    result: string | undefined,
    signal: AbortSignal,
  ) {
    const bot = await this.#connect(signal);
    if (notice) await bot.api.answerCallbackQuery(press.id, { text: notice }, grammySignal(signal));
    if (result && press.messageId)
      await bot.api.editMessageText(
        press.chatId,
        Number(press.messageId),
        result,
        NO_PREVIEW,
        grammySignal(signal),
      );
  }

  async #sendMessage(
    target: ReplyTarget,
    text: string,
    keyboard: { text: string; callback_data: string }[][] | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const bot = await this.#connect(signal);
    try {
      await bot.api.sendMessage(
        target.chatId,
        text,
        {
          ...NO_PREVIEW,
          ...(target.threadId ? { message_thread_id: Number(target.threadId) } : {}),
          ...(target.messageId
            ? {
                reply_parameters: { message_id: Number(target.messageId), allow_sending_without_reply: true },
              }
            : {}),
          ...(keyboard ? { reply_markup: { inline_keyboard: keyboard } } : {}),
        },
        grammySignal(signal),
      );
    } catch (error) {
      const { error_code: status, parameters } = error as {
        error_code?: unknown;
        parameters?: { retry_after?: unknown };
      };
      // 400/403: the chat is gone or blocked the bot; sending again would never succeed.
      const permanent = status === 400 || status === 403;
      // Without an answer from the Bot API (a network error), the message may have gone out.
      const maybeDelivered = typeof status !== "number" && !signal.aborted;
      // 429 (flood control) says how long to wait; a send before then is refused again and
      // may lengthen the wait.
      const retryAfter = status === 429 ? parameters?.retry_after : undefined;
      throw new ResonError(
        permanent ? "channel_send_refused" : "channel_unavailable",
        `Telegram did not take the message: ${this.#scrub(error)}`,
        maybeDelivered
          ? { details: { maybeDelivered } }
          : typeof retryAfter === "number" && retryAfter > 0
            ? { details: { retryAfterMs: retryAfter * 1000 } }
            : {},
      );
    }
  }

  async typing(target: ReplyTarget, signal: AbortSignal): Promise<void> {
    const bot = await this.#connect(signal);
    await bot.api.sendChatAction(
      target.chatId,
      "typing",
      target.threadId ? { message_thread_id: Number(target.threadId) } : {},
      grammySignal(signal),
    );
  }

  /** The bot once Telegram answers getMe, asked again while it does not (see untilPlatformAnswers). */
  async #identify(signal: AbortSignal): Promise<Bot | undefined> {
    if (this.#bot && this.#me) return this.#bot;
    const bot = await this.#newBot();
    const me = await untilPlatformAnswers({
      channel: this.name,
      what: "getMe",
      log: this.#options.log,
      signal,
      attempt: () => bot.api.getMe(grammySignal(signal)),
      classify: (error) => this.#getMeFailure(error),
      onWait: (reason, retryAt) => {
        this.#live = { state: "waiting", reason, retryAt };
      },
    });
    if (!me) return undefined;
    this.#me = me;
    this.#bot = bot;
    return bot;
  }

  /** For a send: the bot, with one getMe if start has not had its answer yet. */
  async #connect(signal: AbortSignal): Promise<Bot> {
    if (this.#bot && this.#me) return this.#bot;
    const bot = await this.#newBot();
    try {
      this.#me = await bot.api.getMe(grammySignal(signal));
    } catch (error) {
      const failure = this.#getMeFailure(error);
      if ("refused" in failure) throw failure.refused;
      throw new ResonError("channel_unavailable", `Telegram did not answer: ${failure.reason}`);
    }
    this.#bot = bot;
    return bot;
  }

  async #newBot(): Promise<Bot> {
    const grammy = await importEsm<typeof import("grammy") & { default?: typeof import("grammy") }>("grammy");
    const Bot = grammy.Bot ?? grammy.default?.Bot;
    return new Bot(this.#options.token, {
      client: { ...(this.#options.apiRoot ? { apiRoot: this.#options.apiRoot } : {}) },
    });
  }

  /**
   * 401 and 404 are Telegram's answers to a token it does not know: a refusal. A 429 names its
   * wait; a 5xx or no answer at all (the network) is worth asking again.
   */
  #getMeFailure(error: unknown): PlatformFailure {
    const { error_code: status, parameters } = error as {
      error_code?: unknown;
      parameters?: { retry_after?: unknown };
    };
    if (status === 401 || status === 403 || status === 404)
      return {
        refused: new ResonError(
          "channel_unavailable",
          `Telegram refused the bot token: ${this.#scrub(error)}`,
          {
            hint: "Check channels.telegram.token in $RESON_HOME/config.json (the token @BotFather gave) and channels.telegram.apiRoot if set.",
          },
        ),
      };
    const retryAfter = status === 429 ? parameters?.retry_after : undefined;
    return {
      reason: this.#scrub(error),
      ...(typeof retryAfter === "number" && retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
    };
  }

  /** An error's message without the token (grammY puts it in request URLs). */
  #scrub(error: unknown): string {
    const text = error instanceof Error ? error.message : String(error);
    return text.split(this.#options.token).join("<token>");
  }
}

/** grammY types its signal as the abort-controller polyfill's; Node's own is what it gets. */
function grammySignal(signal: AbortSignal): Parameters<Bot["api"]["getMe"]>[0] {
  return signal as unknown as Parameters<Bot["api"]["getMe"]>[0];
}
