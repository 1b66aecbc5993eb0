// One of several processes writing to the same database at once: opens the store, makes its
// own session and trace, then commits `batches` loop-step batches (turn + step + checkpoint +
// trace update + tool call), and prints one JSON line with what it committed. With
// `--announce`, prints the ids first and "committed N" after each batch (for the SIGKILL test).
//   node append-worker.mjs '{"storeModule": "file:…/index.js", "fixturesModule": "file:…/fixtures.js",
//                            "home": "…", "databaseUrl": "…", "worker": 3, "batches": 200, "projectKey": "…"}'
const job = JSON.parse(process.argv[2] ?? "{}");
const announce = process.argv.includes("--announce");
const { openStore } = await import(job.storeModule);
const { session, trace, turn, step } = await import(job.fixturesModule);

const store = await openStore({ home: job.home, databaseUrl: job.databaseUrl });
const s = session({ projectKey: job.projectKey, title: `worker ${job.worker}` });
const t = trace(s.id, { task: `worker ${job.worker}` });
await store.apply([
  { op: "insertSession", session: { ...s, lastTraceId: t.id } },
  { op: "insertTrace", trace: t },
]);
if (announce) process.stdout.write(`session ${s.id} ${t.id}\n`);

for (let i = 0; i < job.batches; i++) {
  const at = Date.now();
  await store.apply([
    {
      op: "appendTurn",
      turn: turn(s.id, i, { traceId: t.id, content: { text: `worker ${job.worker} turn ${i} ✓` } }),
    },
    { op: "insertStep", step: step(t.id, i, { data: { i, text: "x".repeat(200) } }) },
    { op: "putCheckpoint", checkpoint: { traceId: t.id, step: i, state: { next: i + 1 }, updatedAt: at } },
    { op: "updateTrace", id: t.id, patch: { steps: i + 1, updatedAt: at } },
    // Every worker counts the same tool: the same row, updated by all processes at once.
    {
      op: "recordToolCall",
      projectKey: job.projectKey,
      tool: "read_file",
      ok: i % 4 !== 0,
      durationMs: 2,
      at,
    },
  ]);
  if (announce) process.stdout.write(`committed ${i}\n`);
}
await store.close();
process.stdout.write(
  `${JSON.stringify({ worker: job.worker, sessionId: s.id, traceId: t.id, batches: job.batches })}\n`,
);
