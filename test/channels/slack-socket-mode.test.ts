// Slack over Socket Mode through `reson serve` as a process: @slack/socket-mode connects to a fake
// Socket Mode server on loopback (its URL from apps.connections.open on the fake Web API), with no
// signing secret and no request URL. A mention in a channel is answered in its thread, a stranger
// gets a pairing code, a channel message without a mention is ignored; an envelope whose ack was
// lost comes again after a reconnect and runs once; the socket comes back after `disconnect` and
// after a drop; approval buttons come as interactive envelopes; a SIGKILL between receiving and
// answering, then a restart, gives exactly one answer.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { slackOnFakes, writeChannelsConfig } from "../support/channel-config.js";
import { type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, lastUserText, startFakeModelServer } from "../support/fake-model-server.js";
import { FAKE_SLACK_BOT, type FakeSlack, startFakeSlack } from "../support/fake-slack.js";
import { type FakeSlackSocket, startFakeSlackSocket } from "../support/fake-slack-socket.js";
import { type Served, startServed } from "../support/served-run.js";
import { killAllReson } from "../support/service-process.js";
import { toolMessagesOf } from "../support/waiting-command.js";

const BOT_TOKEN = "xoxb-test-token";
const APP_TOKEN = "xapp-1-test-app-token";
const OWNER = "UOWNER1";
const TEAM_CHANNEL = "C0TEAM";

function eventPayload(id: string, event: Record<string, unknown>) {
  return { type: "event_callback", event_id: id, team_id: "T1", event };
}

const dm = (id: string, text: string, ts: string, user = OWNER) =>
  eventPayload(id, { type: "message", channel: "D0DM", channel_type: "im", user, text, ts });

const answers = (slack: FakeSlack, text?: string) =>
  slack.posts.filter((p) => p.method === "chat.postMessage" && (text === undefined || p.text.includes(text)));

describe("Slack channel over Socket Mode in reson serve", () => {
  let model: FakeModelServer;
  let slack: FakeSlack;
  let socket: FakeSlackSocket;
  let ws: TempDir;

  const configure = (more: Record<string, unknown> = {}) => {
    writeChannelsConfig(ws.home, {
      slack: slackOnFakes(slack, model, {
        botToken: BOT_TOKEN,
        appToken: "<secret>slack_app</secret>",
        workspace: ws.path,
        owner: [OWNER],
        groups: [TEAM_CHANNEL],
        ...more,
      }),
    });
    // The app-level token as a secret reference, scoped to the Slack API host.
    writeFileSync(
      join(ws.home, "secrets.json"),
      JSON.stringify({ "http://127.0.0.1": { slack_app: APP_TOKEN } }),
      { mode: 0o600 },
    );
  };

  const serve = async (more: string[] = []): Promise<Served> => {
    const served = await startServed(ws.home, ws.path, more);
    await served.process.waitFor(/connected over Socket Mode/);
    return served;
  };

  beforeEach(async () => {
    model = await startFakeModelServer({
      respond: (request) => ({ text: `answer to: ${lastUserText(request).split("\n").at(-1)}` }),
    });
    socket = await startFakeSlackSocket();
    slack = await startFakeSlack({ botToken: BOT_TOKEN, socket: { appToken: APP_TOKEN, url: socket.url } });
    ws = tempDir();
  });
  afterEach(async () => {
    await killAllReson();
    await socket.close();
    await slack.close();
    await model.close();
    ws.remove();
  });

  it("answers a mention in its thread, gives a stranger a pairing code, ignores an unmentioned channel message; no request URL is served", async () => {
    configure();
    const served = await serve();
    expect(slack.calls).toContain("apps.connections.open");
    const events = await fetch(`${served.url}/channels/slack/events`, { method: "POST", body: "{}" });
    // No open Events API route: without serve's token the path is refused like any other.
    expect(events.status).toBe(401);

    await socket.deliver(
      "events_api",
      eventPayload("Ev1", {
        type: "message",
        channel: TEAM_CHANNEL,
        channel_type: "channel",
        user: OWNER,
        text: "lunch?",
        ts: "1700000050.000100",
      }),
    );
    await socket.deliver(
      "events_api",
      eventPayload("Ev2", {
        type: "app_mention",
        channel: TEAM_CHANNEL,
        channel_type: "channel",
        user: OWNER,
        text: `<@${FAKE_SLACK_BOT}> summarise the day`,
        ts: "1700000100.000200",
      }),
    );
    const answer = await slack.waitForPost((p) => p.method === "chat.postMessage");
    expect(answer).toMatchObject({ channel: TEAM_CHANNEL, thread_ts: "1700000100.000200" });
    expect(answer.text).toContain("summarise the day");
    expect(model.requests).toHaveLength(1);

    await socket.deliver("events_api", dm("Ev3", "hello?", "1700000150.000100", "USTRANGER"));
    const pairing = await slack.waitForPost(
      (p) => p.method === "chat.postMessage" && p.text.includes("pairing code"),
    );
    expect(pairing.channel).toBe("D0DM");
    expect(model.requests).toHaveLength(1);
    expect(served.process.stderr()).not.toContain(APP_TOKEN);
  });

  it("an envelope whose ack was lost comes again after Slack asks to reconnect and runs once; the socket also comes back after a drop", async () => {
    configure();
    await serve();
    socket.loseAcks(1);
    socket.send("events_api", dm("Ev10", "only once", "1700000200.000100"));
    await slack.waitForPost((p) => p.method === "chat.postMessage" && p.text.includes("only once"));

    socket.askToReconnect();
    await socket.waitForConnections(2);
    // The redelivery (retry_attempt 1) is acknowledged this time.
    for (let i = 0; i < 100 && socket.acks.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(socket.acks).toEqual(["env-1"]);
    await socket.deliver("events_api", dm("Ev11", "after reconnect", "1700000300.000100"));
    await slack.waitForPost((p) => p.method === "chat.postMessage" && p.text.includes("after reconnect"));

    socket.dropConnections();
    await socket.waitForConnections(3);
    await socket.deliver("events_api", dm("Ev12", "after a drop", "1700000400.000100"));
    await slack.waitForPost((p) => p.method === "chat.postMessage" && p.text.includes("after a drop"));
    expect(answers(slack, "only once")).toHaveLength(1);
    expect(model.requests).toHaveLength(3);
  });

  it("a drop while Slack's API fails keeps serve up: it waits (GET /channels says why), connects again and answers", async () => {
    configure();
    const served = await serve();
    // Before the fix the library's own reconnect threw past everything after its 6th failure
    // and serve died of the unhandled rejection; three are enough to see the waits now.
    slack.failConnectionsOpen(503, 503, 503);
    socket.dropConnections();
    let live: { state?: string; reason?: string; retryAt?: number } | undefined;
    for (let i = 0; i < 100 && live?.state !== "waiting"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const response = await fetch(`${served.url}/channels`, { headers: served.headers });
      live = ((await response.json()) as { channels: { live?: typeof live }[] }).channels[0]?.live;
    }
    expect(live).toMatchObject({ state: "waiting", reason: expect.stringContaining("503") });
    await socket.waitForConnections(2, 30_000);
    await socket.deliver("events_api", dm("Ev20", "after the outage", "1700000500.000100"));
    await slack.waitForPost((p) => p.method === "chat.postMessage" && p.text.includes("after the outage"));
    const waits = served.process
      .stderr()
      .split("\n")
      .filter((line) => line.includes("the Socket Mode connection got no answer"));
    expect(waits.map((line) => (JSON.parse(line) as { retryInMs: number }).retryInMs)).toEqual([
      1000, 2000, 4000,
    ]);
    expect(served.process.stderr()).not.toContain(APP_TOKEN);
  }, 60_000);

  it("stopped while it waits for Slack, serve ends at once and cleanly", async () => {
    configure();
    const served = await serve();
    slack.failConnectionsOpen(...Array.from({ length: 10 }, () => 503));
    socket.dropConnections();
    await served.process.waitFor(/the Socket Mode connection got no answer/);
    served.process.kill("SIGTERM");
    expect(await served.process.exited()).toEqual({ code: 0, signal: null });
  });

  it("an approval's buttons come as interactive envelopes: someone not allowed is refused, the owner's press lets the run go on", async () => {
    model.setResponder((request) => {
      if (toolMessagesOf(request).length === 0)
        return {
          toolCalls: [{ id: "call_1", name: "execute_command", arguments: { command: "echo x >> log.txt" } }],
        };
      return { text: "logged" };
    });
    configure({ permissionMode: "default" });
    await serve();
    await socket.deliver("events_api", dm("Ev20", "log it", "1700000500.000100"));
    const asking = await slack.waitForPost((p) => p.method === "chat.postMessage" && p.blocks !== undefined);
    const allow = asking
      .blocks!.find((b) => b.type === "actions")!
      .elements!.find((b) => b.text.text === "Allow once")!;
    const press = (user: string) =>
      socket.deliver("interactive", {
        type: "block_actions",
        user: { id: user, name: user.toLowerCase() },
        channel: { id: "D0DM" },
        container: { message_ts: asking.ts },
        actions: [{ action_id: "reson_0", value: allow.value }],
        trigger_id: `t-${user}`,
      });
    await press("UEVE");
    const refused = await slack.waitForPost((p) => p.method === "chat.postEphemeral");
    expect(refused).toMatchObject({ user: "UEVE", text: "You are not allowed to answer this." });
    expect(model.requests).toHaveLength(1);

    await press(OWNER);
    await slack.waitForPost((p) => p.method === "chat.postMessage" && p.text === "logged");
    expect(slack.posts.find((p) => p.method === "chat.update")?.text).toContain("allowed once by uowner1");
  });

  it("killed between receiving (acknowledged) and answering, then started again, answers exactly once", async () => {
    let calls = 0;
    model.setResponder((request) => {
      calls++;
      // The first call never answers in time: serve is killed while it waits.
      return calls === 1
        ? { text: "too late", delayMs: 60_000 }
        : { text: `answer to: ${lastUserText(request).split("\n").at(-1)}` };
    });
    configure();
    const first = await serve(["--lease-ttl", "2s"]);
    await socket.deliver("events_api", dm("Ev30", "survive this", "1700000600.000100"));
    for (let i = 0; i < 300 && model.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(model.requests).toHaveLength(1);
    first.process.kill("SIGKILL");
    await first.process.exited();
    expect(answers(slack)).toHaveLength(0);

    await serve(["--lease-ttl", "2s"]);
    const answer = await slack.waitForPost((p) => p.method === "chat.postMessage", 60_000);
    expect(answer.text).toBe("answer to: survive this");
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(answers(slack)).toHaveLength(1);
  });
});
