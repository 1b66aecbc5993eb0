// A chat platform that does not answer when `reson serve` starts (the network came up late, a
// 5xx, a 429) must not leave the channel dead until serve is restarted: through `reson serve`,
// grammY and @slack/web-api against the fake platforms, serve asks again (the wait a 429 names,
// else 1 s doubling) and then answers the owner. A token the platform refuses is an answer: the
// channel stops with the error and its hint, and asks no more. Later refusals of a poll (409:
// another program takes the bot's updates; 429) are logged with their hint and wait.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { slackOnFakes, telegramOnFakes, writeChannelsConfig } from "../support/channel-config.js";
import { type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, lastUserText, startFakeModelServer } from "../support/fake-model-server.js";
import { FAKE_SLACK_BOT, type FakeSlack, slackSignature, startFakeSlack } from "../support/fake-slack.js";
import { FAKE_BOT, type FakeTelegram, startFakeTelegram } from "../support/fake-telegram.js";
import { type Served, startServed } from "../support/served-run.js";
import { killAllReson } from "../support/service-process.js";

const TOKEN = "123456:TEST-down";
const OWNER = 42;
const BOT_TOKEN = "xoxb-down-token";
const SIGNING_SECRET = "slack-signing-secret";
const SLACK_OWNER = "UOWNER1";

interface Live {
  state: string;
  reason?: string;
  hint?: string;
  retryAt?: number;
}

/** GET /channels: how the channel stands in this serve. */
async function liveOf(served: Served, channel: string): Promise<Live | undefined> {
  const response = await fetch(`${served.url}/channels`, { headers: served.headers });
  const { channels } = (await response.json()) as { channels: { name: string; live?: Live }[] };
  return channels.find((c) => c.name === channel)?.live;
}

/** The serve log's JSON lines of one channel. */
function channelLog(
  stderr: string,
  channel: string,
): { level: string; message: string; retryInMs?: number }[] {
  return stderr
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map(
      (line) => JSON.parse(line) as { level: string; message: string; channel?: string; retryInMs?: number },
    )
    .filter((entry) => entry.channel === channel || entry.message.includes(`channel ${channel}`));
}

describe("a chat platform that does not answer when serve starts", () => {
  let model: FakeModelServer;
  let ws: TempDir;

  beforeEach(async () => {
    model = await startFakeModelServer({
      respond: (request) => ({ text: `answer to: ${lastUserText(request).split("\n").at(-1)}` }),
    });
    ws = tempDir();
  });
  afterEach(async () => {
    await killAllReson();
    await model.close();
    ws.remove();
  });

  describe("Telegram", () => {
    let telegram: FakeTelegram;
    beforeEach(async () => {
      telegram = await startFakeTelegram({ token: TOKEN });
    });
    afterEach(async () => {
      await telegram.close();
    });

    it("asks getMe again through 502s and a 429, then polls and answers the owner", async () => {
      writeChannelsConfig(ws.home, {
        telegram: telegramOnFakes(telegram, model, {
          token: TOKEN,
          workspace: ws.path,
          owner: [String(OWNER)],
        }),
      });
      telegram.failGetMe(502, 502, 429);
      const served = await startServed(ws.home, ws.path);
      // Serve is up while Telegram is not: GET /channels says the channel waits, why, and until when.
      let waiting = await liveOf(served, "telegram");
      for (let i = 0; i < 50 && waiting?.state !== "waiting"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        waiting = await liveOf(served, "telegram");
      }
      expect(waiting).toMatchObject({ state: "waiting", reason: expect.stringContaining("502") });
      expect(waiting!.retryAt).toBeGreaterThan(Date.now() - 5000);
      telegram.send({ chatId: OWNER, fromId: OWNER, text: "are you up" });
      const answer = await telegram.waitForSent((m) => m.text.includes("are you up"));
      expect(answer.text).toBe("answer to: are you up");
      expect(telegram.calls.filter((c) => c === "getMe")).toHaveLength(4);
      const retries = channelLog(served.process.stderr(), "telegram").filter(
        (e) => e.retryInMs !== undefined,
      );
      // 1 s, then 2 s, then the 1 s the 429 named.
      expect(retries.map((e) => e.retryInMs)).toEqual([1000, 2000, 1000]);
      expect(retries[0]!.message).toContain("getMe got no answer");
      expect(retries[0]!.level).toBe("warn");
      expect(await liveOf(served, "telegram")).toEqual({
        state: "taking",
        platform: "telegram",
        bot: `@${FAKE_BOT.username}`,
        apiRoot: telegram.apiRoot,
      });
      // The token never reaches the log.
      expect(served.process.stderr()).not.toContain(TOKEN);
    });

    it("a getUpdates refused with 409 (another poller) or 429 is logged with its hint and wait, the state says waiting, and polling goes on", async () => {
      writeChannelsConfig(ws.home, {
        telegram: telegramOnFakes(telegram, model, {
          token: TOKEN,
          workspace: ws.path,
          owner: [String(OWNER)],
        }),
      });
      telegram.failGetUpdates(409, 429);
      const served = await startServed(ws.home, ws.path);
      await served.process.waitFor(/getUpdates failed .*409/);
      const waiting = await liveOf(served, "telegram");
      expect(waiting).toMatchObject({ state: "waiting", reason: expect.stringContaining("409") });
      telegram.send({ chatId: OWNER, fromId: OWNER, text: "still there" });
      const answer = await telegram.waitForSent((m) => m.text.includes("still there"));
      expect(answer.text).toBe("answer to: still there");
      const failures = channelLog(served.process.stderr(), "telegram").filter((e) =>
        e.message.includes("getUpdates failed"),
      ) as { retryInMs?: number; hint?: string }[];
      expect(failures.map((e) => e.retryInMs)).toEqual([1000, 1000]);
      expect(failures[0]!.hint).toContain("deleteWebhook");
      expect(failures[1]!.hint).toBeUndefined();
      expect((await liveOf(served, "telegram"))?.state).toBe("taking");
    });

    it("stops on a token Telegram refuses, with the hint, and asks no more", async () => {
      writeChannelsConfig(ws.home, {
        telegram: telegramOnFakes(telegram, model, {
          token: TOKEN,
          workspace: ws.path,
          owner: [String(OWNER)],
        }),
      });
      telegram.failGetMe(401);
      const served = await startServed(ws.home, ws.path);
      await served.process.waitFor(
        /channel telegram stopped taking messages: Telegram refused the bot token/,
      );
      const stopped = channelLog(served.process.stderr(), "telegram").find((e) => e.level === "error")!;
      expect(stopped).toMatchObject({ hint: expect.stringContaining("channels.telegram.token") });
      expect(telegram.calls.filter((c) => c === "getMe")).toHaveLength(1);
      expect(telegram.calls).not.toContain("getUpdates");
      expect(await liveOf(served, "telegram")).toMatchObject({
        state: "stopped",
        reason: expect.stringContaining("Telegram refused the bot token"),
        hint: expect.stringContaining("channels.telegram.token"),
      });
      expect(served.process.stderr()).not.toContain(TOKEN);
    });
  });

  describe("Slack", () => {
    let slack: FakeSlack;
    beforeEach(async () => {
      slack = await startFakeSlack({ botToken: BOT_TOKEN });
    });
    afterEach(async () => {
      await slack.close();
    });

    it("asks auth.test again through a 503 and a 429, then answers a mention in its thread", async () => {
      writeChannelsConfig(ws.home, {
        slack: slackOnFakes(slack, model, {
          botToken: BOT_TOKEN,
          signingSecret: SIGNING_SECRET,
          workspace: ws.path,
          owner: [SLACK_OWNER],
          groups: ["C0TEAM"],
        }),
      });
      slack.failAuthTests(503, 429);
      const served = await startServed(ws.home, ws.path);
      await served.process.waitFor(/channel slack: taking events as/);
      expect(slack.calls.filter((c) => c === "auth.test")).toHaveLength(3);
      const retries = channelLog(served.process.stderr(), "slack").filter((e) => e.retryInMs !== undefined);
      // 1 s after the 503, then the 1 s the 429 named (not 2 s of back-off).
      expect(retries.map((e) => e.retryInMs)).toEqual([1000, 1000]);
      expect(served.process.stderr()).toContain(`taking events as ${FAKE_SLACK_BOT}`);
      expect(await liveOf(served, "slack")).toMatchObject({ state: "taking", botUser: FAKE_SLACK_BOT });

      const body = JSON.stringify({
        type: "event_callback",
        event_id: "EvDown1",
        team_id: "T1",
        event: {
          type: "app_mention",
          channel: "C0TEAM",
          channel_type: "channel",
          user: SLACK_OWNER,
          text: `<@${FAKE_SLACK_BOT}> are you up`,
          ts: "1700000200.000100",
        },
      });
      const delivered = await fetch(`${served.url}/channels/slack/events`, {
        method: "POST",
        headers: { "content-type": "application/json", ...slackSignature(SIGNING_SECRET, body) },
        body,
      });
      expect(delivered.status).toBe(200);
      const answer = await slack.waitForPost((p) => p.method === "chat.postMessage");
      expect(answer).toMatchObject({ channel: "C0TEAM", thread_ts: "1700000200.000100" });
      expect(answer.text).toContain("are you up");
      expect(served.process.stderr()).not.toContain(BOT_TOKEN);
    });
  });
});
