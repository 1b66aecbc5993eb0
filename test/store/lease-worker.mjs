// One of several processes racing for the same run's lease: opens the store, prints "ready",
// waits for "go" on stdin, tries to acquire, prints one JSON line with the outcome, and stays
// alive (holding what it won) until stdin ends; the winner then commits one fenced batch.
//   node lease-worker.mjs '{"storeModule": "file:…/index.js", "fixturesModule": "file:…/fixtures.js",
//                           "home": "…", "databaseUrl": "…", "worker": 3, "traceId": "…", "ttlMs": 60000}'
import { createInterface } from "node:readline";

const job = JSON.parse(process.argv[2] ?? "{}");
const { openStore, leaseHolder } = await import(job.storeModule);
const { step } = await import(job.fixturesModule);

const store = await openStore({ home: job.home, databaseUrl: job.databaseUrl });
const lines = createInterface({ input: process.stdin });
const next = lines[Symbol.asyncIterator]();
process.stdout.write("ready\n");
await next.next();

let lease;
try {
  lease = await store.leases.acquire(job.traceId, leaseHolder(`worker ${job.worker}`), { ttlMs: job.ttlMs });
  process.stdout.write(`${JSON.stringify({ worker: job.worker, won: true, epoch: lease.epoch })}\n`);
} catch (error) {
  process.stdout.write(
    `${JSON.stringify({ worker: job.worker, won: false, code: error.code, message: error.message })}\n`,
  );
}
// Until stdin ends: a winner that exited at once would look like a crashed holder to the rest.
while (!(await next.next()).done) {}
if (lease) {
  await store.apply([{ op: "insertStep", step: step(job.traceId, job.worker) }], {
    fence: { traceId: job.traceId, epoch: lease.epoch },
  });
  await store.leases.release({ traceId: job.traceId, epoch: lease.epoch });
}
await store.close();
