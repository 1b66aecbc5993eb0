// The service of issue 14, measured with the built CLI against a zero-latency OpenAI-compatible
// model on loopback (in this process), on PostgreSQL (a throw-away cluster with a real server's
// durability and track_commit_timestamp on, or RESON_BENCH_DATABASE_URL) and on SQLite:
//   throughput  runs per second through the queue with 1, 2 and 4 `reson worker` processes
//   step        ms per step of one 20-step run: `reson run` in one process (the baseline) against
//               a worker, on PostgreSQL and SQLite, and `reson serve`'s own executor on SQLite
//   takeover    SIGKILL of a worker in a step to another worker's first committed step of the
//               run, with a short lease TTL and the default 30 s
//   sse         commit of an event to its frame reaching an SSE client of `reson serve`: serve
//               executing on SQLite, and a worker on PostgreSQL (LISTEN/NOTIFY)
// Every figure is a median over rounds; the cases of a round take turns, so load on the shared
// machine falls on all of them alike.
//   npm run build && node bench/service.mjs [--rounds 3] [--runs 100] [--only throughput,step,takeover,sse]
//     [--ttl 3000,30000] [--no-fsync]
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { runnerImport } from "vite";

const argOf = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const ROUNDS = Number(argOf("rounds", 3));
const RUNS = Number(argOf("runs", 100));
const RUN_STEPS = Number(argOf("run-steps", 5));
const STEP_STEPS = Number(argOf("step-steps", 20));
const SSE_STEPS = Number(argOf("sse-steps", 50));
const FLEETS = argOf("workers", "1,2,4").split(",").map(Number);
const TTLS = argOf("ttl", "3000,30000").split(",").map(Number);
const ONLY = new Set(argOf("only", "throughput,step,takeover,sse").split(","));
const ROOT = resolve(import.meta.dirname, "..");
const CLI = join(ROOT, "bin/reson.js");
const { openStore } = await import(join(ROOT, "dist/store/index.js"));
const { ulid } = await import(join(ROOT, "dist/core/ids.js"));

// The wall clock, as PostgreSQL's commit timestamps and the events' ts read it
// (performance.timeOrigin + performance.now() drifted from it by a few ms here).
const now = () => Date.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : "–");
const range = (xs, digits = 1) => `${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)}`;
const log = (...parts) =>
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${parts.join(" ")}\n`);

// ---- the model: stateless, by task. "bench steps N …": N read_file calls, then an answer;
// "slow steps N …": N commands of 0.2 s (a worker is killed inside one); anything else (the
// reflection after a run) is answered at once.
function sse(res, chunks) {
  res.writeHead(200, { "content-type": "text/event-stream" });
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  res.end("data: [DONE]\n\n");
}
const modelRequests = { count: 0 };
const model = createServer((req, res) => {
  let raw = "";
  req.setEncoding("utf8");
  req.on("data", (d) => {
    raw += d;
  });
  req.on("end", () => {
    modelRequests.count++;
    const body = JSON.parse(raw || "{}");
    const messages = body.messages ?? [];
    const task = String(messages.find((m) => m.role === "user")?.content ?? "");
    const done = messages.filter((m) => m.role === "assistant").length;
    const match = /^(bench|slow) steps (\d+)/.exec(task);
    const base = { id: "c1", object: "chat.completion.chunk", created: 0, model: "fake" };
    const usage = {
      ...base,
      choices: [],
      usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
    };
    if (match && done < Number(match[2])) {
      const call =
        match[1] === "bench"
          ? { name: "read_file", arguments: JSON.stringify({ path: "note.txt" }) }
          : { name: "execute_command", arguments: JSON.stringify({ command: "sleep 0.2" }) };
      sse(res, [
        {
          ...base,
          choices: [
            {
              index: 0,
              delta: {
                role: "assistant",
                tool_calls: [{ index: 0, id: `call_${done}`, type: "function", function: call }],
              },
              finish_reason: null,
            },
          ],
        },
        { ...base, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
        usage,
      ]);
      return;
    }
    sse(res, [
      {
        ...base,
        choices: [{ index: 0, delta: { role: "assistant", content: "done" }, finish_reason: null }],
      },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
      usage,
    ]);
  });
});
await new Promise((r) => model.listen(0, "127.0.0.1", r));
const BASE_URL = `http://127.0.0.1:${model.address().port}/v1`;

// ---- PostgreSQL: the tests' throw-away cluster, durable like a real server.
const { startTestPostgres } = (
  await runnerImport(join(ROOT, "test/store/postgres-server.ts"), { configFile: false, logLevel: "silent" })
).module;
if (process.env.RESON_BENCH_DATABASE_URL)
  process.env.RESON_TEST_DATABASE_URL = process.env.RESON_BENCH_DATABASE_URL;
// --no-fsync: fsync and synchronous commit off, to tell the disk's share of a commit from the rest.
const DURABLE = !process.argv.includes("--no-fsync");
const postgres = await startTestPostgres({ durable: DURABLE, settings: ["track_commit_timestamp=on"] });
log(`PostgreSQL: ${postgres.description}`);

// ---- processes
const scratch = mkdtempSync(join(tmpdir(), "reson-bench-service-"));
let dirs = 0;
/** A fresh RESON_HOME and workspace (with the file the runs read). */
function place() {
  const dir = join(scratch, String(++dirs));
  const home = join(dir, "home");
  const workspace = join(dir, "ws");
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, "note.txt"), "a small file the benchmark reads at every step\n");
  return { home, workspace };
}

function envFor(home, databaseUrl, extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith("RESON_") || /_API_KEY$/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, RESON_HOME: home, ...(databaseUrl ? { RESON_DATABASE_URL: databaseUrl } : {}), ...extra };
}

const children = new Set();
function startReson(args, { env, cwd }) {
  const child = spawn(process.execPath, [CLI, ...args], { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let text = "";
  const waiters = new Set();
  const onData = (d) => {
    text += d;
    for (const w of waiters) w();
  };
  child.stdout.setEncoding("utf8").on("data", onData);
  child.stderr.setEncoding("utf8").on("data", onData);
  const exited = new Promise((r) =>
    child.on("exit", (code, signal) => {
      children.delete(child);
      r({ code, signal });
      for (const w of waiters) w();
    }),
  );
  return {
    child,
    text: () => text,
    exited: () => exited,
    kill: (signal = "SIGTERM") => child.kill(signal),
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolvePromise, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${pattern} within ${timeoutMs} ms from reson ${args[0]}:\n${text}`));
        }, timeoutMs);
        const check = () => {
          const match = text.match(pattern);
          if (match) {
            clearTimeout(timer);
            waiters.delete(check);
            resolvePromise(match);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(new Error(`reson ${args[0]} exited:\n${text}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
  };
}
async function stopAll() {
  await Promise.all(
    [...children].map((child) => {
      const gone = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      return gone;
    }),
  );
}

const startWorker = (home, databaseUrl, workspace, args = []) =>
  startReson(["worker", "--log-format", "json", ...args], { env: envFor(home, databaseUrl), cwd: workspace });

const runSpec = (workspace, extra = {}) => ({
  workspace,
  provider: "openai-compatible",
  baseUrl: BASE_URL,
  model: "fake",
  maxIterations: 200,
  sandbox: "off",
  ...extra,
});

/** A session and one queued run in it, straight into the store as `reson serve` queues them. */
async function queueRun(store, workspace, task, spec) {
  const sessionId = ulid();
  const runId = ulid();
  const at = Date.now();
  await store.apply([
    {
      op: "insertSession",
      session: {
        id: sessionId,
        projectKey: "bench",
        workspace,
        title: task,
        status: "active",
        settings: { provider: "openai-compatible", model: "fake" },
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, costUsd: 0 },
        lastTraceId: null,
        createdAt: at,
        updatedAt: at,
      },
    },
  ]);
  await store.queue.enqueue({ id: runId, sessionId, task, spec, maxAttempts: 5 });
  return runId;
}

async function waitDrained(store, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const depth = await store.queue.depth();
    if (depth.queued + depth.running === 0) return;
    if (Date.now() > deadline) throw new Error(`queue not drained: ${JSON.stringify(depth)}`);
    await sleep(20);
  }
}

/** The run's span from its committed events: run_start to run_end, and its step count. */
async function runSpan(store, runId) {
  const events = await store.events.list(runId);
  const start = events.find((e) => e.type === "run_start");
  const end = events.findLast((e) => e.type === "run_end");
  if (!start || !end) throw new Error(`run ${runId} has no run_start/run_end`);
  if (end.data.status !== "completed") throw new Error(`run ${runId} ended ${end.data.status}`);
  return { ms: end.ts - start.ts, steps: end.data.steps ?? end.step, start: start.ts, end: end.ts };
}

const table = (headers, rows) =>
  [
    `| ${headers.join(" | ")} |`,
    `|${headers.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
const report = [];
const out = (text) => {
  report.push(text);
  process.stdout.write(`${text}\n`);
};

// ---- 1. throughput
async function throughput() {
  const rates = new Map(FLEETS.map((n) => [n, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const n of FLEETS) {
      const url = await postgres.createDatabase();
      const { home, workspace } = place();
      const store = await openStore({ home, databaseUrl: url });
      // The schema is made by the first opener: before the workers race to it.
      const workers = Array.from({ length: n }, () => startWorker(home, url, workspace));
      await Promise.all(workers.map((w) => w.waitFor(/worker started/)));
      const t0 = Date.now();
      const ids = [];
      for (let i = 0; i < RUNS; i++)
        ids.push(await queueRun(store, workspace, `bench steps ${RUN_STEPS} run ${i}`, runSpec(workspace)));
      await waitDrained(store);
      let last = 0;
      for (const id of ids) last = Math.max(last, (await runSpan(store, id)).end);
      const rate = RUNS / ((last - t0) / 1000);
      rates.get(n).push(rate);
      log(`throughput round ${round + 1}: ${n} worker(s) ${rate.toFixed(1)} runs/s`);
      await stopAll();
      await store.close();
    }
  }
  const base = median(rates.get(FLEETS[0]));
  out(
    `\n### Runs per second through the queue (PostgreSQL, ${RUNS} runs of ${RUN_STEPS} steps, ${ROUNDS} rounds)\n`,
  );
  out(
    table(
      ["workers", "runs/s median", "min–max", "steps/s median", `× ${FLEETS[0]} worker`],
      FLEETS.map((n) => {
        const xs = rates.get(n);
        return [
          n,
          fmt(median(xs)),
          range(xs),
          fmt(median(xs) * (RUN_STEPS + 1), 0),
          fmt(median(xs) / base, 2),
        ];
      }),
    ),
  );
}

// ---- 2. per-step time
async function cliRun(home, databaseUrl, workspace, task) {
  const started = startReson(
    [
      "run",
      "--json",
      "--provider",
      "openai-compatible",
      "--base-url",
      BASE_URL,
      "--model",
      "fake",
      "--max-iterations",
      "200",
      "--sandbox",
      "off",
      task,
    ],
    { env: envFor(home, databaseUrl), cwd: workspace },
  );
  const { code } = await started.exited();
  if (code !== 0) throw new Error(`reson run exited ${code}:\n${started.text()}`);
  const events = started
    .text()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));
  const start = events.find((e) => e.type === "run_start");
  const end = events.findLast((e) => e.type === "run_end");
  if (end?.status !== "completed") throw new Error(`reson run ended ${end?.status}:\n${started.text()}`);
  return { ms: end.ts - start.ts, steps: end.steps };
}

async function serveProcess(home, databaseUrl, workspace, args = []) {
  const serve = startReson(["serve", "--port", "0", "--log-format", "json", ...args], {
    env: envFor(home, databaseUrl),
    cwd: workspace,
  });
  const [, url] = await serve.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
  const token = readFileSync(join(home, "serve-token"), "utf8").trim();
  const post = async (path, body) => {
    const response = await fetch(`${url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 400) throw new Error(`POST ${path}: ${response.status} ${text}`);
    return JSON.parse(text);
  };
  return { serve, url, token, post };
}

async function stepTimes() {
  const task = (i) => `bench steps ${STEP_STEPS} step-time ${i}`;
  const cases = [
    "reson run, SQLite",
    "reson worker, SQLite",
    "reson serve executor, SQLite",
    "reson run, PostgreSQL",
    "reson worker, PostgreSQL",
  ];
  const perStep = new Map(cases.map((c) => [c, []]));
  // Long-lived services, fresh stores: one per store kind.
  const sqlite = place();
  const sqliteStore = await openStore({ home: sqlite.home });
  const pgUrl = await postgres.createDatabase();
  const pgPlace = place();
  const pgStore = await openStore({ home: pgPlace.home, databaseUrl: pgUrl });
  const serveHome = place();
  const serve = await serveProcess(serveHome.home, undefined, serveHome.workspace);
  const serveStore = await openStore({ home: serveHome.home });
  const workerSqlite = startWorker(sqlite.home, undefined, sqlite.workspace);
  const workerPg = startWorker(pgPlace.home, pgUrl, pgPlace.workspace);
  await Promise.all([workerSqlite.waitFor(/worker started/), workerPg.waitFor(/worker started/)]);
  const queued = async (store, place) => {
    const id = await queueRun(store, place.workspace, task(ulid()), runSpec(place.workspace));
    await waitDrained(store, 60_000).catch((error) => {
      throw new Error(`${error.message}\n${workerSqlite.text()}\n${workerPg.text()}`);
    });
    return runSpan(store, id);
  };
  const served = async () => {
    const run = await serve.post("/runs", { task: task(ulid()), ...runSpec(serveHome.workspace) });
    for (;;) {
      const [request] = (await serveStore.queue.list({ limit: 1000 })).filter((r) => r.id === run.id);
      if (request && !["queued", "running"].includes(request.status)) break;
      await sleep(20);
    }
    return runSpan(serveStore, run.id);
  };
  const measure = {
    "reson run, SQLite": () => cliRun(sqlite.home, undefined, sqlite.workspace, task(ulid())),
    "reson worker, SQLite": () => queued(sqliteStore, sqlite),
    "reson serve executor, SQLite": served,
    "reson run, PostgreSQL": () => cliRun(pgPlace.home, pgUrl, pgPlace.workspace, task(ulid())),
    "reson worker, PostgreSQL": () => queued(pgStore, pgPlace),
  };
  // One unmeasured run each (caches), then rounds × 2 runs per case, taking turns.
  for (const c of cases) {
    log(`step warm-up: ${c}`);
    await measure[c]();
  }
  for (let round = 0; round < ROUNDS * 2; round++) {
    for (const c of cases) {
      const { ms, steps } = await measure[c]();
      perStep.get(c).push(ms / steps);
    }
    log(`step round ${round + 1}: ${cases.map((c) => `${c} ${fmt(perStep.get(c).at(-1), 2)}`).join(", ")}`);
  }
  await stopAll();
  await Promise.all([sqliteStore.close(), pgStore.close(), serveStore.close()]);
  const baseOf = (c) =>
    median(perStep.get(c.endsWith("PostgreSQL") ? "reson run, PostgreSQL" : "reson run, SQLite"));
  out(
    `\n### Per-step time of a ${STEP_STEPS}-step run (read_file each step; run_start to run_end over steps; ${ROUNDS * 2} runs each)\n`,
  );
  out(
    table(
      ["how", "ms/step median", "min–max", "× reson run (same store)"],
      cases.map((c) => {
        const xs = perStep.get(c);
        return [c, fmt(median(xs), 2), range(xs, 2), fmt(median(xs) / baseOf(c), 2)];
      }),
    ),
  );
}

// ---- 3. takeover after SIGKILL
async function takeover() {
  const rows = [];
  for (const ttl of TTLS) {
    const claims = [];
    const firstSteps = [];
    for (let round = 0; round < ROUNDS; round++) {
      const url = await postgres.createDatabase();
      const { home, workspace } = place();
      const store = await openStore({ home, databaseUrl: url });
      const args = ["--lease-ttl", `${ttl / 1000}s`];
      const first = startWorker(home, url, workspace, args);
      await first.waitFor(/worker started/);
      const id = await queueRun(
        store,
        workspace,
        `slow steps 200 takeover ${round}`,
        runSpec(workspace, { allow: ["execute_command"] }),
      );
      // Some committed steps, then a moment inside the next step's 0.2 s command.
      for (;;) {
        const events = await store.events.list(id);
        if (events.filter((e) => e.type === "step_end").length >= 3) break;
        await sleep(20);
      }
      const second = startWorker(home, url, workspace, args);
      await second.waitFor(/worker started/);
      await sleep(50 + Math.random() * 100);
      const killedAt = Date.now();
      first.kill("SIGKILL");
      await first.exited();
      const lastSeq = await store.events.lastSeq(id);
      let claimed;
      let stepped;
      const deadline = Date.now() + ttl + 60_000;
      while (!stepped) {
        if (Date.now() > deadline)
          throw new Error(`no takeover within ${ttl + 60_000} ms:\n${second.text()}`);
        const events = await store.events.list(id, { after: lastSeq });
        claimed ??= events.find((e) => e.type === "run_start");
        stepped = events.find((e) => e.type === "step_end");
        if (!stepped) await sleep(20);
      }
      claims.push((claimed?.ts ?? Number.NaN) - killedAt);
      firstSteps.push(stepped.ts - killedAt);
      log(
        `takeover ttl ${ttl} round ${round + 1}: resumed after ${claims.at(-1)} ms, first step ${firstSteps.at(-1)} ms`,
      );
      await stopAll();
      await store.close();
    }
    rows.push([
      `${ttl / 1000} s`,
      fmt(median(claims) / 1000, 2),
      fmt(median(firstSteps) / 1000, 2),
      range(
        firstSteps.map((x) => x / 1000),
        2,
      ),
      fmt((median(firstSteps) - ttl) / 1000, 2),
      `≤ ${(ttl + 2000) / 1000} s: ${median(firstSteps) <= ttl + 2000 ? "met" : "missed"}`,
    ]);
  }
  out(
    `\n### Worker SIGKILLed in a step: to another worker's first committed step of the run (PostgreSQL, ${ROUNDS} rounds)\n`,
  );
  out(
    table(
      [
        "lease TTL",
        "run resumed (s) median",
        "first step (s) median",
        "min–max",
        "over the TTL (s)",
        "target",
      ],
      rows,
    ),
  );
}

// ---- 4. SSE latency
/** Reads a run's SSE stream until run_end; each numbered frame with the time it arrived. */
function followSse(url, token, runId) {
  return new Promise((resolvePromise, reject) => {
    const frames = [];
    let connectedAt;
    const req = httpRequest(
      `${url}/runs/${runId}/events`,
      { headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" } },
      (res) => {
        connectedAt = now();
        if (res.statusCode !== 200) reject(new Error(`SSE ${res.statusCode}`));
        res.setEncoding("utf8");
        let buffer = "";
        res.on("data", (chunk) => {
          const at = now();
          buffer += chunk;
          let cut = buffer.indexOf("\n\n");
          while (cut >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            cut = buffer.indexOf("\n\n");
            const id = /^id: (\d+)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (id === undefined || data === undefined) continue;
            const event = JSON.parse(data);
            frames.push({ seq: Number(id), type: event.type, ts: event.ts, at });
            if (event.type === "run_end") {
              req.destroy();
              resolvePromise({ frames, connectedAt });
            }
          }
        });
      },
    );
    req.on("error", (error) => {
      if (!frames.some((f) => f.type === "run_end")) reject(error);
    });
    req.end();
  });
}

/**
 * Commit time (ms since the epoch, µs precision) of each of a run's events, from PostgreSQL's
 * commit timestamps. An append checks its predecessor with `UPDATE … SET seq = seq`, which gives
 * the last row of each batch the next batch's xmin: so the rows of one xmin are the batch
 * shifted by one, and the first row of each xmin run (but seq 1) was committed with the rows of
 * the xmin before it.
 */
async function commitTimes(url, runId) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT seq, xmin::text AS xid, extract(epoch from pg_xact_commit_timestamp(xmin)) * 1000 AS at
       FROM run_events WHERE trace_id = $1 ORDER BY seq`,
      [runId],
    );
    return new Map(
      rows.map((r, i) => {
        const shifted = i > 0 && r.xid !== rows[i - 1].xid;
        return [Number(r.seq), Number(shifted ? rows[i - 1].at : r.at)];
      }),
    );
  } finally {
    await client.end();
  }
}

async function sseLatency() {
  const kinds = ["serve executes, SQLite", "worker, PostgreSQL (LISTEN/NOTIFY)"];
  const stats = new Map(
    kinds.map((k) => [k, { p50: [], p95: [], c50: [], c95: [], n50: [], n95: [], f50: [], f95: [], n: 0 }]),
  );
  const sqlite = place();
  const servedSqlite = await serveProcess(sqlite.home, undefined, sqlite.workspace);
  const pgUrl = await postgres.createDatabase();
  const pgPlace = place();
  const servedPg = await serveProcess(pgPlace.home, pgUrl, pgPlace.workspace, ["--workers", "0"]);
  const worker = startWorker(pgPlace.home, pgUrl, pgPlace.workspace);
  await worker.waitFor(/worker started/);
  const once = async (kind) => {
    const [served, workspace, url] =
      kind === kinds[0] ? [servedSqlite, sqlite.workspace, undefined] : [servedPg, pgPlace.workspace, pgUrl];
    // Follow the run's session-less stream as soon as the run exists; count only events
    // stamped after the stream was open (earlier ones are replays, not live).
    // On PostgreSQL this process LISTENs too: when it hears the NOTIFY splits the latency into
    // commit→notification (the database, the scheduler) and notification→client (serve).
    const notices = [];
    const listener = url ? new pg.Client({ connectionString: url }) : undefined;
    if (listener) {
      await listener.connect();
      listener.on("notification", (message) => {
        const at = now();
        const notice = JSON.parse(message.payload ?? "{}");
        if (notice.k === "e") notices.push({ runId: notice.t, seq: notice.s, at });
      });
      await listener.query("LISTEN reson_store");
    }
    const run = await served.post("/runs", {
      task: `bench steps ${SSE_STEPS} sse ${ulid()}`,
      ...runSpec(workspace),
    });
    const { frames, connectedAt } = await followSse(served.url, served.token, run.id);
    await listener?.end();
    const live = frames.filter((f) => f.ts > connectedAt + 1);
    const fromEmit = live.map((f) => f.at - f.ts);
    const s = stats.get(kind);
    s.p50.push(quantile(fromEmit, 0.5));
    s.p95.push(quantile(fromEmit, 0.95));
    s.n += live.length;
    if (url) {
      const commits = await commitTimes(url, run.id);
      const fromCommit = live.map((f) => f.at - commits.get(f.seq)).filter(Number.isFinite);
      s.c50.push(quantile(fromCommit, 0.5));
      s.c95.push(quantile(fromCommit, 0.95));
      const heardAt = (seq) => notices.find((n) => n.runId === run.id && n.seq >= seq)?.at;
      const toNotice = live.map((f) => heardAt(f.seq) - commits.get(f.seq)).filter(Number.isFinite);
      const fromNotice = live.map((f) => f.at - heardAt(f.seq)).filter(Number.isFinite);
      s.n50.push(quantile(toNotice, 0.5));
      s.n95.push(quantile(toNotice, 0.95));
      s.f50.push(quantile(fromNotice, 0.5));
      s.f95.push(quantile(fromNotice, 0.95));
      log(
        `  commit→client p50 ${fmt(s.c50.at(-1))} p95 ${fmt(s.c95.at(-1))}; commit→NOTIFY heard here p50 ${fmt(s.n50.at(-1))} p95 ${fmt(s.n95.at(-1))}; NOTIFY heard→client p50 ${fmt(s.f50.at(-1))} p95 ${fmt(s.f95.at(-1))} ms`,
      );
    }
    log(
      `sse ${kind}: ${live.length} live events, from emit p50 ${fmt(s.p50.at(-1))} p95 ${fmt(s.p95.at(-1))} ms`,
    );
  };
  for (const kind of kinds) await once(kind); // unmeasured: caches
  for (const s of stats.values())
    Object.assign(s, { p50: [], p95: [], c50: [], c95: [], n50: [], n95: [], f50: [], f95: [], n: 0 });
  for (let round = 0; round < ROUNDS; round++) for (const kind of kinds) await once(kind);
  await stopAll();
  out(
    `\n### Event latency to an SSE client of reson serve (${SSE_STEPS}-step runs, ${ROUNDS} rounds; per round p50/p95 over its live events, then the median of rounds)\n`,
  );
  out(
    table(
      [
        "who executes",
        "events",
        "emit→client p50 ms",
        "emit→client p95 ms",
        "commit→client p50 ms",
        "commit→client p95 ms",
        "commit→NOTIFY heard p50 / p95 ms",
        "NOTIFY heard→client p50 / p95 ms",
        "target p95 ≤ 50 ms",
      ],
      kinds.map((k) => {
        const s = stats.get(k);
        const p95 = s.c95.length ? median(s.c95) : median(s.p95);
        return [
          k,
          s.n,
          fmt(median(s.p50)),
          fmt(median(s.p95)),
          s.c50.length ? fmt(median(s.c50)) : "– (no commit time)",
          s.c95.length ? fmt(median(s.c95)) : "–",
          s.n50.length ? `${fmt(median(s.n50))} / ${fmt(median(s.n95))}` : "–",
          s.f50.length ? `${fmt(median(s.f50))} / ${fmt(median(s.f95))}` : "–",
          p95 <= 50 ? "met" : "missed",
        ];
      }),
    ),
  );
}

// Interrupted (Ctrl-C, a timeout): leave no worker, server, cluster or folder behind.
for (const signal of ["SIGINT", "SIGTERM"])
  process.once(signal, () => {
    void stopAll()
      .then(() => postgres.stop())
      .finally(() => {
        rmSync(scratch, { recursive: true, force: true });
        process.exit(130);
      });
  });
const started = Date.now();
out(
  `Node ${process.version}, ${ROUNDS} rounds, load average at start ${loadavg()[0].toFixed(1)} (2 shared cores); ${postgres.description}, fsync ${DURABLE ? "on" : "off"}, track_commit_timestamp on`,
);
try {
  if (ONLY.has("step")) await stepTimes();
  if (ONLY.has("throughput")) await throughput();
  if (ONLY.has("sse")) await sseLatency();
  if (ONLY.has("takeover")) await takeover();
} finally {
  await stopAll();
  out(
    `\nload average at end ${loadavg()[0].toFixed(1)}; ${((Date.now() - started) / 1000).toFixed(0)} s; model requests ${modelRequests.count}`,
  );
  model.close();
  await postgres.stop();
  rmSync(scratch, { recursive: true, force: true });
}
