// Slack through Bolt's request verification and its Web API client, taking deliveries over
// Socket Mode (an app-level token: see slack-socket.ts) or the Events API, or both: Events API requests come to
// `POST /channels/slack/events` on serve, are checked against the signing secret (v0 HMAC-SHA256,
// five-minute window) before anything else, stored, and only then answered 200, so a crash never
// loses a message and Slack's retries (X-Slack-Retry-Num) find it stored and run nothing twice.
// Interactivity (block actions: approval buttons) comes to the same URL. Answers go out with
// chat.postMessage in the message's thread. `apiUrl` points the client at a fake in tests. Bolt
// is loaded when the channel starts. One serve holds the socket (a store lease, as Telegram's
// poller): Slack would spread envelopes over several connections and the store would run each
// once, but one connection keeps the app within Slack's limit of connections whatever the number
// of serve processes, and another serve takes over when the holder stops.
import { ResonError } from "../../core/errors.js";
import { importEsm } from "../../core/esm-import.js";
import { defineRoute, type Route, readRawBody } from "../../server/index.js";
import type { ReplyTarget, Store } from "../../store/index.js";
import { pollWhileHolding } from "../poller-lease.js";
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
import { deliveryOfEvent, pressOfAction } from "./slack-event.js";
import { holdSocketSession, type SocketState } from "./slack-socket.js";

type Bolt = typeof import("@slack/bolt");
type WebClient = InstanceType<Bolt["webApi"]["WebClient"]>;

export const SLACK_MAX_MESSAGE_CHARS = 4000;
/** The metadata event type that marks a message as one of reson's answers. */
const ANSWER_EVENT_TYPE = "reson_answer";

export interface SlackAdapterOptions {
  botToken: string;
  /** Events API requests are checked against it; without it, no request URL is served. */
  signingSecret?: string;
  /** An app-level token (xapp-…): deliveries come over Socket Mode. */
  appToken?: string;
  apiUrl?: string;
  store: Store;
  log: ChannelLog;
}

async function loadBolt(): Promise<Bolt> {
  const bolt = await importEsm<Bolt & { default?: Bolt }>("@slack/bolt");
  return typeof bolt.verifySlackRequest === "function" ? bolt : (bolt.default as Bolt);
}

export class SlackAdapter implements ChannelAdapter {
  readonly name = "slack";
  readonly maxMessageChars = SLACK_MAX_MESSAGE_CHARS;
  readonly #options: SlackAdapterOptions;
  #bolt: Bolt | undefined;
  #client: WebClient | undefined;
  #botUserId: string | undefined;
  /** Over Socket Mode: the socket's state, or standby while another serve holds the channel. */
  #socket: SocketState | { state: "standby" } | undefined;
  /** Whether auth.test has answered; until then, why it has not and when it is asked again. */
  #identified = false;
  #waiting: { reason: string; retryAt: number } | undefined;

  constructor(options: SlackAdapterOptions) {
    this.#options = options;
  }

  describe(): ChannelLive {
    return {
      ...this.#live(),
      platform: "slack",
      ...(this.#options.signingSecret ? { path: "/channels/slack/events" } : {}),
      ...(this.#socket ? { socketMode: this.#socket.state } : {}),
      ...(this.#botUserId ? { botUser: this.#botUserId } : {}),
    };
  }

  /** Events over HTTP are taken once auth.test answered; over Socket Mode, while the socket is up. */
  #live(): ChannelLive {
    if (this.#waiting) return { state: "waiting", ...this.#waiting };
    if (!this.#identified) return { state: "connecting" };
    const socket = this.#socket;
    if (!socket || socket.state === "connected") return { state: "taking" };
    if (socket.state === "waiting")
      return { state: "waiting", reason: socket.reason, retryAt: socket.retryAt };
    return { state: socket.state };
  }

  async start(sink: InboundSink, signal: AbortSignal, press?: PressSink): Promise<void> {
    const client = await this.#connect();
    const auth = await untilPlatformAnswers({
      channel: this.name,
      what: "auth.test",
      log: this.#options.log,
      signal,
      attempt: () => client.auth.test(),
      classify: (error) => this.#authFailure(error),
      onWait: (reason, retryAt) => {
        this.#waiting = { reason, retryAt };
      },
    });
    if (!auth) return;
    this.#waiting = undefined;
    this.#botUserId = typeof auth.user_id === "string" ? auth.user_id : undefined;
    this.#identified = true;
    const { appToken, store, log, apiUrl } = this.#options;
    log({
      level: "info",
      message: `channel slack: taking events as ${this.#botUserId ?? "the bot"}${appToken ? " over Socket Mode" : ""}`,
      channel: "slack",
    });
    if (!appToken) return;
    this.#socket = { state: "standby" };
    await pollWhileHolding({ store, channel: this.name, log, signal }, (held) => {
      this.#socket = { state: "connecting" };
      return holdSocketSession(
        {
          appToken,
          ...(apiUrl ? { apiUrl } : {}),
          botUserId: this.#botUserId,
          sink,
          ...(press ? { press } : {}),
          log,
          onState: (state) => {
            this.#socket = state;
          },
        },
        held,
      ).finally(() => {
        this.#socket = { state: "standby" };
      });
    });
  }

  async send(target: ReplyTarget, text: string, _signal: AbortSignal, outgoing?: OutgoingMessage) {
    if (!outgoing) return this.#post(target, text, undefined);
    // Every answer carries its stable id in the message's metadata, so a later attempt can find it.
    const metadata = {
      event_type: ANSWER_EVENT_TYPE,
      event_payload: { delivery: outgoing.id, attempt: outgoing.attemptId },
    };
    if (!outgoing.maybeSent) return this.#post(target, text, undefined, metadata);
    const found = await this.#findSent(target, outgoing);
    if (found === "found") {
      this.#options.log({
        level: "info",
        message: `channel slack: answer ${outgoing.id} was posted before the last restart; not posting it again`,
        channel: "slack",
      });
      return;
    }
    const marked = found === "absent" ? text : `${MAYBE_REPEAT_NOTICE}\n\n${text}`;
    await this.#post(target, marked, undefined, metadata);
  }

  /**
   * Whether an answer part is already in the conversation (by its metadata), read with
   * conversations.replies in a thread and conversations.history elsewhere; "unknown" when the
   * bot may not read it (the missing scopes are logged).
   */
  async #findSent(target: ReplyTarget, outgoing: OutgoingMessage): Promise<"found" | "absent" | "unknown"> {
    const client = await this.#connect();
    const oldest = (Math.max(0, (outgoing.sinceMs ?? Date.now()) - 60_000) / 1000).toFixed(6);
    const query = { channel: target.chatId, oldest, include_all_metadata: true, limit: 200 };
    try {
      const listing = target.threadId
        ? await client.conversations.replies({ ...query, ts: target.threadId })
        : await client.conversations.history(query);
      const messages = (listing.messages ?? []) as {
        user?: string;
        metadata?: { event_type?: string; event_payload?: { delivery?: unknown } };
      }[];
      // Only the bot's own message counts: another app in the chat could post the same metadata
      // to keep an answer from being sent.
      const posted = messages.some(
        (m) =>
          (this.#botUserId === undefined || m.user === this.#botUserId) &&
          m.metadata?.event_type === ANSWER_EVENT_TYPE &&
          m.metadata.event_payload?.delivery === outgoing.id,
      );
      return posted ? "found" : "absent";
    } catch (error) {
      const data = (error as { code?: string; data?: { error?: string; needed?: string; provided?: string } })
        .data;
      const { code, retryAfter } = error as { code?: string; retryAfter?: number };
      if (code !== "slack_webapi_platform_error" || !data)
        throw new ResonError(
          "channel_unavailable",
          `Slack did not answer the look-up of a possibly sent answer: ${this.#scrub(error)}`,
          {
            details: {
              maybeDelivered: true,
              // A 429: not asked again before the wait Slack names.
              ...(code === "slack_webapi_rate_limited_error" && typeof retryAfter === "number"
                ? { retryAfterMs: retryAfter * 1000 }
                : {}),
            },
          },
        );
      const missing = data.error === "missing_scope";
      this.#options.log({
        level: "warn",
        message: missing
          ? `channel slack: cannot check whether answer ${outgoing.id} was posted before the restart: the bot token lacks the scope ${data.needed ?? "(not named)"}; posting it again with a notice. Add the history scopes (channels:history, groups:history, im:history, mpim:history) to the Slack app to avoid repeats.`
          : `channel slack: cannot check whether answer ${outgoing.id} was posted before the restart (${data.error ?? "refused"}); posting it again with a notice`,
        channel: "slack",
        ...(missing ? { missingScopes: data.needed ?? null } : {}),
      });
      return "unknown";
    }
  }

  async ask(target: ReplyTarget, text: string, buttons: ChatButton[]): Promise<void> {
    await this.#post(target, text, [
      { type: "section", text: { type: "mrkdwn", text } },
      {
        type: "actions",
        elements: buttons.map((button, i) => ({
          type: "button",
          action_id: `reson_${i}`,
          text: { type: "plain_text", text: button.label },
          value: button.data,
        })),
      },
    ]);
  }

  async settlePress(press: ButtonPress, notice: string, result: string | undefined): Promise<void> {
    const client = await this.#connect();
    await client.chat.postEphemeral({
      channel: press.chatId,
      user: press.senderId,
      text: notice,
      ...(press.threadId ? { thread_ts: press.threadId } : {}),
    });
    if (result && press.messageId)
      await client.chat.update({ channel: press.chatId, ts: press.messageId, text: result, blocks: [] });
  }

  routes(sink: InboundSink, press?: PressSink): Route[] {
    const signingSecret = this.#options.signingSecret;
    if (!signingSecret) return [];
    return [
      defineRoute({
        method: "POST",
        path: "/channels/slack/events",
        summary: "Slack Events API and interactivity requests (checked against the app's signing secret)",
        tags: ["channels"],
        auth: "none",
        responses: { 200: { description: "taken (stored first)" } },
        handler: async ({ req, signal }) => {
          const raw = (await readRawBody(req, { limitBytes: 1024 * 1024, signal })).toString("utf8");
          const bolt = await this.#loadBolt();
          try {
            bolt.verifySlackRequest({
              signingSecret,
              body: raw,
              headers: {
                "x-slack-signature": String(req.headers["x-slack-signature"] ?? ""),
                "x-slack-request-timestamp": Number(req.headers["x-slack-request-timestamp"]),
              },
            });
          } catch {
            throw new ResonError(
              "channel_signature_invalid",
              "The Slack request was refused: its signature does not check out.",
              {
                hint: "Set channels.slack.signingSecret to the app's Signing Secret (Basic Information in the Slack app's settings).",
              },
            );
          }
          const payload = parseSlackBody(raw, String(req.headers["content-type"] ?? ""));
          if ((payload as { type?: string }).type === "url_verification")
            return { body: { challenge: (payload as { challenge?: string }).challenge ?? "" } };
          const delivery = deliveryOfEvent(payload, this.#botUserId);
          if (delivery) await sink(delivery);
          const pressed = pressOfAction(payload);
          if (pressed && press) await press(pressed);
          return { body: { ok: true } };
        },
      }),
    ];
  }

  async #post(
    target: ReplyTarget,
    text: string,
    blocks: unknown[] | undefined,
    metadata?: { event_type: string; event_payload: Record<string, string> },
  ): Promise<void> {
    const client = await this.#connect();
    try {
      await client.chat.postMessage({
        channel: target.chatId,
        text,
        // Slack fetches the links of a message to unfurl them: a link a fooled model wrote (or a
        // held request's URL in an approval prompt) would carry what the run read to its host.
        unfurl_links: false,
        unfurl_media: false,
        ...(target.threadId ? { thread_ts: target.threadId } : {}),
        ...(blocks ? { blocks: blocks as never } : {}),
        ...(metadata ? { metadata } : {}),
      });
    } catch (error) {
      const {
        code: kind,
        data,
        retryAfter,
      } = error as {
        code?: string;
        data?: { error?: string };
        retryAfter?: number;
      };
      const code = data?.error;
      const permanent = code === "channel_not_found" || code === "not_in_channel" || code === "is_archived";
      // Slack answered with an error, or with 429: not posted. No answer at all (a network error):
      // it may be.
      const limited = kind === "slack_webapi_rate_limited_error";
      const answered = kind === "slack_webapi_platform_error" || limited;
      throw new ResonError(
        permanent ? "channel_send_refused" : "channel_unavailable",
        `Slack did not take the message: ${this.#scrub(error)}`,
        !answered
          ? { details: { maybeDelivered: true } }
          : limited && typeof retryAfter === "number"
            ? { details: { retryAfterMs: retryAfter * 1000 } }
            : {},
      );
    }
  }

  /**
   * Slack answered auth.test with an error (invalid_auth, token_revoked…): a refusal. A 429 names
   * its wait; a 5xx or no answer at all is worth asking again.
   */
  #authFailure(error: unknown): PlatformFailure {
    const { code, retryAfter } = error as { code?: string; retryAfter?: number };
    if (code === "slack_webapi_platform_error")
      return {
        refused: new ResonError("channel_unavailable", `Slack refused the bot token: ${this.#scrub(error)}`, {
          hint: "Check channels.slack.botToken (xoxb-…) in $RESON_HOME/config.json, and channels.slack.apiUrl if set.",
        }),
      };
    return {
      reason: this.#scrub(error),
      ...(code === "slack_webapi_rate_limited_error" && typeof retryAfter === "number"
        ? { retryAfterMs: retryAfter * 1000 }
        : {}),
    };
  }

  async #loadBolt(): Promise<Bolt> {
    this.#bolt ??= await loadBolt();
    return this.#bolt;
  }

  async #connect(): Promise<WebClient> {
    if (this.#client) return this.#client;
    const bolt = await this.#loadBolt();
    this.#client = new bolt.webApi.WebClient(this.#options.botToken, {
      ...(this.#options.apiUrl ? { slackApiUrl: this.#options.apiUrl } : {}),
      // Sending is retried by the hub (the answer stays stored until sent), not inside the client;
      // a 429 is handed back at once with the wait Slack names, not slept out inside the client
      // (which then failed as if the post might have gone out).
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      logLevel: bolt.LogLevel.ERROR,
    });
    return this.#client;
  }

  #scrub(error: unknown): string {
    const text = error instanceof Error ? error.message : String(error);
    return text.split(this.#options.botToken).join("<token>");
  }
}

/** Events come as JSON; interactivity as a form with a JSON `payload` field. */
function parseSlackBody(raw: string, contentType: string): unknown {
  try {
    if (contentType.includes("application/x-www-form-urlencoded")) {
      const payload = new URLSearchParams(raw).get("payload");
      return payload ? JSON.parse(payload) : {};
    }
    return JSON.parse(raw);
  } catch {
    throw new ResonError("invalid_request", "The Slack request body is not what Slack sends.");
  }
}
