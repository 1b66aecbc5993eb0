// The chat channels' store contract, the same on every backend: a delivery stored once per
// dedupe key, status moves that only one of racing processes makes, a stale claim to send taken
// over, one session per chat, pairing codes approved once and only before they expire, and gc of
// settled messages that keeps each one's dedupe key a day at least.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ulid } from "../../src/core/ids.js";
import {
  CHANNEL_DEDUPE_WINDOW_MS,
  type InboundMessage,
  type PairingRecord,
  type Store,
} from "../../src/store/index.js";
import type { StoreTarget } from "./contract.js";
import { session, trace } from "./fixtures.js";

const message: InboundMessage = {
  text: "hello",
  envelope: {
    receivedAt: 1_700_000_000_000,
    channel: "telegram",
    chatType: "direct",
    chatId: "42",
    senderId: "42",
  },
  target: { chatId: "42", messageId: "7" },
};

function pending(senderId: string, code: string, expiresAt: number): PairingRecord {
  return {
    channel: "telegram",
    senderId,
    senderName: "Eve",
    code,
    status: "pending",
    role: "allowed",
    createdAt: expiresAt - 3_600_000,
    expiresAt,
    approvedAt: null,
  };
}

export function channelContract(fresh: () => Promise<StoreTarget>): void {
  let target: StoreTarget;
  let store: Store;

  beforeEach(async () => {
    target = await fresh();
    store = await target.open();
  });
  afterEach(async () => {
    await store.close();
    await target.cleanup();
  });

  describe("channels", () => {
    it("stores a delivery once per dedupe key: racing and repeated deliveries get the first record", async () => {
      const deliveries = await Promise.all(
        [1, 2, 3].map(() =>
          store.channels.receive({
            id: ulid(),
            channel: "telegram",
            dedupeKey: "501",
            chatKey: "42",
            message,
          }),
        ),
      );
      expect(deliveries.filter((d) => d.created)).toHaveLength(1);
      const ids = new Set(deliveries.map((d) => d.record.id));
      expect(ids.size).toBe(1);
      const other = await store.channels.receive({
        id: ulid(),
        channel: "webhook:ci",
        dedupeKey: "501",
        chatKey: "42",
        message,
      });
      expect(other.created).toBe(true);
      const open = await store.channels.listOpen("telegram");
      expect(open.map((r) => r.message)).toEqual([message]);
    });

    it("moves a message only from the status it is in; a claim to send is taken over only once stale", async () => {
      const { record } = await store.channels.receive({
        id: ulid(),
        channel: "telegram",
        dedupeKey: "9",
        chatKey: "42",
        message,
      });
      const moves = await Promise.all([
        store.channels.transition(record.id, "received", "reply", { reply: "a" }),
        store.channels.transition(record.id, "received", "reply", { reply: "b" }),
      ]);
      expect(moves.filter(Boolean)).toHaveLength(1);
      expect(await store.channels.transition(record.id, "reply", "sending")).toBe(true);
      expect(await store.channels.transition(record.id, "sending", "sending", {}, 60_000)).toBe(false);
      expect(await store.channels.transition(record.id, "sending", "sending", {}, 0)).toBe(true);
      expect(await store.channels.transition(record.id, "sending", "answered")).toBe(true);
      const done = await store.channels.getInbound(record.id);
      expect(done).toMatchObject({ status: "answered", claimedAt: null });
      expect(["a", "b"]).toContain(done!.reply);
      expect(await store.channels.listOpen()).toEqual([]);
    });

    it("keeps the first session of a chat, forgets it on /new, and keeps, replaces, lists and deletes channel state", async () => {
      const first = await store.channels.bindSession({
        channel: "telegram",
        chatKey: "42",
        sessionId: "s1",
        createdAt: 1,
      });
      const second = await store.channels.bindSession({
        channel: "telegram",
        chatKey: "42",
        sessionId: "s2",
        createdAt: 2,
      });
      expect(first.sessionId).toBe("s1");
      expect(second.sessionId).toBe("s1");
      await store.channels.unbindSession("telegram", "42");
      expect(await store.channels.sessionFor("telegram", "42")).toBeUndefined();
      await store.channels.setState("telegram", "update_offset", "10");
      await store.channels.setState("telegram", "update_offset", "11");
      expect(await store.channels.getState("telegram", "update_offset")).toBe("11");
      // Replaced only from the value it still has: of two racing replacers one wins.
      await store.channels.setState("telegram", "press:p1", "pressed");
      const raced = await Promise.all(
        ["applied", "closed"].map((value) =>
          store.channels.replaceState("telegram", "press:p1", "pressed", value),
        ),
      );
      expect(raced.filter(Boolean)).toHaveLength(1);
      await store.channels.setState("telegram", "press:p_%", "x");
      expect((await store.channels.listState("telegram", "press:")).map((row) => row.key)).toEqual([
        "press:p1",
        "press:p_%",
      ]);
      expect(await store.channels.listState("telegram", "press:p_")).toHaveLength(1);
      await store.channels.deleteState("telegram", "press:p1");
      expect(await store.channels.getState("telegram", "press:p1")).toBeUndefined();
    });

    it("gc removes settled messages older than the cutoff and a day, never one in flight or one whose run still works", async () => {
      const DAY = CHANNEL_DEDUPE_WINDOW_MS;
      const receive = async (dedupeKey: string) =>
        (await store.channels.receive({ id: ulid(), channel: "slack", dedupeKey, chatKey: "C1", message }))
          .record;
      /** Takes a message to "answered" (through a run when given one), as the hub does. */
      const answer = async (id: string, runId?: string) => {
        if (runId) {
          await store.channels.transition(id, "received", "queued", { runId });
          await store.channels.transition(id, "queued", "reply", { reply: "done" });
        } else await store.channels.transition(id, "received", "reply", { reply: "a pairing code" });
        await store.channels.transition(id, "reply", "sending");
        await store.channels.transition(id, "sending", "answered");
      };
      const s = session();
      const working = trace(s.id, { status: "running" });
      await store.apply([
        { op: "insertSession", session: s },
        { op: "insertTrace", trace: working },
      ]);
      const waiting = await store.queue.enqueue({
        id: ulid(),
        sessionId: s.id,
        task: "later",
        spec: { preset: "default" },
      });

      const answered = await receive("1");
      await answer(answered.id);
      const ignored = await receive("2");
      await store.channels.transition(ignored.id, "received", "ignored", { note: "not_mentioned" });
      const runWorking = await receive("3");
      await answer(runWorking.id, working.id);
      const runWaiting = await receive("4");
      await answer(runWaiting.id, waiting.request.id);
      const sending = await receive("5");
      await store.channels.transition(sending.id, "received", "reply", { reply: "going" });
      await store.channels.transition(sending.id, "reply", "sending");
      const received = await receive("6");
      const recent = await receive("7");
      await answer(recent.id);
      // All but the recent one were received and settled two days ago.
      const old = [answered, ignored, runWorking, runWaiting, sending, received].map((r) => r.id);
      const twoDaysAgo = Date.now() - 2 * DAY;
      await target.sql(
        `UPDATE channel_inbound SET created_at = ?, updated_at = ? WHERE id IN (${old.map(() => "?").join(", ")})`,
        [twoDaysAgo, twoDaysAgo, ...old],
      );

      // A cutoff before they were settled removes none of them.
      expect((await store.gc(twoDaysAgo - DAY)).channelMessages).toBe(0);
      // A cutoff after everything: the two settled old ones go; the recent one stays for its
      // redeliveries, whatever the cutoff; the preview counts exactly what gc removes.
      const cutoff = Date.now() + 60_000;
      expect((await store.gcPreview(cutoff)).channelMessages).toBe(2);
      expect((await store.gc(cutoff)).channelMessages).toBe(2);
      expect(await store.channels.getInbound(answered.id)).toBeUndefined();
      expect(await store.channels.getInbound(ignored.id)).toBeUndefined();
      const left = (await store.channels.listInbound("slack", 10)).map((r) => r.id).sort();
      expect(left).toEqual([runWorking.id, runWaiting.id, sending.id, received.id, recent.id].sort());
      // Slack delivering the recent message again still finds it, and nothing starts again.
      const again = await store.channels.receive({
        id: ulid(),
        channel: "slack",
        dedupeKey: "7",
        chatKey: "C1",
        message,
      });
      expect(again).toMatchObject({ created: false, record: { id: recent.id, status: "answered" } });
      expect((await store.gc(cutoff)).channelMessages).toBe(0);
    });

    it("approves a pending code once, never an expired one", async () => {
      const now = 1_800_000_000_000;
      await store.channels.putPairing(pending("77", "ABCD2345", now + 1000));
      await store.channels.putPairing(pending("78", "EFGH6789", now - 1));
      expect(await store.channels.approvePairing("telegram", "EFGH6789", "allowed", now)).toBeUndefined();
      const approved = await store.channels.approvePairing("telegram", "ABCD2345", "owner", now);
      expect(approved).toMatchObject({ senderId: "77", status: "approved", role: "owner", code: null });
      expect(await store.channels.approvePairing("telegram", "ABCD2345", "owner", now)).toBeUndefined();
      // An approved sender is not turned back into a pending one by a new code.
      await store.channels.putPairing(pending("77", "ZZZZ2222", now + 5000));
      expect(await store.channels.pairingOf("telegram", "77")).toMatchObject({ status: "approved" });
      expect(await store.channels.removePairing("telegram", "77")).toBe(true);
      expect(await store.channels.pairingOf("telegram", "77")).toBeUndefined();
    });

    it("gc forgets what a stranger was told about pairing once they hold no code pending at the cutoff", async () => {
      const now = Date.now();
      await store.channels.putPairing(pending("91", "LIVE2345", now + 3_600_000));
      await store.channels.putPairing(pending("92", "GONE2345", now - 3_600_000));
      for (const sender of ["91", "92", "93"])
        await store.channels.setState(
          "telegram",
          `pairing-told:${sender}`,
          JSON.stringify({ what: "x", at: now }),
        );
      await store.channels.setState("telegram", "update_offset", "12");
      await store.gc(now);
      expect(await store.channels.getState("telegram", "pairing-told:91")).toBeDefined();
      expect(await store.channels.getState("telegram", "pairing-told:92")).toBeUndefined();
      expect(await store.channels.getState("telegram", "pairing-told:93")).toBeUndefined();
      expect(await store.channels.getState("telegram", "update_offset")).toBe("12");
    });

    it("deletes the codes expired before a time, by gc at its cutoff too; a deleted code is never approved, and its sender's next code is new", async () => {
      const now = Date.now();
      const day = 86_400_000;
      await store.channels.putPairing(pending("61", "LIVE6161", now + 1000));
      await store.channels.putPairing(pending("62", "LATE6262", now - 1000));
      await store.channels.putPairing(pending("63", "OLDX6363", now - 2 * day));
      await store.channels.putPairing(pending("64", "GCGC6464", now - 3 * day));
      await store.channels.putPairing(pending("65", "APPR6565", now + 1000));
      await store.channels.approvePairing("telegram", "APPR6565", "allowed", now);
      expect(await store.channels.deleteExpiredPairings("telegram", now - day)).toEqual(
        expect.arrayContaining(["63", "64"]),
      );
      expect(await store.channels.deleteExpiredPairings("telegram", now - day)).toEqual([]);
      const left = () =>
        store.channels.listPairings("telegram").then((all) => all.map((p) => p.senderId).sort());
      expect(await left()).toEqual(["61", "62", "65"]);
      // gc at its cutoff: the code expired before it goes, the live one and the approved sender stay.
      await store.gc(now);
      expect(await left()).toEqual(["61", "65"]);
      for (const [sender, code] of [
        ["62", "LATE6262"],
        ["63", "OLDX6363"],
      ] as const) {
        expect(
          await store.channels.approvePairing("telegram", code, "allowed", now - 3 * day),
        ).toBeUndefined();
        await store.channels.putPairing(pending(sender, `NEW${code.slice(3)}`, now + 5000));
        expect(await store.channels.approvePairing("telegram", code, "allowed", now)).toBeUndefined();
        expect(await store.channels.pairingOf("telegram", sender)).toMatchObject({ status: "pending" });
      }
    });

    it("denies a pending sender by code or id, expired or not; a denied one gets no new code", async () => {
      const now = 1_800_000_000_000;
      await store.channels.putPairing(pending("81", "DENY2345", now + 1000));
      await store.channels.putPairing(pending("82", "OLDX2345", now - 1));
      expect(await store.channels.denyPairing("telegram", "DENY2345")).toMatchObject({
        senderId: "81",
        status: "denied",
        code: null,
      });
      expect(await store.channels.denyPairing("telegram", "82")).toMatchObject({
        senderId: "82",
        status: "denied",
      });
      expect(await store.channels.denyPairing("telegram", "DENY2345")).toBeUndefined();
      // Nor approved, nor given a new code by a later message.
      expect(await store.channels.approvePairing("telegram", "DENY2345", "allowed", now)).toBeUndefined();
      await store.channels.putPairing(pending("81", "NEWC2345", now + 5000));
      expect(await store.channels.pairingOf("telegram", "81")).toMatchObject({
        status: "denied",
        code: null,
      });
      // An approved sender is not denied: that is removing them.
      await store.channels.putPairing(pending("83", "APPR2345", now + 1000));
      await store.channels.approvePairing("telegram", "APPR2345", "allowed", now);
      expect(await store.channels.denyPairing("telegram", "83")).toBeUndefined();
      expect(await store.channels.removePairing("telegram", "81")).toBe(true);
    });
  });
}
