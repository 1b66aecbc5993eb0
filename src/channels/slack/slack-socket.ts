// Slack over Socket Mode (@slack/socket-mode): serve opens a WebSocket to Slack (the URL comes
// from apps.connections.open, called with the app-level token) instead of exposing a Request URL,
// so a personal agent behind NAT needs nothing reachable from the internet. Each envelope (an
// events_api message or mention, an interactive button press) is stored through the same sink
// as an Events API request, and only then acknowledged with its envelope_id: a crash before the
// ack makes Slack deliver it again (retry_attempt), and the store's dedupe key (channel and ts)
// runs it once. When Slack sends `disconnect` or the socket drops, this session connects again
// itself (the library's own reconnect is off: a reconnect that found Slack's API down threw where
// nobody could catch it, and `reson serve` died of the unhandled rejection). Slack not answering
// is waited out (the wait a 429 names, else 1 s doubling to a minute); a token it refuses stops
// the channel with a hint.
import type { Logger, LogLevel, SocketModeClient } from "@slack/socket-mode";
import { ResonError } from "../../core/errors.js";
import { importEsm } from "../../core/esm-import.js";
import { pause } from "../poller-lease.js";
import type { ChannelLog, InboundSink, PressSink } from "../types.js";
import { type PlatformFailure, untilPlatformAnswers } from "../until-platform-answers.js";
import { deliveryOfEvent, pressOfAction } from "./slack-event.js";

type SocketMode = typeof import("@slack/socket-mode");

export interface SocketSessionOptions {
  appToken: string;
  apiUrl?: string;
  botUserId: string | undefined;
  sink: InboundSink;
  press?: PressSink;
  log: ChannelLog;
  /** Told when the socket is up (Slack's hello), being opened, or waiting for Slack to answer. */
  onState?: (state: SocketState) => void;
}

export type SocketState =
  | { state: "connected" }
  | { state: "connecting" }
  | { state: "waiting"; reason: string; retryAt: number };

/** What apps.connections.open answers for an app-level token Slack will not take. */
const REFUSALS = new Set([
  "not_authed",
  "invalid_auth",
  "account_inactive",
  "user_removed_from_team",
  "team_disabled",
  "not_allowed_token_type",
  "token_revoked",
  "token_expired",
]);
/** A connection that ends sooner than this after it opened counts as a quick drop (backed off). */
const QUICK_DROP_MS = 10_000;

async function loadSocketMode(): Promise<SocketMode> {
  const module = await importEsm<SocketMode & { default?: SocketMode }>("@slack/socket-mode");
  return typeof module.SocketModeClient === "function" ? module : (module.default as SocketMode);
}

interface SlackEnvelope {
  ack: () => Promise<void>;
  envelope_id?: string;
  type?: string;
  body?: unknown;
  retry_num?: number;
}

/**
 * Holds a Socket Mode connection until `signal` aborts, connecting again whenever it ends;
 * envelopes are stored, then acknowledged. Rejects only when Slack refuses the app-level token.
 */
export async function holdSocketSession(options: SocketSessionOptions, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  const socketMode = await loadSocketMode();
  const { log } = options;
  const scrub = (text: string) => text.split(options.appToken).join("<token>");
  const stopped = new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
  let quickDrops = 0;
  while (!signal.aborted) {
    options.onState?.({ state: "connecting" });
    const client = socketClient(socketMode, options, scrub);
    const connected = await untilPlatformAnswers({
      channel: "slack",
      what: "the Socket Mode connection",
      log,
      signal,
      // A start still opening when serve stops gives way to the stop.
      attempt: () => Promise.race([client.start(), stopped.then(() => undefined)]),
      classify: (error) => socketFailure(error, scrub),
      onWait: (reason, retryAt) => options.onState?.({ state: "waiting", reason, retryAt }),
    }).catch(async (error: unknown) => {
      await client.disconnect().catch(() => {});
      throw error;
    });
    if (connected === undefined) {
      await client.disconnect().catch(() => {});
      return;
    }
    const openedAt = Date.now();
    // Listened for only now: a start that failed on the way also ends in "disconnected".
    const closed = new Promise<void>((resolve) => client.once("disconnected", () => resolve()));
    options.onState?.({ state: "connected" });
    log({ level: "info", message: "channel slack: connected over Socket Mode", channel: "slack" });
    await Promise.race([closed, stopped]);
    await client.disconnect().catch(() => {});
    if (signal.aborted) return;
    // Slack's `disconnect` (a refresh) is answered at once; a socket that keeps dropping right
    // after it opened is backed off, so a broken network or proxy is not hammered.
    quickDrops = Date.now() - openedAt < QUICK_DROP_MS ? quickDrops + 1 : 0;
    const waitMs = quickDrops > 1 ? Math.min(60_000, 1000 * 2 ** (quickDrops - 2)) : 0;
    log({
      level: "info",
      message: `channel slack: Socket Mode connection closed; connecting again${waitMs > 0 ? ` in ${waitMs / 1000} s` : ""}`,
      channel: "slack",
    });
    if (waitMs > 0) await pause(waitMs, signal);
  }
}

/** One Socket Mode client: envelopes stored then acknowledged; no reconnects of its own. */
function socketClient(
  socketMode: SocketMode,
  options: SocketSessionOptions,
  scrub: (text: string) => string,
): SocketModeClient {
  const { log, sink, press } = options;
  const client: SocketModeClient = new socketMode.SocketModeClient({
    appToken: options.appToken,
    logger: channelLogger(log, scrub, socketMode.LogLevel.WARN),
    autoReconnectEnabled: false,
    clientOptions: {
      ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
      // Waits and tries again are this session's: a 429 comes back with its wait.
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    },
  });
  client.on("slack_event", (envelope: SlackEnvelope) => {
    void (async () => {
      try {
        if (envelope.type === "events_api") {
          const delivery = deliveryOfEvent(envelope.body, options.botUserId);
          if (delivery) await sink(delivery);
        } else if (envelope.type === "interactive") {
          const pressed = pressOfAction(envelope.body);
          if (pressed && press) await press(pressed);
        }
      } catch (error) {
        // Not stored: no ack, so Slack delivers the envelope again.
        log({
          level: "warn",
          message: `channel slack: envelope ${envelope.envelope_id ?? "?"} not stored (${scrub(String(error))}); Slack will send it again`,
          channel: "slack",
        });
        return;
      }
      // The socket may have dropped since: then Slack sends it again and the store has it already.
      await envelope.ack().catch(() => {});
    })();
  });
  return client;
}

/** A Socket Mode start that failed: a token Slack refuses, a 429 with its wait, or anything to try again. */
function socketFailure(error: unknown, scrub: (text: string) => string): PlatformFailure {
  const { code, data, retryAfter } = error as {
    code?: string;
    data?: { error?: string };
    retryAfter?: number;
  };
  const reason = scrub(error instanceof Error ? error.message : String(error));
  if (code === "slack_webapi_platform_error" && REFUSALS.has(data?.error ?? ""))
    return {
      refused: new ResonError("channel_unavailable", `Slack refused the Socket Mode connection: ${reason}`, {
        hint: "Check channels.slack.appToken (xapp-…, an app-level token with connections:write) and that Socket Mode is on in the Slack app's settings.",
      }),
    };
  return {
    reason,
    ...(code === "slack_webapi_rate_limited_error" && typeof retryAfter === "number"
      ? { retryAfterMs: retryAfter * 1000 }
      : {}),
  };
}

/** The library's log lines into the channel log (warnings and errors only), without the token. */
function channelLogger(log: ChannelLog, scrub: (text: string) => string, level: LogLevel): Logger {
  let current = level;
  const write =
    (kind: "warn" | "error") =>
    (...message: unknown[]) =>
      log({
        level: kind,
        message: `channel slack (socket mode): ${scrub(message.map(String).join(" "))}`,
        channel: "slack",
      });
  return {
    debug: () => {},
    info: () => {},
    warn: write("warn"),
    error: write("error"),
    setLevel: (next) => {
      current = next;
    },
    getLevel: () => current,
    setName: () => {},
  };
}
