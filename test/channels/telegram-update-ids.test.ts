// Telegram numbers the next update at random after a week without updates, perhaps below the
// offset reson stored and perhaps with an id an old update had. Through `reson serve` and grammY
// against the fake Bot API: after a long quiet (the time of the last update set back in the
// store), serve polls without an offset, so the message with the restarted id is answered rather
// than confirmed unseen, and it is not taken for the old message that had its id.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { telegramOnFakes, writeChannelsConfig } from "../support/channel-config.js";
import { type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, lastUserText, startFakeModelServer } from "../support/fake-model-server.js";
import { type FakeTelegram, startFakeTelegram } from "../support/fake-telegram.js";
import { startServed } from "../support/served-run.js";
import { killAllReson } from "../support/service-process.js";

const TOKEN = "123456:TEST-ids";
const OWNER = 42;
const EIGHT_DAYS_MS = 8 * 24 * 60 * 60 * 1000;

describe("Telegram update ids that start again after a quiet week", () => {
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let ws: TempDir;

  beforeEach(async () => {
    model = await startFakeModelServer({
      respond: (request) => ({ text: `answer to: ${lastUserText(request).split("\n").at(-1)}` }),
    });
    telegram = await startFakeTelegram({ token: TOKEN });
    ws = tempDir();
    writeChannelsConfig(ws.home, {
      telegram: telegramOnFakes(telegram, model, {
        token: TOKEN,
        workspace: ws.path,
        owner: [String(OWNER)],
      }),
    });
  });
  afterEach(async () => {
    await killAllReson();
    await telegram.close();
    await model.close();
    ws.remove();
  });

  /** Pretends the last update came eight days ago. */
  const quietWeek = async () => {
    const store = await openStore({ home: ws.home });
    try {
      expect(await store.channels.getState("telegram", "update_seen_at")).toBeDefined();
      await store.channels.setState("telegram", "update_seen_at", String(Date.now() - EIGHT_DAYS_MS));
    } finally {
      await store.close();
    }
  };

  /** Waits until serve has called getUpdates with this offset (undefined: without one) since poll `from`. */
  const polled = async (offset: number | undefined, from = 0) => {
    for (let i = 0; i < 300 && !telegram.polls.slice(from).includes(offset); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(telegram.polls.slice(from)).toContain(offset);
  };

  it("started again after a quiet week, serve answers a message whose id is below the stored offset and is an old message's id", async () => {
    const first = await startServed(ws.home, ws.path);
    const oldId = telegram.send({ chatId: OWNER, fromId: OWNER, text: "before the quiet" });
    await telegram.waitForSent((m) => m.text === "answer to: before the quiet");
    await polled(oldId + 1);
    first.process.kill("SIGTERM");
    await first.process.exited();
    await quietWeek();

    // While serve is down, Telegram numbers the next update anew: the old message's id again.
    telegram.restartIds(oldId);
    expect(telegram.send({ chatId: OWNER, fromId: OWNER, text: "after the quiet" })).toBe(oldId);
    const from = telegram.polls.length;
    await startServed(ws.home, ws.path);
    const answer = await telegram.waitForSent((m) => m.text.includes("after the quiet"));
    expect(answer.text).toBe("answer to: after the quiet");
    expect(telegram.polls[from]).toBeUndefined();
    expect(model.requests).toHaveLength(2);

    // The new sequence is followed from there: the next message comes with the offset again.
    await polled(oldId + 1, from);
    telegram.send({ chatId: OWNER, fromId: OWNER, text: "and after that" });
    await telegram.waitForSent((m) => m.text === "answer to: and after that");
    const store = await openStore({ home: ws.home });
    try {
      expect(await store.channels.getState("telegram", "update_offset")).toBe(String(oldId + 2));
      const texts = (await store.channels.listInbound("telegram", 10)).map((r) => r.message.text);
      expect(texts.sort()).toEqual(["after the quiet", "and after that", "before the quiet"]);
    } finally {
      await store.close();
    }
  });

  it("a serve that has been quiet for a week polls without an offset and answers the restarted id", async () => {
    await startServed(ws.home, ws.path);
    const oldId = telegram.send({ chatId: OWNER, fromId: OWNER, text: "hello" });
    await telegram.waitForSent((m) => m.text === "answer to: hello");
    const from = telegram.polls.length;
    await quietWeek();
    await polled(undefined, from);

    telegram.restartIds(oldId - 300);
    telegram.send({ chatId: OWNER, fromId: OWNER, text: "still there?" });
    const answer = await telegram.waitForSent((m) => m.text.includes("still there?"));
    expect(answer.text).toBe("answer to: still there?");
    expect(telegram.sent).toHaveLength(2);
  });
});
