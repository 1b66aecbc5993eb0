// A send that takes longer than the stale time of a claim (a slow platform, one making the bot
// wait out a 429) is not a crash: two `reson serve` processes share a store, the stale time is
// the lease TTL (2 s here), Telegram takes the answer and answers 8 s later, and the other serve
// does not take the claim over and post the answer again.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { telegramOnFakes, writeChannelsConfig } from "../support/channel-config.js";
import { type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, lastUserText, startFakeModelServer } from "../support/fake-model-server.js";
import { type FakeTelegram, startFakeTelegram } from "../support/fake-telegram.js";
import { startServed } from "../support/served-run.js";
import { killAllReson } from "../support/service-process.js";

const TOKEN = "123456:TEST-slow";
const OWNER = 42;

describe("an answer whose send takes longer than the stale time", () => {
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

  it("is sent once: its sender keeps the claim while it waits, and the other serve leaves it", async () => {
    await startServed(ws.home, ws.path, ["--lease-ttl", "2s"]);
    const second = await startServed(ws.home, ws.path, ["--lease-ttl", "2s"]);
    await second.process.waitFor(/another reson serve polls it/);
    telegram.delaySends(1, 8000);
    telegram.send({ chatId: OWNER, fromId: OWNER, text: "take your time" });
    await telegram.waitForSent((m) => m.text.includes("take your time"));

    // Telegram has it and answers 8 s later; only then is the message answered.
    const store = await openStore({ home: ws.home });
    try {
      let status: string | undefined;
      for (let i = 0; i < 600 && status !== "answered"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        [status] = (await store.channels.listInbound("telegram", 1)).map((r) => r.status);
      }
      expect(status).toBe("answered");
    } finally {
      await store.close();
    }
    expect(telegram.sent.map((m) => m.text)).toEqual(["answer to: take your time"]);
  }, 90_000);
});
