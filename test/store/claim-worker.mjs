// One of several processes draining the run queue at once: opens the store, prints "ready",
// waits for "go" on stdin, then claims runs until the queue is empty. For each claim it checks
// that no other run of the session is running, holds the run a moment, finishes it, and prints
// one JSON line: the run, its session, its epoch and the claim and finish times (database clock).
// With "abandonEvery": N it walks away from every Nth run it claims without a word, as a worker
// that died would (its lease, of "ttlMs", then expires and another worker takes the run over).
// A finish refused as "lease_lost" (this worker was held up past its lease) is printed as lost.
//   node claim-worker.mjs '{"storeModule": "file:…/index.js", "home": "…", "databaseUrl": "…", "worker": 3}'
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";

const job = JSON.parse(process.argv[2] ?? "{}");
const { openStore, leaseHolder } = await import(job.storeModule);

const store = await openStore({ home: job.home, databaseUrl: job.databaseUrl });
const lines = createInterface({ input: process.stdin });
const next = lines[Symbol.asyncIterator]();
process.stdout.write("ready\n");
await next.next();

const holder = leaseHolder(`worker ${job.worker}`);
let claims = 0;
for (;;) {
  const claimed = await store.queue.claim(holder, { ttlMs: job.ttlMs ?? 60_000 });
  if (!claimed) {
    const depth = await store.queue.depth();
    if (depth.queued === 0 && depth.running === 0) break;
    await sleep(2);
    continue;
  }
  const { request, lease } = claimed;
  claims++;
  if (job.abandonEvery && claims % job.abandonEvery === 0) {
    process.stdout.write(
      `${JSON.stringify({ worker: job.worker, id: request.id, epoch: lease.epoch, abandoned: true })}\n`,
    );
    continue;
  }
  const running = (await store.queue.listBySession(request.sessionId)).filter((r) => r.status === "running");
  await sleep(Math.floor(Math.random() * 4));
  let done;
  try {
    done = await store.queue.finish({ traceId: request.id, epoch: lease.epoch }, "completed");
  } catch (error) {
    // A worker held up past its lease (a loaded machine) loses the run to the next epoch, as
    // the protocol intends: it says so and claims on, as a real worker would.
    if (error?.code !== "lease_lost") throw error;
    process.stdout.write(
      `${JSON.stringify({ worker: job.worker, id: request.id, epoch: lease.epoch, lost: true })}\n`,
    );
    continue;
  }
  process.stdout.write(
    `${JSON.stringify({
      worker: job.worker,
      id: request.id,
      sessionId: request.sessionId,
      epoch: lease.epoch,
      attempts: request.attempts,
      runningInSession: running.map((r) => r.id),
      claimedAt: request.updatedAt,
      finishedAt: done.updatedAt,
    })}\n`,
  );
}
lines.close();
await store.close();
