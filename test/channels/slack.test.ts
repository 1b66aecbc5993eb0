// Slack through `reson serve` as a process: signed Events API requests in (Bolt's verification),
// answers out through @slack/web-api to a fake Web API on loopback: a mention in a channel is
// answered in its thread; Slack's retried delivery (X-Slack-Retry-Num) runs once; a forged
// signature is refused; an approval's buttons pressed by someone not allowed change nothing, and the
// owner's press, delivered twice, is applied once and names them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { startAttacker } from "../support/attacker.js";
import { slackOnFakes, writeChannelsConfig } from "../support/channel-config.js";
import { type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, lastUserText, startFakeModelServer } from "../support/fake-model-server.js";
import { FAKE_SLACK_BOT, type FakeSlack, slackSignature, startFakeSlack } from "../support/fake-slack.js";
import { type Served, startServed } from "../support/served-run.js";
import { killAllReson } from "../support/service-process.js";
import { toolMessagesOf } from "../support/waiting-command.js";

const BOT_TOKEN = "xoxb-test-token";
const SIGNING_SECRET = "slack-signing-secret";
const OWNER = "UOWNER1";
const TEAM_CHANNEL = "C0TEAM";

function event(id: string, event: Record<string, unknown>): string {
  return JSON.stringify({ type: "event_callback", event_id: id, team_id: "T1", event });
}

async function deliver(
  served: Served,
  body: string,
  more: Record<string, string> = {},
  secret = SIGNING_SECRET,
) {
  return fetch(`${served.url}/channels/slack/events`, {
    method: "POST",
    headers: { "content-type": "application/json", ...slackSignature(secret, body), ...more },
    body,
  });
}

describe("Slack channel in reson serve", () => {
  let model: FakeModelServer;
  let slack: FakeSlack;
  let ws: TempDir;

  const configure = (more: Record<string, unknown> = {}) => {
    writeChannelsConfig(ws.home, {
      slack: slackOnFakes(slack, model, {
        botToken: BOT_TOKEN,
        signingSecret: SIGNING_SECRET,
        workspace: ws.path,
        owner: [OWNER],
        groups: [TEAM_CHANNEL],
        ...more,
      }),
    });
  };

  beforeEach(async () => {
    model = await startFakeModelServer({
      respond: (request) => ({ text: `answer to: ${lastUserText(request).split("\n").at(-1)}` }),
    });
    slack = await startFakeSlack({ botToken: BOT_TOKEN });
    ws = tempDir();
  });
  afterEach(async () => {
    await killAllReson();
    await slack.close();
    await model.close();
    ws.remove();
  });

  it("answers a mention in a channel in its thread; a retried delivery runs once; a forged signature is refused", async () => {
    configure();
    const served = await startServed(ws.home, ws.path);
    const mention = event("Ev1", {
      type: "app_mention",
      channel: TEAM_CHANNEL,
      channel_type: "channel",
      user: OWNER,
      text: `<@${FAKE_SLACK_BOT}> summarise the day`,
      ts: "1700000100.000200",
    });
    const forged = await deliver(served, mention, {}, "not-the-secret");
    expect(forged.status).toBe(401);

    const first = await deliver(served, mention);
    expect(first.status).toBe(200);
    // Slack did not see the 200 in time and sends it again, twice.
    expect(
      (await deliver(served, mention, { "x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout" }))
        .status,
    ).toBe(200);
    expect(
      (await deliver(served, mention, { "x-slack-retry-num": "2", "x-slack-retry-reason": "http_timeout" }))
        .status,
    ).toBe(200);
    const answer = await slack.waitForPost((p) => p.method === "chat.postMessage");
    expect(answer).toMatchObject({ channel: TEAM_CHANNEL, thread_ts: "1700000100.000200" });
    expect(answer.text).toContain("summarise the day");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(model.requests).toHaveLength(1);
    expect(slack.posts.filter((p) => p.method === "chat.postMessage")).toHaveLength(1);
    expect(lastUserText(model.requests[0]!)).toContain(
      '"channel":"slack","chat_type":"group","chat_id":"C0TEAM","thread_id":"1700000100.000200"',
    );
  });

  it("answers the text sent with a file and says the file was not read; a thread reply sent to the channel is a message; edits and deletions are not", async () => {
    configure();
    const served = await startServed(ws.home, ws.path);
    const message = (id: string, fields: Record<string, unknown>) =>
      deliver(served, event(id, { type: "message", user: OWNER, ...fields }));
    // An edit and a deletion of a message mentioning the agent: not someone writing to it.
    await message("EvEdit", {
      subtype: "message_changed",
      channel: TEAM_CHANNEL,
      channel_type: "channel",
      text: `<@${FAKE_SLACK_BOT}> edited`,
      ts: "1700000400.000100",
    });
    await message("EvDel", {
      subtype: "message_deleted",
      channel: "D0DM",
      channel_type: "im",
      ts: "1700000400.000200",
    });
    await message("EvFile", {
      subtype: "file_share",
      channel: "D0DM",
      channel_type: "im",
      text: "what is in it",
      files: [{ id: "F1", name: "report.pdf" }],
      ts: "1700000500.000100",
    });
    const withFile = await slack.waitForPost(
      (p) => p.method === "chat.postMessage" && p.text.includes("what is in it"),
    );
    expect(withFile.text).toBe(
      "(I cannot read files sent in the chat yet: report.pdf was not read. This answers your text alone.)\n\nanswer to: what is in it",
    );

    await message("EvOnlyFiles", {
      subtype: "file_share",
      channel: "D0DM",
      channel_type: "im",
      text: "",
      files: [
        { id: "F2", name: "a.png" },
        { id: "F3", title: "Notes" },
      ],
      ts: "1700000600.000100",
    });
    const onlyFiles = await slack.waitForPost(
      (p) => p.method === "chat.postMessage" && p.text.includes("a.png"),
    );
    expect(onlyFiles.text).toBe(
      "I cannot read files sent in the chat yet: 2 files (a.png, Notes) were not read. Write what you need as text.",
    );

    await message("EvBroadcast", {
      subtype: "thread_broadcast",
      channel: TEAM_CHANNEL,
      channel_type: "channel",
      text: `<@${FAKE_SLACK_BOT}> and the totals?`,
      thread_ts: "1700000100.000200",
      ts: "1700000700.000100",
    });
    const broadcast = await slack.waitForPost(
      (p) => p.method === "chat.postMessage" && p.text.includes("totals"),
    );
    expect(broadcast).toMatchObject({ channel: TEAM_CHANNEL, thread_ts: "1700000100.000200" });

    // Two runs: the text with a file and the broadcast; the edit and deletion were never stored.
    expect(model.requests).toHaveLength(2);
    const store = await openStore({ home: ws.home });
    try {
      const stored = (await store.channels.listInbound("slack", 10)).map((r) => r.dedupeKey).sort();
      expect(stored).toEqual([
        "C0TEAM:1700000700.000100",
        "D0DM:1700000500.000100",
        "D0DM:1700000600.000100",
      ]);
    } finally {
      await store.close();
    }
  });

  it("a link to an image in an answer is not unfurled: Slack fetches nothing the model named", async () => {
    const attacker = await startAttacker("127.0.0.2");
    try {
      const link = `${attacker.origin}/chart.png?d=sk_live_unfurl_canary`;
      model.setResponder(() => ({ text: `The chart: ${link}` }));
      configure();
      const served = await startServed(ws.home, ws.path);
      const mention = event("Ev9", {
        type: "app_mention",
        channel: TEAM_CHANNEL,
        channel_type: "channel",
        user: OWNER,
        text: `<@${FAKE_SLACK_BOT}> show the chart`,
        ts: "1700000900.000100",
      });
      expect((await deliver(served, mention)).status).toBe(200);
      const answer = await slack.waitForPost((p) => p.method === "chat.postMessage");
      expect(answer.text).toContain(link);
      expect(slack.unfurled).toEqual([]);
      expect(attacker.received).toEqual([]);
    } finally {
      await attacker.close();
    }
  });

  it("answers Slack's URL check, and ignores a channel message that does not mention the agent", async () => {
    configure();
    const served = await startServed(ws.home, ws.path);
    const check = await deliver(served, JSON.stringify({ type: "url_verification", challenge: "c-123" }));
    expect(await check.json()).toEqual({ challenge: "c-123" });
    await deliver(
      served,
      event("Ev2", {
        type: "message",
        channel: TEAM_CHANNEL,
        channel_type: "channel",
        user: OWNER,
        text: "lunch?",
        ts: "1700000200.000100",
      }),
    );
    await deliver(
      served,
      event("Ev3", {
        type: "message",
        channel: "D0DM",
        channel_type: "im",
        user: OWNER,
        text: "hello",
        ts: "1700000300.000100",
      }),
    );
    const answer = await slack.waitForPost((p) => p.method === "chat.postMessage");
    expect(answer.channel).toBe("D0DM");
    expect(answer.thread_ts).toBeUndefined();
    expect(model.requests).toHaveLength(1);
  });

  it("an approval's button pressed by someone not allowed changes nothing; the owner's press lets the run go on", async () => {
    model.setResponder((request) => {
      if (toolMessagesOf(request).length === 0)
        return {
          toolCalls: [{ id: "call_1", name: "execute_command", arguments: { command: "echo x >> log.txt" } }],
        };
      return { text: "logged" };
    });
    configure({ permissionMode: "default" });
    const served = await startServed(ws.home, ws.path);
    await deliver(
      served,
      event("Ev4", {
        type: "message",
        channel: "D0DM",
        channel_type: "im",
        user: OWNER,
        text: "log it",
        ts: "1700000400.000100",
      }),
    );
    const asking = await slack.waitForPost((p) => p.method === "chat.postMessage" && p.blocks !== undefined);
    const buttons = asking.blocks!.find((b) => b.type === "actions")!.elements!;
    const allow = buttons.find((b) => b.text.text === "Allow once")!;
    const press = (user: string, more: Record<string, string> = {}) => {
      const payload = JSON.stringify({
        type: "block_actions",
        user: { id: user, name: user.toLowerCase() },
        channel: { id: "D0DM" },
        container: { message_ts: asking.ts },
        actions: [{ action_id: "reson_0", value: allow.value }],
        trigger_id: `t-${user}`,
      });
      const body = new URLSearchParams({ payload }).toString();
      return fetch(`${served.url}/channels/slack/events`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          ...slackSignature(SIGNING_SECRET, body),
          ...more,
        },
        body,
      });
    };
    expect((await press("UEVE")).status).toBe(200);
    const refused = await slack.waitForPost((p) => p.method === "chat.postEphemeral");
    expect(refused).toMatchObject({ user: "UEVE", text: "You are not allowed to answer this." });
    expect(model.requests).toHaveLength(1);

    expect((await press(OWNER)).status).toBe(200);
    // Slack's retry of the same delivery (the same trigger) is taken and changes nothing.
    expect(
      (await press(OWNER, { "x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout" })).status,
    ).toBe(200);
    await slack.waitForPost((p) => p.method === "chat.postMessage" && p.text === "logged");
    expect(slack.posts.filter((p) => p.method === "chat.update").map((p) => p.text)).toEqual([
      expect.stringContaining("allowed once by uowner1"),
    ]);
    expect(slack.posts.filter((p) => p.method === "chat.postEphemeral").map((p) => p.text)).toEqual([
      "You are not allowed to answer this.",
      "Done: allowed once.",
    ]);
    expect(readFileSync(join(ws.path, "log.txt"), "utf8")).toBe("x\n");
    const store = await openStore({ home: ws.home });
    try {
      const [run] = await store.queue.list({ limit: 5 });
      const events = await store.events.list(run!.id, { after: 0, limit: 1000 });
      expect(events.filter((e) => e.type === "permission_decision").map((e) => e.data)).toEqual([
        expect.objectContaining({
          decision: "allow_once",
          answeredBy: { channel: "slack", senderId: OWNER, displayName: "uowner1" },
        }),
      ]);
    } finally {
      await store.close();
    }
  });

  it("waits out Slack's rate limit (429 Retry-After), then posts the answer once, with no repeat notice", async () => {
    // Without a history scope a post that might have gone out is posted again with a notice: a
    // refused post must not count as one.
    await slack.close();
    slack = await startFakeSlack({ botToken: BOT_TOKEN, scopes: ["chat:write"] });
    configure();
    const served = await startServed(ws.home, ws.path);
    slack.rateLimitPosts(3);
    await deliver(served, dm("Ev7", "slow down", "1700000700.000100"));
    const answer = await slack.waitForPost((p) => p.method === "chat.postMessage", 30_000);
    expect(answer.text).toBe("answer to: slow down");
    expect(slack.rateLimited).toBe(1);
    expect(slack.posts.filter((p) => p.method === "chat.postMessage")).toHaveLength(1);
    expect(served.process.stderr()).toContain("was not sent");
  });

  const dm = (id: string, text: string, ts: string) =>
    event(id, { type: "message", channel: "D0DM", channel_type: "im", user: OWNER, text, ts });

  /** Serve posts the answer, Slack takes it, serve is killed before it hears back; then a new serve. */
  async function crashWhilePosting(text: string): Promise<Served> {
    configure();
    const first = await startServed(ws.home, ws.path, ["--lease-ttl", "2s"]);
    slack.holdPosts(1);
    await deliver(first, dm("Ev9", text, "1700000900.000100"));
    await slack.waitForPost((p) => p.method === "chat.postMessage");
    first.process.kill("SIGKILL");
    await first.process.exited();
    return startServed(ws.home, ws.path, ["--lease-ttl", "2s"]);
  }

  it("killed after posting an answer and before recording it, a restarted serve finds the answer by its metadata and posts nothing more", async () => {
    const second = await crashWhilePosting("report please");
    for (let i = 0; i < 150 && !slack.calls.includes("conversations.history"); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(slack.calls).toContain("conversations.history");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const answers = slack.posts.filter((p) => p.method === "chat.postMessage");
    expect(answers).toHaveLength(1);
    expect(answers[0]!.text).toBe("answer to: report please");
    expect(answers[0]!.metadata).toMatchObject({
      event_type: "reson_answer",
      event_payload: { delivery: expect.any(String), attempt: expect.any(String) },
    });
    expect(second.process.stderr()).toContain("not posting it again");
    expect(model.requests).toHaveLength(1);
  });

  it("without a history scope, the restarted serve posts the answer again with a notice and logs the missing scope", async () => {
    await slack.close();
    slack = await startFakeSlack({ botToken: BOT_TOKEN, scopes: ["chat:write"] });
    const second = await crashWhilePosting("status?");
    const repeat = await slack.waitForPost(
      (p) => p.method === "chat.postMessage" && p.text.startsWith("(this may be a repeat"),
    );
    expect(repeat.text).toBe("(this may be a repeat: reson restarted while sending)\n\nanswer to: status?");
    expect(slack.posts.filter((p) => p.method === "chat.postMessage")).toHaveLength(2);
    expect(second.process.stderr()).toContain("lacks the scope im:history");
    expect(second.process.stderr()).not.toContain(BOT_TOKEN);
  });
});
