// A secret someone pastes into a chat message (a deploy key sent to the bot, say) is kept as
// its placeholder, as serve keeps a posted task: the stored message, the run's task, the
// answer sent back and the database never hold it raw. Through `reson serve` with a signed
// webhook channel, judged by scanning every byte reson wrote under its home.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { signWebhook } from "../../src/channels/index.js";
import { onFakeModel, writeChannelsConfig } from "../support/channel-config.js";
import { type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, lastUserText, startFakeModelServer } from "../support/fake-model-server.js";
import { filesUnder, scanForSecret } from "../support/secret-scan.js";
import { startServed } from "../support/served-run.js";
import { killAllReson } from "../support/service-process.js";

const SECRET = "webhook-secret-for-masking";
const DEPLOY_KEY = randomBytes(24)
  .toString("base64")
  .replace(/[^A-Za-z0-9]/g, "")
  .slice(0, 28);

describe("a secret pasted into a chat message", () => {
  let model: FakeModelServer;
  let ws: TempDir;

  beforeEach(async () => {
    model = await startFakeModelServer({
      respond: (request) => ({ text: `you said: ${lastUserText(request).split("\n").at(-1)}` }),
    });
    ws = tempDir();
  });
  afterEach(async () => {
    await killAllReson();
    await model.close();
    ws.remove();
  });

  it("is kept and sent on as its placeholder, never raw", async () => {
    writeChannelsConfig(ws.home, {
      webhook: { ci: { secret: SECRET, workspace: ws.path, allowFrom: ["ops"], ...onFakeModel(model) } },
    });
    writeFileSync(
      join(ws.home, "secrets.json"),
      JSON.stringify({ "workspace:*": { deploy_key: DEPLOY_KEY } }),
      {
        mode: 0o600,
      },
    );
    const served = await startServed(ws.home, ws.path);
    const body = JSON.stringify({
      text: `deploy with ${DEPLOY_KEY} now`,
      sender: { id: "ops", name: "Ops" },
      chat: { id: "deploys" },
    });
    const at = Math.floor(Date.now() / 1000);
    const answer = await fetch(`${served.url}/channels/webhook/ci`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-reson-timestamp": String(at),
        "x-reson-signature": signWebhook(SECRET, at, body),
        "idempotency-key": "paste-1",
      },
      body,
    });
    expect(answer.status, await answer.clone().text()).toBe(200);
    const answered = (await answer.json()) as { status: string; reply: string };
    expect(answered.status).toBe("answered");
    expect(answered.reply).toBe("you said: deploy with <secret>deploy_key</secret> now");
    // The model was given the placeholder, not the key.
    expect(JSON.stringify(model.requests[0]?.body)).toContain("<secret>deploy_key</secret>");

    served.process.kill("SIGTERM");
    await served.process.exited();
    const stored = filesUnder(ws.home, (path) => path.endsWith("secrets.json"));
    const sent = { answer: JSON.stringify(answered), model: JSON.stringify(model.requests) };
    expect(scanForSecret(DEPLOY_KEY, { ...stored, ...sent }).map((x) => `${x.where} ${x.form}`)).toEqual([]);
  }, 60_000);
});
