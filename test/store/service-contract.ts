// The store's service contract on every backend: run events, the run queue, prompts and
// idempotency keys (what `reson serve` and `reson worker` build on), and the queue drained by
// several processes at once. Each backend's test file calls serviceContract with a fresh database.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ulid } from "../../src/core/ids.js";
import {
  type LeaseFence,
  type LeaseHolder,
  leaseHolder,
  type RunEventInput,
  type Store,
} from "../../src/store/index.js";
import { type BuiltStore, buildStore } from "./built-store.js";
import { rejection, type StoreTarget } from "./contract.js";
import { session, step, T0, trace } from "./fixtures.js";

const LONG = { ttlMs: 60_000 };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function events(from: number, count: number, type = "step_end"): RunEventInput[] {
  return Array.from({ length: count }, (_, i) => ({
    seq: from + i,
    type,
    step: from + i,
    ts: T0 + from + i,
    data: { n: from + i, text: "nul \u0000 and 中文 survive" },
  }));
}

/** Resolves with the first value `take` gives a non-undefined answer for, or fails after 10 s. */
function waitFor<T>(subscribe: (found: (value: T) => void) => Promise<() => Promise<void>>): {
  ready: Promise<() => Promise<void>>;
  value: Promise<T>;
} {
  let found: (value: T) => void = () => {};
  const value = new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no wake-up within 10 s")), 10_000);
    found = (v) => {
      clearTimeout(timer);
      resolve(v);
    };
  });
  return { ready: subscribe(found), value };
}

export function serviceContract(fresh: () => Promise<StoreTarget>): void {
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

  async function runStored(): Promise<{ sessionId: string; traceId: string; fence: LeaseFence }> {
    const s = session();
    const t = trace(s.id);
    await store.apply([
      { op: "insertSession", session: s },
      { op: "insertTrace", trace: t },
    ]);
    const lease = await store.leases.acquire(t.id, leaseHolder("worker"), LONG);
    return { sessionId: s.id, traceId: t.id, fence: { traceId: t.id, epoch: lease.epoch } };
  }

  const enqueue = async (sessionId = ulid(), more: { maxAttempts?: number; idempotencyKey?: string } = {}) =>
    (
      await store.queue.enqueue({
        id: ulid(),
        sessionId,
        task: "fix it",
        spec: { preset: "default" },
        ...more,
      })
    ).request;

  describe("run events", () => {
    it("events committed with a run's step are read back in order, after any seq, and the last seq is known", async () => {
      const { traceId, fence } = await runStored();
      expect(await store.events.lastSeq(traceId)).toBe(0);
      expect(await store.events.list(traceId)).toEqual([]);
      await store.apply(
        [
          { op: "insertStep", step: step(traceId, 0) },
          { op: "appendEvents", traceId, events: events(1, 3) },
        ],
        { fence },
      );
      await store.apply([{ op: "appendEvents", traceId, events: events(4, 2, "run_end") }], { fence });
      const all = await store.events.list(traceId);
      expect(all.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(all[0]).toEqual({
        traceId,
        seq: 1,
        type: "step_end",
        step: 1,
        ts: T0 + 1,
        data: { n: 1, text: "nul \u0000 and 中文 survive" },
      });
      expect(all[4]?.type).toBe("run_end");
      expect((await store.events.list(traceId, { after: 2 })).map((e) => e.seq)).toEqual([3, 4, 5]);
      expect((await store.events.list(traceId, { after: 1, limit: 2 })).map((e) => e.seq)).toEqual([2, 3]);
      expect(await store.events.list(traceId, { after: 5 })).toEqual([]);
      expect(await store.events.lastSeq(traceId)).toBe(5);
      expect(await store.steps.list(traceId)).toHaveLength(1);
    });

    it("a gap, a seq reused or a batch out of order is store_conflict, and nothing of the batch is written", async () => {
      const { traceId, fence } = await runStored();
      const refused = async (first: number, list: RunEventInput[]) => {
        const error = await rejection(
          store.apply(
            [
              { op: "insertStep", step: step(traceId, first) },
              { op: "appendEvents", traceId, events: list },
            ],
            { fence },
          ),
        );
        expect(error.code).toBe("store_conflict");
        expect(error.hint).toContain("Nothing of this batch was stored");
        return error;
      };
      // A new run starts at 1.
      await refused(2, events(2, 1));
      await store.apply([{ op: "appendEvents", traceId, events: events(1, 3) }], { fence });
      expect((await refused(5, events(5, 2))).message).toContain(`run ${traceId}`);
      await refused(3, events(3, 1));
      await refused(1, events(1, 1));
      await refused(4, [...events(4, 1), ...events(6, 1)]);
      await refused(4, [...events(5, 1), ...events(4, 1)]);
      expect((await store.events.list(traceId)).map((e) => e.seq)).toEqual([1, 2, 3]);
      expect(await store.steps.list(traceId)).toEqual([]);
      await store.apply([{ op: "appendEvents", traceId, events: events(4, 1) }], { fence });
      expect(await store.events.lastSeq(traceId)).toBe(4);
    });

    it("a writer that lost the run's lease appends nothing", async () => {
      const { traceId, fence } = await runStored();
      await store.leases.release(fence);
      const error = await rejection(
        store.apply([{ op: "appendEvents", traceId, events: events(1, 1) }], { fence }),
      );
      expect(error.code).toBe("lease_lost");
      expect(await store.events.lastSeq(traceId)).toBe(0);
    });

    it("appenders racing for the same seqs: exactly one commits each seq, and the log has no gap", async () => {
      const { traceId } = await runStored();
      const others = await Promise.all(Array.from({ length: 4 }, () => target.open()));
      try {
        let next = 1;
        const outcomes = await Promise.all(
          [store, ...others].map(async (on) => {
            let won = 0;
            for (let round = 0; round < 10; round++) {
              const seq = (await on.events.lastSeq(traceId)) + 1;
              try {
                await on.apply([{ op: "appendEvents", traceId, events: events(seq, 2) }]);
                won++;
              } catch (error) {
                expect((error as { code?: string }).code).toBe("store_conflict");
              }
            }
            return won;
          }),
        );
        next = outcomes.reduce((a, b) => a + b, 0) * 2;
        const seqs = (await store.events.list(traceId)).map((e) => e.seq);
        expect(seqs).toEqual(Array.from({ length: next }, (_, i) => i + 1));
        expect(next).toBeGreaterThanOrEqual(20);
      } finally {
        await Promise.all(others.map((s) => s.close()));
      }
    }, 60_000);

    it("a subscriber hears of an append when it commits, with the run's last seq, and not of a refused one", async () => {
      const { traceId, fence } = await runStored();
      const heard: Array<[string, number]> = [];
      const wake = waitFor<void>((found) =>
        store.events.subscribe((id, lastSeq) => {
          heard.push([id, lastSeq]);
          if (lastSeq === 3) found();
        }),
      );
      const unsubscribe = await wake.ready;
      await rejection(store.apply([{ op: "appendEvents", traceId, events: events(2, 1) }], { fence }));
      await store.apply([{ op: "appendEvents", traceId, events: events(1, 3) }], { fence });
      await wake.value;
      expect(heard).toEqual([[traceId, 3]]);
      await unsubscribe();
      await store.apply([{ op: "appendEvents", traceId, events: events(4, 1) }], { fence });
      await pause(50);
      expect(heard).toEqual([[traceId, 3]]);
    });

    it("gc deletes the events and prompts of the traces it deletes, and keeps the others'", async () => {
      const old = await runStored();
      const kept = await runStored();
      await store.apply([
        { op: "updateTrace", id: old.traceId, patch: { status: "completed", endedAt: T0 } },
      ]);
      const opened: string[] = [];
      for (const run of [old, kept]) {
        await store.apply([{ op: "appendEvents", traceId: run.traceId, events: events(1, 2) }]);
        opened.push((await store.prompts.open(prompt(run.traceId))).id);
        const used = await store.prompts.open(prompt(run.traceId));
        await store.prompts.use(used.id);
      }
      await store.gc(T0 + 1);
      expect(await store.events.list(old.traceId)).toEqual([]);
      expect(await store.prompts.listOfRun(old.traceId)).toEqual([]);
      expect(await target.sql("SELECT prompt_id FROM run_prompt_uses")).toHaveLength(1);
      expect(await store.events.lastSeq(kept.traceId)).toBe(2);
      expect(await store.prompts.listPending(kept.traceId)).toHaveLength(2);
      expect((await store.prompts.listOfRun(kept.traceId)).filter((p) => p.usedAt !== null)).toHaveLength(1);
    });

    it("gc deletes the channel state nothing needs any more, and keeps what a message being answered or an open prompt needs", async () => {
      const old = await runStored();
      const kept = await runStored();
      await store.apply([
        { op: "updateTrace", id: old.traceId, patch: { status: "completed", endedAt: T0 } },
      ]);
      const gone = await store.prompts.open(prompt(old.traceId));
      const open = await store.prompts.open(prompt(kept.traceId, 600_000));
      const settled = await store.prompts.open(prompt(kept.traceId));
      await store.prompts.answer(settled.id, { answer: "sqlite" });
      const message = {
        text: "hi",
        envelope: { receivedAt: T0, channel: "telegram", chatType: "direct" as const, chatId: "42" },
        target: { chatId: "42" },
      };
      const receive = (dedupeKey: string) =>
        store.channels.receive({ id: ulid(), channel: "telegram", dedupeKey, chatKey: "42", message });
      const answered = (await receive("1")).record;
      const sending = (await receive("2")).record;
      await store.channels.transition(answered.id, "received", "reply", { reply: "done" });
      await store.channels.transition(answered.id, "reply", "answered");
      await store.channels.transition(sending.id, "received", "reply", { reply: "going" });
      const state: Record<string, string> = {
        update_offset: "9",
        [`send:${answered.id}`]: "{}",
        [`send:${sending.id}`]: "{}",
        [`send:${ulid()}`]: "{}",
        [`prompt:${gone.id}`]: answered.id,
        [`press:${gone.id}`]: "{}",
        [`prompt:${settled.id}`]: answered.id,
        [`press:${settled.id}`]: "{}",
        [`prompt:${open.id}`]: sending.id,
      };
      for (const [key, value] of Object.entries(state)) await store.channels.setState("telegram", key, value);

      await store.gc(Date.now() + 60_000);
      const left = (await store.channels.listState("telegram", "")).map((row) => row.key).sort();
      expect(left).toEqual(["update_offset", `send:${sending.id}`, `prompt:${open.id}`].sort());
    });
  });

  describe("run queue", () => {
    const worker = (name = "a"): LeaseHolder => ({
      id: `elsewhere.invalid:4242:${name}${ulid().slice(-5)}`,
      host: "elsewhere.invalid",
      pid: 4242,
      role: "worker",
    });
    const fenceOf = (claimed: { lease: { traceId: string; epoch: number } }): LeaseFence => ({
      traceId: claimed.lease.traceId,
      epoch: claimed.lease.epoch,
    });

    it("a queued run is claimed once, with its lease at a new epoch, and finished under that lease", async () => {
      const queued = await store.queue.enqueue({
        id: ulid(),
        sessionId: ulid(),
        task: "fix the flaky test",
        spec: { preset: "default", limits: { maxIterations: 5 } },
      });
      expect(queued.created).toBe(true);
      expect(queued.request).toMatchObject({
        status: "queued",
        attempts: 0,
        maxAttempts: 3,
        lastError: null,
        cancelRequested: false,
        idempotencyKey: null,
        worker: null,
        leaseEpoch: null,
        spec: { preset: "default", limits: { maxIterations: 5 } },
      });
      expect(await store.queue.get(queued.request.id)).toEqual(queued.request);
      const holder = worker();
      const claimed = await store.queue.claim(holder, LONG);
      expect(claimed?.request).toMatchObject({
        id: queued.request.id,
        status: "running",
        attempts: 1,
        worker: holder.id,
        leaseEpoch: 1,
      });
      expect(claimed?.lease).toMatchObject({ traceId: queued.request.id, epoch: 1, holder, state: "held" });
      expect(await store.leases.get(queued.request.id)).toEqual(claimed?.lease);
      expect(await store.queue.claim(worker("b"), LONG)).toBeUndefined();
      const done = await store.queue.finish(fenceOf(claimed!), "completed");
      expect(done).toMatchObject({ status: "completed", lastError: null });
      expect(await store.leases.get(queued.request.id)).toMatchObject({ epoch: 1, state: "released" });
      expect(await store.queue.claim(worker("b"), LONG)).toBeUndefined();
    });

    it("a repeated enqueue with the same idempotency key gives the first request back; an id twice is store_conflict", async () => {
      const first = await enqueue(ulid(), { idempotencyKey: "key-1" });
      const again = await store.queue.enqueue({
        id: ulid(),
        sessionId: ulid(),
        task: "another",
        spec: {},
        idempotencyKey: "key-1",
      });
      expect(again).toEqual({ request: first, created: false });
      const error = await rejection(
        store.queue.enqueue({ id: first.id, sessionId: first.sessionId, task: "x", spec: {} }),
      );
      expect(error.code).toBe("store_conflict");
      expect((await store.queue.list()).map((r) => r.id)).toEqual([first.id]);
    });

    it("enqueues racing with one idempotency key from several connections: exactly one creates", async () => {
      const others = await Promise.all(Array.from({ length: 5 }, () => target.open()));
      try {
        const results = await Promise.all(
          [store, ...others].map((on) =>
            on.queue.enqueue({ id: ulid(), sessionId: "s", task: "t", spec: {}, idempotencyKey: "race" }),
          ),
        );
        expect(results.filter((r) => r.created)).toHaveLength(1);
        expect(new Set(results.map((r) => r.request.id)).size).toBe(1);
        expect(await store.queue.list()).toHaveLength(1);
      } finally {
        await Promise.all(others.map((s) => s.close()));
      }
    });

    it("runs of one session are claimed one at a time, in order; other sessions go meanwhile", async () => {
      const a = ulid();
      const a1 = await enqueue(a);
      const a2 = await enqueue(a);
      const b1 = await enqueue();
      const first = await store.queue.claim(worker(), LONG);
      const second = await store.queue.claim(worker(), LONG);
      expect([first?.request.id, second?.request.id]).toEqual([a1.id, b1.id]);
      expect(await store.queue.claim(worker(), LONG)).toBeUndefined();
      await store.queue.finish(fenceOf(first!), "failed", { code: "tool_failed", message: "boom" });
      expect(await store.queue.get(a1.id)).toMatchObject({
        status: "failed",
        lastError: { code: "tool_failed", message: "boom" },
      });
      expect((await store.queue.claim(worker(), LONG))?.request.id).toBe(a2.id);
      expect((await store.queue.listBySession(a)).map((r) => [r.id, r.status])).toEqual([
        [a1.id, "failed"],
        [a2.id, "running"],
      ]);
    });

    it("a worker that lost the lease can neither finish, put back, nor write the run", async () => {
      const request = await enqueue();
      const stale = await store.queue.claim(worker("old"), { ttlMs: 1 });
      await pause(30);
      const taken = await store.queue.claim(worker("new"), LONG);
      expect(taken?.request).toMatchObject({ id: request.id, attempts: 2, leaseEpoch: 2 });
      expect(taken?.lease.epoch).toBe(2);
      for (const attempt of [
        () => store.queue.finish(fenceOf(stale!), "completed"),
        () => store.queue.retryLater(fenceOf(stale!), null, 0),
        () =>
          store.apply([{ op: "appendEvents", traceId: request.id, events: events(1, 1) }], {
            fence: fenceOf(stale!),
          }),
      ]) {
        const error = await rejection(attempt());
        expect(error.code).toBe("lease_lost");
        expect(error.message).toContain(`run ${request.id} (epoch 1)`);
      }
      expect(await store.queue.get(request.id)).toMatchObject({ status: "running", leaseEpoch: 2 });
      expect(await store.events.lastSeq(request.id)).toBe(0);
      expect((await store.queue.finish(fenceOf(taken!), "completed")).status).toBe("completed");
    });

    it("a run whose workers keep dying is failed with worker_lost after maxAttempts claims, and the queue moves on", async () => {
      const s = ulid();
      const doomed = await enqueue(s, { maxAttempts: 2 });
      const after = await enqueue(s);
      for (let attempt = 1; attempt <= 2; attempt++) {
        const claimed = await store.queue.claim(worker(), { ttlMs: 1 });
        expect(claimed?.request).toMatchObject({ id: doomed.id, attempts: attempt });
        await pause(30);
      }
      const next = await store.queue.claim(worker(), LONG);
      expect(next?.request.id).toBe(after.id);
      const failed = await store.queue.get(doomed.id);
      expect(failed).toMatchObject({ status: "failed", attempts: 2 });
      expect(failed?.lastError?.code).toBe("worker_lost");
      expect(failed?.lastError?.hint).toBeTruthy();
      // The dead worker's lease is revoked: it can never write again, even if it wakes up.
      expect(await store.leases.get(doomed.id)).toMatchObject({ epoch: 3, state: "released" });
    });

    it("a run whose worker died again waits one more lease TTL before it is taken back", async () => {
      const request = await enqueue(ulid(), { maxAttempts: 5 });
      const ttlMs = 10_000;
      const age = (ms: number) =>
        target.sql(
          "UPDATE run_leases SET expires_at = expires_at - ?, renewed_at = renewed_at - ? WHERE trace_id = ?",
          [ms, ms, request.id],
        );
      expect((await store.queue.claim(worker(), { ttlMs }))?.request.attempts).toBe(1);
      await age(ttlMs + 1);
      // The first death: taken back as soon as the lease expired.
      expect((await store.queue.claim(worker(), { ttlMs }))?.request.attempts).toBe(2);
      await age(ttlMs + 1);
      expect(await store.queue.claim(worker(), { ttlMs })).toBeUndefined();
      await age(ttlMs);
      expect((await store.queue.claim(worker(), { ttlMs }))?.request.attempts).toBe(3);
    });

    it("retryLater waits out its delay by the database clock; a graceful release gives the attempt back at once", async () => {
      const request = await enqueue();
      const first = await store.queue.claim(worker(), LONG);
      const error = { code: "provider_unavailable" as const, message: "503" };
      const back = await store.queue.retryLater(fenceOf(first!), error, 60_000);
      expect(back).toMatchObject({ status: "queued", attempts: 1, lastError: error });
      expect(back.notBefore - back.updatedAt).toBe(60_000);
      expect(await store.leases.get(request.id)).toMatchObject({ state: "released" });
      expect(await store.queue.claim(worker(), LONG)).toBeUndefined();
      expect((await store.queue.depth()).queued).toBe(1);
      // Time passes (as the database sees it).
      await target.sql("UPDATE run_requests SET not_before = not_before - 61000 WHERE id = ?", [request.id]);
      const second = await store.queue.claim(worker(), LONG);
      expect(second?.request).toMatchObject({ id: request.id, attempts: 2 });
      expect(second?.lease.epoch).toBe(2);
      const released = await store.queue.retryLater(fenceOf(second!), null, 0);
      expect(released).toMatchObject({ status: "queued", attempts: 1, lastError: error });
      const third = await store.queue.claim(worker(), LONG);
      expect(third?.request).toMatchObject({ id: request.id, attempts: 2, leaseEpoch: 3 });
    });

    it("cancelling a queued run ends it at once; a running one is marked for its worker, which ends it", async () => {
      const queued = await enqueue();
      const running = await enqueue();
      const claimed = await store.queue.claim(worker(), LONG);
      expect(claimed?.request.id).toBe(queued.id);
      expect(await store.queue.requestCancel(running.id)).toMatchObject({ status: "cancelled" });
      expect(await store.queue.requestCancel(queued.id)).toMatchObject({
        status: "running",
        cancelRequested: true,
      });
      expect(await store.queue.requestCancel(ulid())).toBeUndefined();
      // A put-back of a run asked to stop does not requeue it.
      expect((await store.queue.retryLater(fenceOf(claimed!), null, 0)).status).toBe("cancelled");
      expect(await store.queue.requestCancel(queued.id)).toMatchObject({ status: "cancelled" });
      expect(await store.queue.claim(worker(), LONG)).toBeUndefined();
    });

    it("a running run asked to stop whose worker died is cancelled, not taken again", async () => {
      const request = await enqueue();
      await store.queue.claim(worker(), { ttlMs: 1 });
      await store.queue.requestCancel(request.id);
      await pause(30);
      expect(await store.queue.claim(worker(), LONG)).toBeUndefined();
      expect(await store.queue.get(request.id)).toMatchObject({ status: "cancelled", attempts: 1 });
    });

    it("lists by status, counts depth with the oldest wait, and gc removes requests done before the cutoff", async () => {
      expect(await store.queue.depth()).toEqual({ queued: 0, running: 0, oldestQueuedAgeMs: null });
      const one = await enqueue();
      const two = await enqueue();
      const three = await enqueue();
      const claimed = await store.queue.claim(worker(), LONG);
      await pause(5);
      const depth = await store.queue.depth();
      expect(depth).toMatchObject({ queued: 2, running: 1 });
      expect(depth.oldestQueuedAgeMs).toBeGreaterThanOrEqual(0);
      expect((await store.queue.list({ status: "queued" })).map((r) => r.id)).toEqual([two.id, three.id]);
      expect((await store.queue.list({ limit: 2 })).map((r) => r.id)).toEqual([one.id, two.id]);
      await store.queue.finish(fenceOf(claimed!), "completed");
      await store.gc(Date.now() + 60_000);
      expect((await store.queue.list()).map((r) => r.id)).toEqual([two.id, three.id]);
    });

    it("a subscriber hears of each enqueue, put-back and cancellation", async () => {
      const heard: string[] = [];
      let wake = () => {};
      const next = () =>
        new Promise<void>((resolve) => {
          wake = resolve;
        });
      const unsubscribe = await store.queue.subscribe((change) => {
        heard.push(change.kind === "queued" ? "queued" : `cancel ${change.runId}`);
        wake();
      });
      let woken = next();
      const request = await enqueue();
      await woken;
      const claimed = await store.queue.claim(worker(), LONG);
      woken = next();
      await store.queue.requestCancel(request.id);
      await woken;
      woken = next();
      await store.queue.retryLater(fenceOf(claimed!), null, 0);
      await woken;
      expect(heard).toEqual(["queued", `cancel ${request.id}`, "queued"]);
      await unsubscribe();
    });

    it("a run's last writes commit with its finish, and a stale worker's with nothing", async () => {
      const s = session();
      const request = await enqueue(s.id);
      const t = trace(s.id, { id: request.id });
      await store.apply([
        { op: "insertSession", session: s },
        { op: "insertTrace", trace: t },
      ]);
      const stale = await store.queue.claim(worker("old"), { ttlMs: 1 });
      await pause(30);
      const fresh = await store.queue.claim(worker("new"), LONG);
      const last = (epoch: number) => [
        {
          op: "updateTrace" as const,
          id: t.id,
          patch: { status: "completed" as const, endedAt: T0 + epoch },
        },
        { op: "appendEvents" as const, traceId: t.id, events: events(1, 1, "run_end") },
      ];
      const lost = await rejection(store.queue.finish(fenceOf(stale!), "completed", null, { ops: last(1) }));
      expect(lost.code).toBe("lease_lost");
      expect(await store.traces.get(t.id)).toMatchObject({ status: "running", endedAt: null });
      expect(await store.events.lastSeq(t.id)).toBe(0);
      // A batch that fails ends nothing either: the request stays running under its lease.
      const refused = await rejection(
        store.queue.finish(fenceOf(fresh!), "completed", null, {
          ops: [{ op: "appendEvents", traceId: t.id, events: events(2, 1) }],
        }),
      );
      expect(refused.code).toBe("store_conflict");
      expect(await store.queue.get(request.id)).toMatchObject({ status: "running" });
      expect(await store.leases.get(request.id)).toMatchObject({ epoch: 2, state: "held" });
      const done = await store.queue.finish(fenceOf(fresh!), "completed", null, { ops: last(2) });
      expect(done.status).toBe("completed");
      expect(await store.traces.get(t.id)).toMatchObject({ status: "completed", endedAt: T0 + 2 });
      expect((await store.events.list(t.id)).map((e) => e.type)).toEqual(["run_end"]);
      expect(await store.leases.get(request.id)).toMatchObject({ epoch: 2, state: "released" });
    });
  });

  function prompt(
    traceId: string,
    timeoutMs: number | null = 60_000,
    kind: "permission" | "question" = "question",
  ) {
    return {
      id: ulid(),
      traceId,
      kind,
      payload: { question: "Which database?", choices: ["sqlite", "postgres"] },
      timeoutMs,
    };
  }

  describe("prompts", () => {
    it("a prompt opened by a run waits, is answered once, and reads back answered", async () => {
      const { traceId, fence } = await runStored();
      const input = prompt(traceId, 60_000, "permission");
      const opened = await store.prompts.open(input, { fence });
      expect(opened).toMatchObject({
        id: input.id,
        traceId,
        kind: "permission",
        payload: input.payload,
        status: "pending",
        answer: null,
        answeredAt: null,
      });
      expect(opened.expiresAt! - opened.createdAt).toBe(60_000);
      expect((await store.prompts.listPending()).map((p) => p.id)).toEqual([input.id]);
      expect((await store.prompts.listPending(traceId)).map((p) => p.id)).toEqual([input.id]);
      expect(await store.prompts.listPending(ulid())).toEqual([]);
      expect(await store.prompts.answer(input.id, { decision: "allow_once" })).toBe("answered");
      expect(await store.prompts.answer(input.id, { decision: "deny" })).toBe("already_answered");
      expect(await store.prompts.get(input.id)).toMatchObject({
        status: "answered",
        answer: { decision: "allow_once" },
      });
      expect(await store.prompts.listPending()).toEqual([]);
      expect(await store.prompts.answer(ulid(), "x")).toBe("not_found");
    });

    it("answers racing from several connections: exactly one wins", async () => {
      const { traceId } = await runStored();
      const input = prompt(traceId);
      await store.prompts.open(input);
      const others = await Promise.all(Array.from({ length: 5 }, () => target.open()));
      try {
        const outcomes = await Promise.all(
          [store, ...others].map((on, i) => on.prompts.answer(input.id, { answer: `from ${i}` })),
        );
        expect(outcomes.filter((o) => o === "answered")).toHaveLength(1);
        expect(outcomes.filter((o) => o === "already_answered")).toHaveLength(5);
        const winner = outcomes.indexOf("answered");
        expect((await store.prompts.get(input.id))?.answer).toEqual({ answer: `from ${winner}` });
      } finally {
        await Promise.all(others.map((s) => s.close()));
      }
    });

    it("a prompt past its time reads as expired and cannot be answered; expire ends one at once", async () => {
      const { traceId } = await runStored();
      const late = prompt(traceId, 0);
      await store.prompts.open(late);
      await pause(5);
      expect((await store.prompts.get(late.id))?.status).toBe("expired");
      expect(await store.prompts.answer(late.id, "too late")).toBe("expired");
      const waiting = prompt(traceId, null);
      await store.prompts.open(waiting);
      expect((await store.prompts.get(waiting.id))?.expiresAt).toBeNull();
      expect(await store.prompts.expire(waiting.id)).toBe(true);
      expect(await store.prompts.expire(waiting.id)).toBe(false);
      expect(await store.prompts.answer(waiting.id, "now")).toBe("expired");
      expect(await store.prompts.listPending(traceId)).toEqual([]);
    });

    it("a run that lost its lease opens no prompt; the same prompt twice is store_conflict", async () => {
      const { traceId, fence } = await runStored();
      const input = prompt(traceId);
      await store.prompts.open(input, { fence });
      expect((await rejection(store.prompts.open(input, { fence }))).code).toBe("store_conflict");
      await store.leases.release(fence);
      const other = prompt(traceId);
      expect((await rejection(store.prompts.open(other, { fence }))).code).toBe("lease_lost");
      expect(await store.prompts.get(other.id)).toBeUndefined();
    });

    it("a prompt's answer is marked as acted on once, whichever connection marks it, and reads back so", async () => {
      const { traceId } = await runStored();
      const input = prompt(traceId);
      await store.prompts.open(input);
      await store.prompts.answer(input.id, { answer: "sqlite" });
      expect((await store.prompts.get(input.id))?.usedAt).toBeNull();
      const others = await Promise.all(Array.from({ length: 3 }, () => target.open()));
      try {
        const marks = await Promise.all([store, ...others].map((on) => on.prompts.use(input.id)));
        expect(marks.filter(Boolean)).toHaveLength(1);
      } finally {
        await Promise.all(others.map((s) => s.close()));
      }
      const used = await store.prompts.get(input.id);
      expect(used).toMatchObject({ status: "answered", answer: { answer: "sqlite" } });
      expect(used?.usedAt).toBeGreaterThanOrEqual(used?.answeredAt ?? Number.POSITIVE_INFINITY);
      expect((await store.prompts.listOfRun(traceId)).map((p) => p.usedAt)).toEqual([used?.usedAt]);
      expect(await store.prompts.use(ulid())).toBe(false);
    });

    it("a subscriber hears of an answer with its run and prompt", async () => {
      const { traceId } = await runStored();
      const input = prompt(traceId);
      await store.prompts.open(input);
      const wake = waitFor<[string, string]>((found) =>
        store.prompts.subscribe((run, promptId) => found([run, promptId])),
      );
      const unsubscribe = await wake.ready;
      await store.prompts.answer(input.id, "yes");
      expect(await wake.value).toEqual([traceId, input.id]);
      await unsubscribe();
    });
  });

  describe("idempotency keys", () => {
    it("the first request runs and its response is kept; a repeat gets it back without running", async () => {
      let made = 0;
      const make = async () => ({ sessionId: `s${++made}` });
      expect(await store.idempotency.remember("sessions", "k1", "hash-a", make)).toEqual({
        response: { sessionId: "s1" },
        replayed: false,
      });
      expect(await store.idempotency.remember("sessions", "k1", "hash-a", make)).toEqual({
        response: { sessionId: "s1" },
        replayed: true,
      });
      // Another scope is another key.
      expect((await store.idempotency.remember("runs", "k1", "hash-b", make)).response).toEqual({
        sessionId: "s2",
      });
      expect(made).toBe(2);
      const error = await rejection(store.idempotency.remember("sessions", "k1", "hash-other", make));
      expect(error.code).toBe("idempotency_conflict");
      expect(error.hint).toContain("new idempotency key");
      expect(made).toBe(2);
    });

    it("a failed first request frees the key; a repeat while the first runs is a conflict; gc forgets old keys", async () => {
      await rejection(
        store.idempotency.remember("sessions", "k2", "h", async () => {
          throw new (await import("../../src/core/errors.js")).ResonError("tool_failed", "no");
        }),
      );
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const first = store.idempotency.remember("sessions", "k2", "h", async () => {
        await gate;
        return { ok: 1 };
      });
      await pause(20);
      const during = await rejection(
        store.idempotency.remember("sessions", "k2", "h", async () => ({ ok: 2 })),
      );
      expect(during.code).toBe("idempotency_conflict");
      expect(during.details).toMatchObject({ inProgress: true });
      release();
      expect(await first).toEqual({ response: { ok: 1 }, replayed: false });
      await store.gc(Date.now() + 60_000);
      expect(await store.idempotency.remember("sessions", "k2", "other", async () => ({ ok: 3 }))).toEqual({
        response: { ok: 3 },
        replayed: false,
      });
    });

    it("a first request that died holding the key is taken over once it is stale", async () => {
      await target.sql(
        "INSERT INTO idempotency_keys (scope, key, request_hash, response, created_at) VALUES ('sessions', 'k3', 'h', NULL, 0)",
      );
      expect(await store.idempotency.remember("sessions", "k3", "h", async () => ({ ok: true }))).toEqual({
        response: { ok: true },
        replayed: false,
      });
    });
  });

  describe("the queue drained by several processes", () => {
    let built: BuiltStore;
    beforeAll(async () => {
      built = await buildStore();
    });
    afterAll(() => built.cleanup());

    interface Claim {
      worker: number;
      id: string;
      sessionId: string;
      epoch: number;
      attempts: number;
      runningInSession: string[];
      claimedAt: number;
      finishedAt: number;
      abandoned?: true;
      lost?: true;
    }

    /** Runs `count` claim-worker.mjs processes until the queue is empty; every claim they report. */
    async function drain(
      count: number,
      options: { ttlMs?: number; abandonEvery?: number },
    ): Promise<Claim[]> {
      const racers = Array.from({ length: count }, (_, worker) => {
        const job = { storeModule: built.indexUrl, ...target.openOptions, worker, ...options };
        const child = spawn(
          process.execPath,
          [join(import.meta.dirname, "claim-worker.mjs"), JSON.stringify(job)],
          {
            stdio: ["pipe", "pipe", "pipe"],
          },
        );
        let stdout = "";
        let stderr = "";
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          stdout += chunk;
        });
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
          stderr += chunk;
        });
        const ready = new Promise<void>((resolve, reject) => {
          const check = () => (stdout.startsWith("ready\n") ? resolve() : undefined);
          child.stdout.on("data", check);
          child.once("close", () => reject(new Error(`worker ${worker} exited early: ${stderr}`)));
        });
        const closed = new Promise<number | null>((resolve) => child.once("close", resolve));
        return { child, ready, closed, out: () => stdout, err: () => stderr };
      });
      await Promise.all(racers.map((r) => r.ready));
      for (const r of racers) r.child.stdin.write("go\n");
      const codes = await Promise.all(racers.map((r) => r.closed));
      const claims: Claim[] = [];
      for (const [i, r] of racers.entries()) {
        expect(r.err()).toBe("");
        expect(codes[i]).toBe(0);
        for (const line of r.out().split("\n").slice(1).filter(Boolean)) claims.push(JSON.parse(line));
      }
      return claims;
    }

    it("6 processes claiming 50 runs: each is claimed once at epoch 1, and a session never runs two at once", async () => {
      const sessions = Array.from({ length: 10 }, () => ulid());
      const queued: { id: string; sessionId: string }[] = [];
      for (let i = 0; i < 50; i++) {
        // Ten sessions of four runs each, and ten sessions of one.
        const sessionId = i < 40 ? sessions[i % 10]! : ulid();
        queued.push(await enqueue(sessionId));
      }
      const claims = await drain(6, {});
      expect(claims).toHaveLength(50);
      expect(claims.map((c) => c.id).sort()).toEqual(queued.map((q) => q.id).sort());
      for (const claim of claims) {
        expect(claim).toMatchObject({ epoch: 1, attempts: 1, runningInSession: [claim.id] });
      }
      // A session's runs went one after another, in the order they were queued.
      for (const sessionId of sessions) {
        const order = queued
          .filter((q) => q.sessionId === sessionId)
          .map((q) => claims.find((c) => c.id === q.id)!);
        for (let i = 1; i < order.length; i++) {
          expect(order[i]!.claimedAt).toBeGreaterThanOrEqual(order[i - 1]!.finishedAt);
        }
      }
      // More than one worker did some of the work (they ran side by side).
      expect(new Set(claims.map((c) => c.worker)).size).toBeGreaterThan(1);
      expect(await store.queue.depth()).toEqual({ queued: 0, running: 0, oldestQueuedAgeMs: null });
      expect((await store.queue.list({ status: "completed" })).length).toBe(50);
    }, 120_000);

    it("5 processes that walk away from every third run: the expired ones are taken over at the next epoch, and each run completes once", async () => {
      const sessions = Array.from({ length: 8 }, () => ulid());
      const queued: { id: string; sessionId: string }[] = [];
      for (let i = 0; i < 40; i++) queued.push(await enqueue(sessions[i % 8], { maxAttempts: 100 }));
      const claims = await drain(5, { ttlMs: 150, abandonEvery: 3 });
      // A claim lost to a held-up worker (a loaded machine) ends like an abandoned one: next epoch.
      const finished = claims.filter((c) => !c.abandoned && !c.lost);
      expect(finished.map((c) => c.id).sort()).toEqual(queued.map((q) => q.id).sort());
      expect(claims.filter((c) => c.abandoned).length).toBeGreaterThan(0);
      // No run's lease was handed out twice at one epoch; each takeover is the next epoch.
      for (const { id } of queued) {
        const epochs = claims.filter((c) => c.id === id).map((c) => c.epoch);
        expect(epochs.sort((x, y) => x - y)).toEqual(epochs.map((_, i) => i + 1));
      }
      for (const claim of finished) expect(claim.runningInSession).toEqual([claim.id]);
      expect((await store.queue.list({ status: "completed" })).length).toBe(40);
    }, 120_000);
  });
}
