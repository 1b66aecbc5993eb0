// Slack over Socket Mode (@slack/socket-mode): serve opens a WebSocket to Slack (the URL comes
// from apps.connections.open, called with the app-level token) instead of exposing a Request URL,
// so a personal agent behind NAT needs nothing reachable from the internet. Each envelope (an
// events_api message or mention, an interactive button press) is stored through the same sink
// as an Events API request, and only then acknowledged with its envelope_id: a crash before the
// ack makes Slack deliver it again (retry_attempt), and the store's dedupe key (channel and ts)
// runs it once. The client reconnects by itself when Slack sends `disconnect` or the socket drops.
import type { Logger, LogLevel, SocketModeClient } from "@slack/socket-mode";
import { ResonError } from "../../core/errors.js";
import { importEsm } from "../../core/esm-import.js";
import type { ChannelLog, InboundSink, PressSink } from "../types.js";
import { deliveryOfEvent, pressOfAction } from "./slack-event.js";

type SocketMode = typeof import("@slack/socket-mode");

export interface SocketSessionOptions {
  appToken: string;
  apiUrl?: string;
  botUserId: string | undefined;
  sink: InboundSink;
  press?: PressSink;
  log: ChannelLog;
  /** Told when the socket is up (Slack's hello) or down, for `describe()`. */
  onState?: (state: "connected" | "reconnecting", error?: string) => void;
}

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

/** Holds a Socket Mode connection until `signal` aborts; envelopes are stored, then acknowledged. */
export async function holdSocketSession(options: SocketSessionOptions, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  const socketMode = await loadSocketMode();
  const { log, sink, press } = options;
  const scrub = (text: string) => text.split(options.appToken).join("<token>");
  const client: SocketModeClient = new socketMode.SocketModeClient({
    appToken: options.appToken,
    logger: channelLogger(log, scrub, socketMode.LogLevel.WARN),
    clientOptions: {
      ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
      retryConfig: { retries: 5, factor: 1.5 },
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
  client.on("connected", () => {
    options.onState?.("connected");
    log({ level: "info", message: "channel slack: connected over Socket Mode", channel: "slack" });
  });
  client.on("reconnecting", () => {
    options.onState?.("reconnecting");
    log({ level: "info", message: "channel slack: Socket Mode reconnecting", channel: "slack" });
  });
  const stopped = new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
  try {
    await Promise.race([client.start(), stopped]);
  } catch (error) {
    await client.disconnect().catch(() => {});
    throw new ResonError(
      "channel_unavailable",
      `Slack refused the Socket Mode connection: ${scrub(error instanceof Error ? error.message : String(error))}`,
      {
        hint: "Check channels.slack.appToken (xapp-…, an app-level token with connections:write) and that Socket Mode is on in the Slack app's settings.",
      },
    );
  }
  await stopped;
  await client.disconnect().catch(() => {});
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
