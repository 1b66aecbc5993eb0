// `reson channel status` is what an on-call engineer runs when the bot stays silent. It is another
// process than `reson serve`, so how each channel stands in the running serve (taking messages,
// stopped on a token the platform refused, waiting for it) must reach it through the store: run
// as a user runs it, against serve on the fake Telegram, and after serve stopped or was killed.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { telegramOnFakes, writeChannelsConfig } from "../support/channel-config.js";
import { cleanEnv, runCli, type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";
import { FAKE_BOT, type FakeTelegram, startFakeTelegram } from "../support/fake-telegram.js";
import { startServed } from "../support/served-run.js";
import { killAllReson } from "../support/service-process.js";

const TOKEN = "123456:TEST-status";
const OWNER = 42;

interface StatusChannel {
  name: string;
  live: { state: string; reason?: string; hint?: string; bot?: string; serve: { pid: number } }[];
}

async function status(ws: TempDir): Promise<{ json: StatusChannel[]; text: string }> {
  const env = cleanEnv({ RESON_HOME: ws.home });
  const asJson = await runCli(["channel", "status", "--json"], { cwd: ws.path, env });
  expect(asJson.stderr).toBe("");
  const text = await runCli(["channel", "status"], { cwd: ws.path, env });
  return { json: (JSON.parse(asJson.stdout) as { channels: StatusChannel[] }).channels, text: text.stdout };
}

/** Status until the telegram channel's live state is `state` (serve records it within a second). */
async function statusWhen(ws: TempDir, state: string | undefined) {
  for (;;) {
    const seen = await status(ws);
    const live = seen.json.find((c) => c.name === "telegram")?.live ?? [];
    if (live[0]?.state === state) return seen;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("reson channel status", () => {
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let ws: TempDir;

  beforeEach(async () => {
    model = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
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

  it("says a running serve stopped the channel on a refused token, with the hint, and nothing once serve is gone", async () => {
    expect((await status(ws)).text).toContain("live: no reson serve runs this channel now");
    telegram.failGetMe(401);
    const served = await startServed(ws.home, ws.path);
    await served.process.waitFor(/channel telegram stopped taking messages/);
    const stopped = await statusWhen(ws, "stopped");
    const live = stopped.json.find((c) => c.name === "telegram")!.live;
    expect(live).toHaveLength(1);
    expect(live[0]).toMatchObject({
      state: "stopped",
      reason: expect.stringContaining("Telegram refused the bot token"),
      hint: expect.stringContaining("channels.telegram.token"),
      serve: { pid: served.process.child.pid },
    });
    expect(stopped.text).toContain(`live: stopped in serve pid ${served.process.child.pid}`);
    expect(stopped.text).toContain("channels.telegram.token");
    expect(stopped.text).not.toContain(TOKEN);
    served.process.kill("SIGTERM");
    await served.process.exited();
    expect((await status(ws)).text).toContain("live: no reson serve runs this channel now");
  });

  it("says the channel takes messages while serve polls, and a killed serve is not shown as live", async () => {
    const served = await startServed(ws.home, ws.path);
    const taking = await statusWhen(ws, "taking");
    expect(taking.json.find((c) => c.name === "telegram")!.live[0]).toMatchObject({
      bot: `@${FAKE_BOT.username}`,
      serve: { pid: served.process.child.pid },
    });
    served.process.kill("SIGKILL");
    await served.process.exited();
    // Its report stays in the store, but its process is gone.
    expect((await status(ws)).text).toContain("live: no reson serve runs this channel now");
  });
});
