// `reson channel list|status|pair`: the chat channels of $RESON_HOME/config.json, their chat
// sessions and messages on their way, and the pairing codes strangers got (approve one to let
// its sender talk to the agent; --owner makes them the owner, whose messages are trusted input;
// deny one to refuse its sender for good).
// It reads and writes the store directly: serve need not run. A running serve records there how
// each channel stands in it (taking messages, waiting for its platform, stopped), which status shows.
import { join } from "node:path";
import {
  approvePairing,
  type ChannelView,
  channelViews,
  configuredChannels,
  denyPairing,
  type LiveReport,
  liveReports,
  type PairingView,
  pairingViews,
  removePairing,
} from "../channels/index.js";
import { type ChannelsConfig, loadConfig } from "../config/index.js";
import { ResonError } from "../core/errors.js";
import type { Store } from "../store/index.js";
import { EXIT_OK } from "./exit-codes.js";
import { withStore } from "./store-commands.js";

export const CHANNEL_HELP = `reson channel: chat channels of reson serve (README "Channels")

Usage:
  reson channel list [--json]              configured channels (channels in $RESON_HOME/config.json)
  reson channel status [--json]            each channel's state in a running serve, its chat
                                           sessions, open messages, pairings
  reson channel pair list [--json]         senders who asked to pair (codes) and those approved
  reson channel pair approve <channel> <code> [--owner]
                                           let the code's sender talk to the agent (--owner: their
                                           messages count as yours, not as untrusted input)
  reson channel pair deny <channel> <code|sender-id>
                                           refuse a sender waiting to pair: their slot is free,
                                           and they get no code again (until removed)
  reson channel pair remove <channel> <sender-id>
                                           forget a sender (approved, pending or denied)
`;

async function userChannels(): Promise<ChannelsConfig | undefined> {
  const loaded = await loadConfig({ workspace: process.cwd() });
  const userFile = join(loaded.home, "config.json");
  return loaded.sources.find((s) => s.name === userFile)?.values.channels;
}

function print(json: boolean, value: unknown, text: () => string): number {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : text());
  return EXIT_OK;
}

type StatusView = ChannelView & { live: LiveReport[] };

function liveText(reports: LiveReport[]): string {
  if (reports.length === 0) return "  live: no reson serve runs this channel now\n";
  return reports
    .map((r) => {
      const where = `serve pid ${r.serve.pid} on ${r.serve.host}`;
      const retry = r.retryAt ? `, asks again at ${new Date(r.retryAt).toISOString()}` : "";
      const why = r.reason ? `: ${r.reason}${retry}` : "";
      const hint = r.hint ? `\n    ${r.hint}` : "";
      return `  live: ${r.state} in ${where}${why}${hint}\n`;
    })
    .join("");
}

function statusText(channels: StatusView[]): string {
  if (channels.length === 0)
    return 'No channels are configured (channels in $RESON_HOME/config.json; README "Channels").\n';
  return channels
    .map((c) => {
      const head = `${c.name}  workspace ${c.workspace}  senders: ${c.dmPolicy}  groups: ${c.groups}  open messages: ${c.openMessages}  pending pairings: ${c.pendingPairings}\n`;
      const sessions = c.sessions.map((s) => `  chat ${s.chat} -> session ${s.sessionId}\n`).join("");
      return head + liveText(c.live) + (sessions || "  no chat sessions yet\n");
    })
    .join("");
}

function pairingText(pairings: PairingView[]): string {
  if (pairings.length === 0) return "No pairings: nobody has asked to talk to the agent yet.\n";
  return pairings
    .map((p) => {
      const who = `${p.senderId}${p.senderName ? ` (${p.senderName})` : ""}`;
      if (p.status === "approved") return `${p.channel}  ${who}  approved as ${p.role}\n`;
      if (p.status === "denied") return `${p.channel}  ${who}  denied\n`;
      const until = p.expiresAt ? new Date(p.expiresAt).toISOString() : "";
      return `${p.channel}  ${who}  ${p.status}  code ${p.code ?? "-"}  ${p.status === "pending" ? `until ${until}` : ""}\n`;
    })
    .join("");
}

async function pair(store: Store, args: string[], values: Record<string, unknown>): Promise<number> {
  const [action, channel, value] = args;
  const json = values.json === true;
  if (action === undefined || action === "list") {
    const pairings = await pairingViews(store, channel);
    return print(json, { pairings }, () => pairingText(pairings));
  }
  if (action === "approve") {
    if (!channel || !value)
      throw new ResonError("usage_error", "Say which channel and code.", {
        hint: "reson channel pair approve <channel> <code>  (the sender got the code in the chat)",
      });
    const approved = await approvePairing(store, channel, value, values.owner === true ? "owner" : "allowed");
    return print(
      json,
      approved,
      () =>
        `approved ${approved.senderId}${approved.senderName ? ` (${approved.senderName})` : ""} on ${channel} as ${approved.role}\n`,
    );
  }
  if (action === "deny") {
    if (!channel || !value)
      throw new ResonError("usage_error", "Say which channel and code (or sender id).", {
        hint: "reson channel pair deny <channel> <code>  (reson channel pair list shows who waits)",
      });
    const denied = await denyPairing(store, channel, value);
    return print(
      json,
      denied,
      () =>
        `denied ${denied.senderId}${denied.senderName ? ` (${denied.senderName})` : ""} on ${channel}: no code and no answer for them until you remove the pairing\n`,
    );
  }
  if (action === "remove") {
    if (!channel || !value)
      throw new ResonError("usage_error", "Say which channel and sender.", {
        hint: "reson channel pair remove <channel> <sender-id>  (reson channel pair list shows them)",
      });
    const removed = await removePairing(store, channel, value);
    if (!removed)
      throw new ResonError("not_found", `No pairing of ${value} on ${channel}.`, {
        hint: "reson channel pair list shows them.",
      });
    return print(json, { removed: true }, () => `removed ${value} from ${channel}\n`);
  }
  throw new ResonError("usage_error", `Unknown pair action "${action}".`, {
    hint: "list, approve, deny or remove",
  });
}

export function channelCommand(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h") {
    process.stdout.write(CHANNEL_HELP);
    return Promise.resolve(EXIT_OK);
  }
  const options = { json: { type: "boolean" }, owner: { type: "boolean" } } as const;
  return withStore(argv, options, async (store, values, positionals) => {
    const [sub, ...rest] = positionals;
    const json = values.json === true;
    if (sub === "list") {
      const channels = configuredChannels(await userChannels());
      return print(json, { channels }, () =>
        channels.length === 0
          ? 'No channels are configured (channels in $RESON_HOME/config.json; README "Channels").\n'
          : channels
              .map((c) => `${c.name}  ${c.platform}  workspace ${c.workspace}  senders: ${c.dmPolicy}\n`)
              .join(""),
      );
    }
    if (sub === "status") {
      const views = await channelViews(store, await userChannels());
      const channels: StatusView[] = await Promise.all(
        views.map(async (view) => ({ ...view, live: await liveReports(store, view.name) })),
      );
      return print(json, { channels }, () => statusText(channels));
    }
    if (sub === "pair") return pair(store, rest, values);
    throw new ResonError("usage_error", `Unknown channel command "${sub ?? ""}".`, { hint: CHANNEL_HELP });
  });
}
