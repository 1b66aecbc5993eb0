import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestPostgres, type TestPostgres } from "../store/postgres-server.js";
import { telegramOnFakes, writeChannelsConfig } from "../support/channel-config.js";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";
import { type FakeTelegram, startFakeTelegram } from "../support/fake-telegram.js";
import { skipWithout } from "../support/requirements.js";
import { startServed } from "../support/served-run.js";
import { killAllReson, startReson } from "../support/service-process.js";

const TOKEN = "123456:pg-token";

describe.skipIf(await skipWithout("postgres", "channels on PostgreSQL"))(
  "channels on PostgreSQL with workers",
  () => {
    let pg: TestPostgres;
    let model: FakeModelServer;
    let telegram: FakeTelegram;
    let ws: TempDir;

    beforeAll(async () => {
      pg = await startTestPostgres();
    }, 120_000);
    afterAll(async () => {
      await pg?.stop();
    }, 120_000);
    afterEach(async () => {
      await killAllReson();
      await telegram?.close();
      await model?.close();
      ws?.remove();
    });

    it("serve stores and answers, a worker runs; of two serves only one polls the bot", async () => {
      model = await startFakeModelServer({ replies: [{ text: "from the worker" }] });
      telegram = await startFakeTelegram({ token: TOKEN });
      ws = tempDir();
      const url = await pg.createDatabase();
      writeChannelsConfig(ws.home, {
        telegram: telegramOnFakes(telegram, model, { token: TOKEN, workspace: ws.path, owner: ["42"] }),
      });
      const served = await startServed(ws.home, ws.path, ["--workers", "0"], { RESON_DATABASE_URL: url });
      // A second serve on the same database: only one of them polls the bot.
      const second = await startServed(ws.home, ws.path, ["--workers", "0"], { RESON_DATABASE_URL: url });
      await second.process.waitFor(/another reson serve polls it/);
      const worker = startReson(["worker", "--log-format", "json"], {
        env: cleanEnv({ RESON_HOME: ws.home, RESON_DATABASE_URL: url }),
        cwd: ws.path,
      });
      telegram.send({ chatId: 42, fromId: 42, text: "hello fleet" });
      const answer = await telegram.waitForSent((m) => String(m.chat_id) === "42", 60_000);
      expect(answer.text).toBe("from the worker");
      expect(worker.stderr()).toContain("claimed run");
      expect(served.process.stderr()).not.toContain("claimed run");
      expect(telegram.sent).toHaveLength(1);
    });
  },
);
