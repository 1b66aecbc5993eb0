// How fast the store commits turns, on SQLite (a file on disk, WAL, synchronous=NORMAL) and on
// PostgreSQL (RESON_TEST_DATABASE_URL, else a throw-away local cluster with default durability,
// over loopback TCP). Two shapes, each committed one batch at a time as the loop does:
//   loop step   — 1 turn + 1 step + checkpoint in one batch
//   single turn — 1 turn per batch
// Prints turns per second, median (min–max) over fresh databases, as a markdown table.
//   npm run build && node bench/store-append.mjs [--turns 1000] [--runs 5]
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { runnerImport } from "vite";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const TURNS = arg("turns", 1000);
const RUNS = arg("runs", 5);
const ROOT = resolve(import.meta.dirname, "..");
const STORE = join(ROOT, "dist/store/index.js");
if (!existsSync(STORE)) {
  console.error("dist/store/index.js is missing: run `npm run build` first.");
  process.exit(1);
}
const { openStore } = await import(STORE);
const load = async (path) =>
  (await runnerImport(join(ROOT, path), { configFile: false, logLevel: "silent" })).module;
const pgServer = await load("test/store/postgres-server.ts");
const { session, trace, turn, step } = await load("test/store/fixtures.ts");

/** Appends TURNS turns to a new session of a fresh store; turns per second. */
async function once(open, shape) {
  const store = await open();
  try {
    const s = session();
    const t = trace(s.id);
    await store.apply([
      { op: "insertSession", session: { ...s, lastTraceId: t.id } },
      { op: "insertTrace", trace: t },
    ]);
    // A typical assistant turn: a paragraph of text and a tool call.
    const text = "I will read the failing test first, then the module it covers. ".repeat(8);
    const started = performance.now();
    for (let i = 0; i < TURNS; i++) {
      const content = {
        role: "assistant",
        content: [
          { type: "text", text },
          { type: "toolCall", id: `call_${i}`, name: "read_file", arguments: { path: `src/file-${i}.ts` } },
        ],
      };
      const ops = [{ op: "appendTurn", turn: turn(s.id, i, { traceId: t.id, content }) }];
      if (shape === "loop step") {
        const at = Date.now();
        ops.push(
          { op: "insertStep", step: step(t.id, i, { data: { message: content, usage: s.usage } }) },
          {
            op: "putCheckpoint",
            checkpoint: { traceId: t.id, step: i, state: { step: i, turns: i + 1 }, updatedAt: at },
          },
        );
      }
      await store.apply(ops);
    }
    return TURNS / ((performance.now() - started) / 1000);
  } finally {
    await store.close();
  }
}

function summary(rates) {
  const sorted = [...rates].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  const f = (n) => Math.round(n).toLocaleString("en-US");
  return `${f(median)} (${f(sorted[0])}–${f(sorted.at(-1))})`;
}

async function measure(name, fresh) {
  const row = [name];
  for (const shape of ["loop step", "single turn"]) {
    const rates = [];
    for (let run = 0; run < RUNS; run++) {
      const { open, cleanup } = await fresh();
      try {
        rates.push(await once(open, shape));
      } finally {
        await cleanup();
      }
    }
    row.push(summary(rates));
  }
  return row;
}

const rows = [];
rows.push(
  await measure("SQLite (WAL, synchronous=NORMAL)", async () => {
    const home = await mkdtemp(join(tmpdir(), "reson-bench-store-"));
    return { open: () => openStore({ home }), cleanup: () => rm(home, { recursive: true, force: true }) };
  }),
);

const availability = pgServer.postgresAvailability();
if (availability.available) {
  const server = await pgServer.startTestPostgres({ durable: true });
  try {
    const home = await mkdtemp(join(tmpdir(), "reson-bench-store-"));
    const on = (options) => async () => {
      const url = new URL(await server.createDatabase());
      if (options) url.searchParams.set("options", options);
      return { open: () => openStore({ home, databaseUrl: url.toString() }), cleanup: async () => {} };
    };
    rows.push(await measure("PostgreSQL (synchronous_commit=on)", on()));
    // What SQLite's NORMAL does: no flush to disk per commit. Shown for a like-for-like comparison.
    rows.push(await measure("PostgreSQL (synchronous_commit=off)", on("-c synchronous_commit=off")));
    await rm(home, { recursive: true, force: true });
  } finally {
    await server.stop();
  }
} else {
  rows.push(["PostgreSQL", `not measured: ${availability.reason}`, ""]);
}

console.log(
  `\nTurns committed per second, one batch at a time; median (min–max) of ${RUNS} runs of ${TURNS} turns.\n`,
);
console.log("| store | loop step (turn + step + checkpoint) | single turn |");
console.log("| --- | ---: | ---: |");
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
