import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { signWebhook, verifyWebhook } from "../../src/channels/index.js";
import { onFakeModel, writeChannelsConfig } from "../support/channel-config.js";
import { type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, lastUserText, startFakeModelServer } from "../support/fake-model-server.js";
import { type Served, startServed } from "../support/served-run.js";
import { killAllReson } from "../support/service-process.js";

const SECRET = "webhook-secret-for-tests";

function post(
  served: Served,
  body: object,
  options: { key?: string; secret?: string; timestampS?: number } = {},
) {
  const text = JSON.stringify(body);
  const timestampS = options.timestampS ?? Math.floor(Date.now() / 1000);
  return fetch(`${served.url}/channels/webhook/ci`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-reson-timestamp": String(timestampS),
      "x-reson-signature": signWebhook(options.secret ?? SECRET, timestampS, text),
      ...(options.key ? { "idempotency-key": options.key } : {}),
    },
    body: text,
  });
}

describe("webhook channel in reson serve", () => {
  let model: FakeModelServer;
  let ws: TempDir;

  const configure = (hook: Record<string, unknown>) => {
    writeChannelsConfig(ws.home, {
      webhook: {
        ci: {
          secret: SECRET,
          workspace: ws.path,
          allowFrom: ["build-bot"],
          ...onFakeModel(model),
          ...hook,
        },
      },
    });
  };

  beforeEach(async () => {
    model = await startFakeModelServer({
      respond: (request) => ({ text: `done: ${lastUserText(request).split("\n").at(-1)}` }),
    });
    ws = tempDir();
  });
  afterEach(async () => {
    await killAllReson();
    await model.close();
    ws.remove();
  });

  it("answers a signed message in the response, and a repeat of it with the same answer and no second run", async () => {
    configure({});
    const served = await startServed(ws.home, ws.path);
    const message = {
      text: "build failed on main",
      sender: { id: "build-bot", name: "CI" },
      chat: { id: "builds" },
    };
    const first = await post(served, message, { key: "delivery-1" });
    expect(first.status, await first.clone().text()).toBe(200);
    const answered = (await first.json()) as { id: string; status: string; reply: string };
    expect(answered).toMatchObject({ status: "answered", reply: "done: build failed on main" });

    const again = await post(served, message, { key: "delivery-1" });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(answered);
    expect(model.requests).toHaveLength(1);
    expect(lastUserText(model.requests[0]!)).toContain(
      '"channel":"webhook:ci","chat_type":"direct","chat_id":"builds"',
    );
  });

  it("a captured request played again within the window under another Idempotency-Key (which is not signed) gets the first answer, not a second run", async () => {
    configure({});
    const served = await startServed(ws.home, ws.path);
    const message = { text: "deploy main", sender: { id: "build-bot" }, messageId: "m-1" };
    const timestampS = Math.floor(Date.now() / 1000);
    const first = await post(served, message, { key: "delivery-1", timestampS });
    const answered = (await first.json()) as { id: string; reply: string };
    expect(answered.reply).toBe("done: deploy main");
    // The same signed bytes: once with a new key, once with none (the body's messageId would key it).
    for (const key of ["replayed-1", undefined]) {
      const replayed = await post(served, message, { ...(key ? { key } : {}), timestampS });
      expect(replayed.status).toBe(200);
      expect(await replayed.json()).toEqual(answered);
    }
    expect(model.requests).toHaveLength(1);
  });

  it("refuses a forged signature, a stale timestamp and a missing signature with 401, storing and running nothing", async () => {
    configure({});
    const served = await startServed(ws.home, ws.path);
    const message = { text: "rm -rf everything", sender: { id: "build-bot" } };
    const forged = await post(served, message, { key: "x1", secret: "guessed" });
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe(
      "channel_signature_invalid",
    );
    const stale = await post(served, message, {
      key: "x2",
      timestampS: Math.floor(Date.now() / 1000) - 3600,
    });
    expect(stale.status).toBe(401);
    const unsigned = await fetch(`${served.url}/channels/webhook/ci`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": "x3" },
      body: JSON.stringify(message),
    });
    expect(unsigned.status).toBe(401);
    const status = await fetch(`${served.url}/channels`, { headers: served.headers });
    const { channels } = (await status.json()) as {
      channels: { name: string; openMessages: number; sessions: unknown[] }[];
    };
    expect(channels).toEqual([
      expect.objectContaining({ name: "webhook:ci", openMessages: 0, sessions: [] }),
    ]);
    expect(model.requests).toHaveLength(0);
  });

  it("posts the answer, signed, to the callback URL", async () => {
    const received: { body: string; timestamp: string; signature: string }[] = [];
    const callback = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        received.push({
          body: Buffer.concat(chunks).toString("utf8"),
          timestamp: String(req.headers["x-reson-timestamp"]),
          signature: String(req.headers["x-reson-signature"]),
        });
        res.end("ok");
      });
    });
    await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
    try {
      configure({ callbackUrl: `http://127.0.0.1:${(callback.address() as AddressInfo).port}/answers` });
      const served = await startServed(ws.home, ws.path);
      const accepted = await post(served, { text: "deploy", sender: { id: "build-bot" }, messageId: "m-9" });
      expect(accepted.status).toBe(202);
      for (let i = 0; i < 300 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(received).toHaveLength(1);
      const [answer] = received;
      expect(JSON.parse(answer!.body)).toEqual({
        id: expect.stringMatching(/\.0$/),
        chat: { id: "build-bot" },
        inReplyTo: "m-9",
        text: "done: deploy",
      });
      expect(() =>
        verifyWebhook({
          secret: SECRET,
          body: Buffer.from(answer!.body),
          signature: answer!.signature,
          timestamp: answer!.timestamp,
          replayWindowS: 60,
        }),
      ).not.toThrow();
    } finally {
      callback.close();
    }
  });

  it("killed after the callback took the answer and before it was recorded, a restarted serve sends it again with the same Idempotency-Key", async () => {
    const received: { key: string; body: { id: string; text: string } }[] = [];
    const callback = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        received.push({
          key: String(req.headers["idempotency-key"]),
          body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
        });
        // The first answer is taken, and the sender never hears back.
        if (received.length > 1) res.end("ok");
      });
    });
    await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
    try {
      configure({ callbackUrl: `http://127.0.0.1:${(callback.address() as AddressInfo).port}/answers` });
      const first = await startServed(ws.home, ws.path, ["--lease-ttl", "2s"]);
      await post(first, { text: "deploy", sender: { id: "build-bot" }, messageId: "m-10" });
      for (let i = 0; i < 300 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      first.process.kill("SIGKILL");
      await first.process.exited();
      await startServed(ws.home, ws.path, ["--lease-ttl", "2s"]);
      for (let i = 0; i < 300 && received.length < 2; i++) await new Promise((r) => setTimeout(r, 100));
      expect(received).toHaveLength(2);
      expect(received[1]!.key).toBe(received[0]!.key);
      expect(received[1]!.body.id).toBe(received[0]!.key);
      expect(received[1]!.body.text).toBe("done: deploy");
      expect(model.requests).toHaveLength(1);
    } finally {
      callback.closeAllConnections();
      callback.close();
    }
  });
});
