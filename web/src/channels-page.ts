// The chat channels of this serve (GET /channels): who may talk to the agent on each, the chat
// sessions each has opened (links to their pages), and the senders waiting to pair with their
// codes, each with an Approve and a Deny button (POST /channels/{channel}/pairings/{code}/approve
// or /deny).
import { api } from "./api.js";
import { h, visible } from "./dom.js";

export interface ChannelView {
  name: string;
  platform: string;
  workspace: string;
  dmPolicy: string;
  groups: number;
  sessions: { chat: string; sessionId: string; createdAt: number }[];
  openMessages: number;
  pendingPairings: number;
  /** How it stands in this serve; absent when serve runs no channels. */
  live?: { state: string; reason?: string; hint?: string; retryAt?: number };
}

export interface PairingView {
  channel: string;
  senderId: string;
  senderName: string | null;
  status: string;
  role: string;
  code: string | null;
  expiresAt: number | null;
  approvedAt: number | null;
}

export interface ChannelsData {
  channels: ChannelView[];
  pairings: PairingView[];
}

export async function readChannels(): Promise<ChannelsData> {
  const [{ channels }, { pairings }] = await Promise.all([
    api<{ channels: ChannelView[] }>("GET", "/channels"),
    api<{ pairings: PairingView[] }>("GET", "/channels/pairings"),
  ]);
  return { channels, pairings };
}

const when = (ms: number) => new Date(ms).toLocaleString();

/** A table that scrolls sideways on its own at phone width (keyboard-reachable, named). */
const scrolling = (label: string, table: Node) =>
  h("div", { class: "table-scroll", role: "region", "aria-label": label, tabindex: "0" }, table);

/** The page, once read; `changed` is called after a pairing was approved (to read it again). */
export function channelsView(data: ChannelsData, changed: () => void): Node[] {
  if (data.channels.length === 0)
    return [
      h("h1", {}, "Channels"),
      h(
        "p",
        { class: "muted" },
        "No chat channels configured. Add Telegram, Slack or a webhook under channels in $RESON_HOME/config.json (README, Channels) and restart reson serve.",
      ),
    ];
  const now = Date.now();
  const pending = data.pairings.filter(
    (p) => p.status === "pending" && p.code !== null && (p.expiresAt === null || p.expiresAt > now),
  );
  return [
    h("h1", {}, "Channels"),
    scrolling(
      "channels",
      h(
        "table",
        { id: "channels" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ...["channel", "state", "workspace", "direct messages", "groups", "sessions", "unanswered"].map(
              (c) => h("th", { scope: "col" }, c),
            ),
          ),
        ),
        h(
          "tbody",
          {},
          ...data.channels.map((c) =>
            h(
              "tr",
              { "data-channel": c.name },
              h("td", {}, c.name),
              h("td", { class: "channel-state" }, ...liveState(c.live)),
              h("td", { class: "wide" }, c.workspace),
              h("td", {}, c.dmPolicy),
              h("td", { class: "num" }, c.groups),
              h("td", { class: "num" }, c.sessions.length),
              h("td", { class: "num" }, c.openMessages),
            ),
          ),
        ),
      ),
    ),
    pairingsSection(pending, changed),
    ...data.channels.map(sessionsSection),
  ];
}

const STATE_WORDS: Record<string, string> = {
  connecting: "connecting",
  waiting: "waiting for the platform",
  taking: "taking messages",
  standby: "standby: another serve polls it",
  stopped: "stopped",
};

/** The channel's state in words; why it waits (and when it tries again) or stopped, and what to do. */
function liveState(live: ChannelView["live"]): Node[] {
  if (!live) return [h("span", { class: "muted" }, "not running here")];
  const tone =
    live.state === "taking"
      ? " ok"
      : live.state === "stopped"
        ? " bad"
        : live.state === "standby"
          ? ""
          : " warn";
  const word = h(
    "span",
    { class: `pill${tone}`, "data-state": live.state },
    STATE_WORDS[live.state] ?? live.state,
  );
  const next = live.retryAt ? ` Next try ${new Date(live.retryAt).toLocaleTimeString()}.` : "";
  const why = live.reason ? h("div", { class: "muted" }, `${live.reason}.${next}`) : undefined;
  const hint = live.hint ? h("div", {}, live.hint) : undefined;
  return [word, ...(why ? [why] : []), ...(hint ? [hint] : [])];
}

function pairingsSection(pending: PairingView[], changed: () => void): Node {
  const heading = h("h2", { id: "pairings-title" }, "Waiting to pair");
  if (pending.length === 0)
    return h(
      "section",
      { "aria-labelledby": "pairings-title" },
      heading,
      h("p", { class: "muted", id: "no-pairings" }, "Nobody is waiting to pair."),
    );
  return h(
    "section",
    { "aria-labelledby": "pairings-title" },
    heading,
    scrolling(
      "senders waiting to pair",
      h(
        "table",
        { id: "pairings" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ...["channel", "sender", "code", "expires", "approve or deny"].map((c) =>
              h("th", { scope: "col" }, c),
            ),
          ),
        ),
        h("tbody", {}, ...pending.map((p) => pairingRow(p, changed))),
      ),
    ),
  );
}

function pairingRow(p: PairingView, changed: () => void): Node {
  const who = p.senderName ? `${p.senderName} (${p.senderId})` : p.senderId;
  const status = h("span", { role: "status" });
  const act = (label: "Approve" | "Deny", action: "approve" | "deny") => {
    const button = h(
      "button",
      {
        type: "button",
        "aria-label": `${label} ${who} on ${p.channel}`,
        click: async () => {
          for (const b of buttons) (b as HTMLButtonElement).disabled = true;
          try {
            await api(
              "POST",
              `/channels/${encodeURIComponent(p.channel)}/pairings/${encodeURIComponent(p.code ?? "")}/${action}`,
              {},
            );
            changed();
          } catch (error) {
            for (const b of buttons) (b as HTMLButtonElement).disabled = false;
            status.textContent = visible(error instanceof Error ? error.message : String(error));
          }
        },
      },
      label,
    );
    return button;
  };
  // Deny: a sender who writes only to hold a code is refused for good, and the slot is free.
  const buttons = [act("Approve", "approve"), act("Deny", "deny")];
  return h(
    "tr",
    { "data-code": p.code ?? "" },
    h("td", {}, p.channel),
    h("td", {}, who),
    h("td", {}, h("code", {}, p.code ?? "")),
    h("td", {}, p.expiresAt ? when(p.expiresAt) : "-"),
    h("td", {}, ...buttons, status),
  );
}

function sessionsSection(c: ChannelView): Node {
  const id = `sessions-${c.name.replace(/[^a-z0-9]/gi, "-")}`;
  return h(
    "section",
    { "aria-labelledby": id },
    h("h2", { id }, `Sessions of ${c.name}`),
    c.sessions.length === 0
      ? h("p", { class: "muted" }, "No chat has talked to the agent here yet.")
      : h(
          "ul",
          { class: "channel-sessions" },
          ...c.sessions.map((s) =>
            h(
              "li",
              {},
              h("a", { href: `#/sessions/${encodeURIComponent(s.sessionId)}` }, s.chat),
              ` since ${when(s.createdAt)}`,
            ),
          ),
        ),
  );
}
