// What moving snapshots into a worker thread (issue 28) would cost at a run's start, measured
// before building it: how long a worker takes from `new Worker` to its first message, bare and
// with the snapshot store's code loaded (bundled by esbuild on its own, as a worker entry of
// the CLI bundle would be, and as tsc's dist/snapshots/index.js, which loads the whole
// workspace and store layers through their index files), and how long the main thread's event
// loop stalls while a worker starts. Medians of --turns (default 7); load from uptime.
//   npm run build && node bench/snapshot-worker-start.mjs [--turns 7]
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { build } from "esbuild";

const root = resolve(import.meta.dirname, "..");
const at = process.argv.indexOf("--turns");
const turns = at > 0 ? Number(process.argv[at + 1]) : 7;
const dir = mkdtempSync(join(tmpdir(), "reson-bench-worker-"));

const entry = join(dir, "entry.ts");
writeFileSync(
  entry,
  [
    'import { parentPort } from "node:worker_threads";',
    `import { SnapshotStore } from ${JSON.stringify(join(root, "src/snapshots/snapshot-store.ts"))};`,
    "parentPort.postMessage(typeof SnapshotStore);",
    "",
  ].join("\n"),
);
const bundled = join(dir, "snapshot-worker.cjs");
await build({
  entryPoints: [entry],
  outfile: bundled,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node22",
  minify: true,
  logLevel: "error",
  external: ["better-sqlite3", "sqlite-vec", "pg", "@mariozechner/pi-ai", "yaml", "@node-rs/jieba"],
});

const workers = {
  bare: { source: 'require("node:worker_threads").parentPort.postMessage(1);', eval: true },
  bundled: { source: bundled, eval: false },
  tsc: {
    source: `import(${JSON.stringify(join(root, "dist/snapshots/index.js"))}).then(() => require("node:worker_threads").parentPort.postMessage(1));`,
    eval: true,
  },
};

/** ms from `new Worker` to its first message, and the main thread's longest stall meanwhile. */
async function start({ source, eval: isEval }) {
  let last = performance.now();
  let stall = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  const t0 = performance.now();
  const worker = new Worker(source, { eval: isEval });
  await new Promise((done, fail) => {
    worker.once("message", done);
    worker.once("error", fail);
  });
  const ms = performance.now() - t0;
  clearInterval(ticker);
  await worker.terminate();
  return { ms, stall };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const results = Object.fromEntries(Object.keys(workers).map((name) => [name, { ms: [], stall: [] }]));
for (let turn = 0; turn < turns; turn++) {
  // Alternating, so that the load changes alike for each.
  for (const [name, worker] of Object.entries(workers)) {
    const { ms, stall } = await start(worker);
    results[name].ms.push(ms);
    results[name].stall.push(stall);
  }
}
const load = loadavg()
  .map((value) => value.toFixed(2))
  .join(" ");
console.log(
  `Worker start, ${turns} turns, load ${load}; bundle ${(statSync(bundled).size / 1024).toFixed(0)} KB`,
);
for (const [name, { ms, stall }] of Object.entries(results))
  console.log(
    `- ${name}: first message p50 ${median(ms).toFixed(1)} ms; main thread's longest stall p50 ${median(stall).toFixed(1)} ms`,
  );
rmSync(dir, { recursive: true, force: true });
