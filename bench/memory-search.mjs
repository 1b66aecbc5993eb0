// Memory search latency and vector recall on SQLite (vectors by sqlite-vec, and in process)
// and PostgreSQL (RESON_BENCH_DATABASE_URL, else a throw-away local cluster; pgvector's HNSW
// index when the server has it, else in process). Three searches: full text
// (store.memory.search), vector (store.memory.vectorSearch) and hybrid (searchMemory with an
// embedder). Items are synthetic operations notes in English, Chinese and both, with
// 256-dimension unit vectors clustered by topic (a topic centroid plus noise), as sentence
// embeddings are. Recall@10 is against an exact search over the same vectors in this process.
// On PostgreSQL with pgvector it also reports the HNSW index build (the store builds it at the
// first search, CONCURRENTLY), the index and database size, inserts with the index in place,
// and latency and recall for each ef_search asked for. Every figure is the median over --runs.
// Prints markdown tables. With RESON_BENCH_DATABASE_URL, use a scratch database: the items stay.
//   npm run build && node bench/memory-search.mjs [--sizes 10000,100000] [--queries 200] [--dims 256]
//     [--only sqlite,postgres] [--modes sqlite-vec,in-process] [--runs 1] [--no-text]
//     [--ef-search 40,100,200] [--hnsw m,ef_construction] [--maintenance-work-mem 2GB]
//     [--parallel-workers 1]
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { runnerImport } from "vite";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const list = (name, fallback) => String(arg(name, fallback)).split(",").filter(Boolean);
const SIZES = list("sizes", "10000,100000").map(Number);
const ONLY = list("only", "sqlite,postgres");
const SQLITE_MODES = list("modes", "sqlite-vec,in-process");
const QUERIES = Number(arg("queries", 200));
const DIMS = Number(arg("dims", 256));
const RUNS = Number(arg("runs", 1));
const TEXT = !process.argv.includes("--no-text");
const EF_SEARCH = list("ef-search", "").map(Number);
const HNSW = arg("hnsw", undefined)?.split(",").map(Number);
const MAINTENANCE_WORK_MEM = arg("maintenance-work-mem", "2GB");
const PARALLEL_WORKERS = Number(arg("parallel-workers", 1));
const BATCH = 1000;
const K = 10;
/** Items appended after the searches, with the index in place. */
const APPENDED = 1000;
const ROOT = resolve(import.meta.dirname, "..");
for (const built of ["dist/store/index.js", "dist/memory/index.js", "dist/store/postgres/pgvector.js"]) {
  if (!existsSync(join(ROOT, built))) {
    console.error(`${built} is missing: run \`npm run build\` first.`);
    process.exit(1);
  }
}
const { openStore, percentile, MemoryIndex } = await import(join(ROOT, "dist/store/index.js"));
const { searchMemory, hybridRank, HYBRID_DEFAULTS } = await import(join(ROOT, "dist/memory/index.js"));
const pgvector = await import(join(ROOT, "dist/store/postgres/pgvector.js"));
const pgServer = (
  await runnerImport(join(ROOT, "test/store/postgres-server.ts"), { configFile: false, logLevel: "silent" })
).module;

// --- synthetic data, deterministic -------------------------------------------------------
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const COMPONENTS = [
  ["api server", "接口服务"],
  ["database", "数据库"],
  ["cache", "缓存"],
  ["scheduler", "调度器"],
  ["auth service", "认证服务"],
  ["payment gateway", "支付网关"],
  ["search index", "搜索索引"],
  ["message queue", "消息队列"],
  ["load balancer", "负载均衡"],
  ["CI pipeline", "构建流水线"],
  ["parser", "解析器"],
  ["backup job", "备份任务"],
];
const ISSUES = [
  ["connection timeout", "连接超时"],
  ["memory leak", "内存泄漏"],
  ["slow query", "慢查询"],
  ["disk full", "磁盘已满"],
  ["expired certificate", "证书过期"],
  ["deadlock", "死锁"],
  ["permission denied", "权限不足"],
  ["stale config", "配置错误"],
  ["cache stampede", "缓存击穿"],
  ["flaky test", "测试不稳定"],
];
const ACTIONS = [
  ["restarted", "重启了"],
  ["rolled back", "回滚了"],
  ["upgraded", "升级了"],
  ["patched", "修复了"],
  ["migrated", "迁移了"],
  ["scaled out", "扩容了"],
];
const ENVS = [
  ["production", "生产环境"],
  ["staging", "测试环境"],
  ["the nightly run", "预发环境"],
];
const FOLLOW_UPS = [
  ["added an alert on the error rate", "加了错误率告警"],
  ["wrote a runbook entry", "写进了运维手册"],
  ["root cause was a missing index", "根因是缺少索引"],
  ["needs a follow-up ticket", "需要后续跟进"],
  ["the fix was a one-line config change", "改了一行配置就好了"],
];
const TOPICS = COMPONENTS.length * ISSUES.length;
/** The shapes of the text queries, in turn. */
const QUERY_KINDS = [
  "English question (how did we fix the memory leak in the cache)",
  "Chinese phrase (数据库连接超时)",
  "two-character Chinese (缓存)",
  "mixed (deadlock 数据库)",
];

function unit(vector) {
  let norm = 0;
  for (const v of vector) norm += v * v;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}
function gaussian(random) {
  return Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
}
function noisy(random, centroid, noise) {
  const v = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) v[i] = centroid[i] + (noise * gaussian(random)) / Math.sqrt(DIMS);
  return unit(v);
}

/** `size` items (and `extra` more after them, for appends), then the queries; seeded by size. */
function corpus(size, extra = 0) {
  const random = mulberry32(size);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const centroids = Array.from({ length: TOPICS }, () =>
    unit(Float32Array.from({ length: DIMS }, () => gaussian(random))),
  );
  const items = [];
  const vectors = [];
  const now = Date.UTC(2026, 10, 30);
  for (let i = 0; i < size + extra; i++) {
    const c = Math.floor(random() * COMPONENTS.length);
    const s = Math.floor(random() * ISSUES.length);
    const [component, componentZh] = COMPONENTS[c];
    const [issue, issueZh] = ISSUES[s];
    const [action, actionZh] = pick(ACTIONS);
    const [env, envZh] = pick(ENVS);
    const [follow, followZh] = pick(FOLLOW_UPS);
    const ticket = 1000 + Math.floor(random() * 9000);
    const style = random();
    const text =
      style < 0.6
        ? `${action} the ${component} in ${env} after a ${issue} (#${ticket}); ${follow}.`
        : style < 0.85
          ? `在${envZh}${actionZh}${componentZh}，原因是${issueZh}（#${ticket}），${followZh}。`
          : `${component} ${issueZh}: ${action} in ${env}, ${followZh} #${ticket}`;
    items.push({
      id: `bench-${size}-${String(i).padStart(6, "0")}`,
      projectKey: `bench-${size}`,
      sessionId: null,
      traceId: null,
      kind: random() < 0.8 ? "turn" : "note",
      role: null,
      text,
      provenance: "agent",
      createdAt: now - Math.floor(random() * 120) * 86_400_000,
    });
    vectors.push(noisy(random, centroids[c * ISSUES.length + s], 0.8));
  }
  const queries = Array.from({ length: QUERIES }, (_, q) => {
    const c = Math.floor(random() * COMPONENTS.length);
    const s = Math.floor(random() * ISSUES.length);
    const kind = q % QUERY_KINDS.length;
    const text =
      kind === 0
        ? `how did we fix the ${ISSUES[s][0]} in the ${COMPONENTS[c][0]}`
        : kind === 1
          ? `${COMPONENTS[c][1]}${ISSUES[s][1]}`
          : kind === 2
            ? pick(["缓存", "死锁", "回滚", "扩容", "告警"])
            : `${ISSUES[s][0]} ${COMPONENTS[c][1]}`;
    return { text, vector: noisy(random, centroids[c * ISSUES.length + s], 0.8) };
  });
  return { items, vectors, queries, now };
}

// --- measuring -----------------------------------------------------------------------------
/** The exact top k of every query, by the in-process index (a full scan). */
function exactIndex(vectors) {
  const index = new MemoryIndex({ dims: DIMS, initialCapacity: vectors.length, maxVectors: vectors.length });
  for (const [i, v] of vectors.entries()) index.add(String(i), v);
  return (query, k) => index.search(query, k).map((hit) => [Number(hit.id), hit.score]);
}

async function timed(run) {
  const times = [];
  for (let i = 0; i < QUERIES; i++) {
    const started = performance.now();
    await run(i);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

function recallOf(results, exact) {
  let sum = 0;
  for (const [q, found] of results.entries()) {
    const want = exact[q];
    sum += want.size === 0 ? 1 : found.filter((id) => want.has(id)).length / want.size;
  }
  return sum / results.length;
}

async function withClient(databaseUrl, use) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** After the bulk load, as a server settles: the text index merged, statistics current. */
async function settle(databaseUrl) {
  if (!databaseUrl) return;
  await withClient(databaseUrl, (client) => client.query("VACUUM ANALYZE memory_items, embeddings"));
}

/** The HNSW index of the bench's scope on PostgreSQL: its name and its size, or undefined. */
async function hnswIndex(databaseUrl, model) {
  const layout = pgvector.layoutOf("memory", model, DIMS);
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query(
      "SELECT pg_relation_size(c.oid) AS bytes, i.indisvalid AS valid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname = $1",
      [layout.name],
    );
    return rows[0]
      ? { name: layout.name, bytes: Number(rows[0].bytes), valid: rows[0].valid, layout }
      : undefined;
  });
}

/** Builds the index the store would, with other m and ef_construction (--hnsw). */
async function prebuild(databaseUrl, model, [m, efConstruction]) {
  const layout = pgvector.layoutOf("memory", model, DIMS);
  await withClient(databaseUrl, (client) =>
    client.query(
      `CREATE INDEX CONCURRENTLY ${layout.name} ON embeddings USING hnsw (${layout.expression} ${layout.opclass})
       WITH (m = ${m}, ef_construction = ${efConstruction}) WHERE ${layout.predicate}`,
    ),
  );
}

function appendOps(items, vectors, from, to, model, now) {
  const ops = [];
  for (let i = from; i < to; i++) ops.push({ op: "appendMemory", item: items[i] });
  for (let i = from; i < to; i++) {
    ops.push({
      op: "putEmbedding",
      embedding: {
        ownerKind: "memory",
        ownerId: items[i].id,
        projectKey: items[i].projectKey,
        model,
        vector: vectors[i],
        createdAt: now,
      },
    });
  }
  return ops;
}

/**
 * One store at one size: load, ready, search. Numbers only (the tables are made after every
 * run); `databaseUrl` is set for PostgreSQL.
 */
async function bench(size, open, databaseUrl) {
  const { items, vectors, queries, now } = corpus(size, APPENDED);
  const store = await open();
  const projectKey = items[0].projectKey;
  const model = `synthetic-${DIMS}`;
  const pgvectorSearch = store.features.vectorSearch === "pgvector-hnsw";
  const out = { textByKind: [] };
  try {
    const loadStarted = performance.now();
    for (let at = 0; at < size; at += BATCH) {
      await store.apply(appendOps(items, vectors, at, Math.min(size, at + BATCH), model, now));
    }
    out.loadSeconds = (performance.now() - loadStarted) / 1000;
    await settle(databaseUrl);
    await store.memory.setIndexIdentity({ model, dims: DIMS }, { projectKey });
    const options = { projectKey, limit: K };

    // On pgvector the first search builds the HNSW index (unless --hnsw built it just before).
    const coldStarted = performance.now();
    if (pgvectorSearch && HNSW) await prebuild(databaseUrl, model, HNSW);
    await store.memory.vectorSearch(queries[0].vector, model, options);
    out.coldMs = performance.now() - coldStarted;
    if (pgvectorSearch) {
      const index = await hnswIndex(databaseUrl, model);
      if (!index?.valid) throw new Error("the first search left no valid HNSW index");
      out.buildSeconds = out.coldMs / 1000;
      out.indexMb = index.bytes / 2 ** 20;
    }
    out.sizeMb = (await store.sizeBytes()) / 2 ** 20;

    const exactTop = exactIndex(vectors.slice(0, size));
    const exact = queries.map((query) => new Set(exactTop(query.vector, K).map(([i]) => items[i].id)));
    const vectorRun = async () => {
      const found = [];
      const latency = await timed(async (q) => {
        found[q] = (await store.memory.vectorSearch(queries[q].vector, model, options)).map((m) => m.item.id);
      });
      return { ...latency, recall: recallOf(found, exact) };
    };
    out.vector = await vectorRun();

    if (TEXT) {
      const textTimes = [];
      out.text = await timed(async (q) => {
        const started = performance.now();
        await store.memory.search(queries[q].text, options);
        textTimes.push([q % QUERY_KINDS.length, performance.now() - started]);
      });
      out.textByKind = QUERY_KINDS.map((_, kind) => {
        const sorted = textTimes
          .filter(([k]) => k === kind)
          .map(([, t]) => t)
          .sort((a, b) => a - b);
        return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
      });
      const hybridResults = [];
      const hybrid = await timed(async (q) => {
        const query = queries[q];
        hybridResults[q] = await searchMemory({
          store,
          query: query.text,
          projectKey,
          limit: K,
          embed: async () => query.vector,
          now,
        });
      });
      // Recall against the same ranking over an exact vector leg (outside the timing).
      const exactHybrid = [];
      for (const [q, query] of queries.entries()) {
        const candidates = K * HYBRID_DEFAULTS.candidateMultiplier;
        const textLeg = await store.memory.search(query.text, { projectKey, limit: candidates });
        const vectorLeg = exactTop(query.vector, candidates).map(([i, score]) => ({ item: items[i], score }));
        const ranked = hybridRank(
          { text: textLeg.map((m) => ({ item: m.item, score: m.score })), vector: vectorLeg },
          { limit: K, now, isEvergreen: (item) => item.kind === "note" },
        );
        exactHybrid[q] = new Set(ranked.map((h) => h.item.id));
      }
      const found = hybridResults.map((result) => result.hits.map((h) => h.item.id));
      out.hybrid = { ...hybrid, recall: recallOf(found, exactHybrid) };
    }

    if (pgvectorSearch) {
      out.efSearch = [];
      for (const ef of EF_SEARCH) {
        // A database setting: the store leaves ef_search alone when one is set.
        await withClient(databaseUrl, (c) =>
          c.query(`ALTER DATABASE ${c.database} SET hnsw.ef_search = ${ef}`),
        );
        const tuned = await open();
        try {
          const found = [];
          const times = await timed(async (q) => {
            found[q] = (await tuned.memory.vectorSearch(queries[q].vector, model, options)).map(
              (m) => m.item.id,
            );
          });
          out.efSearch.push({ ef, ...times, recall: recallOf(found, exact) });
        } finally {
          await tuned.close();
          await withClient(databaseUrl, (c) => c.query(`ALTER DATABASE ${c.database} RESET hnsw.ef_search`));
        }
      }
    }
    // Appends once the index is there: what every later remembered item costs.
    const appendStarted = performance.now();
    await store.apply(appendOps(items, vectors, size, size + APPENDED, model, now));
    out.appendMs = (performance.now() - appendStarted) / APPENDED;
    return out;
  } finally {
    await store.close();
  }
}

// --- the matrix, the medians, the tables ---------------------------------------------------
const median = (values) => {
  const sorted = values.filter((v) => v !== undefined && !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
/** The median of every number at the same place in each run's result. */
function medianOf(results) {
  const [first] = results;
  if (typeof first === "number") return median(results);
  if (Array.isArray(first)) return first.map((_, i) => medianOf(results.map((r) => r[i])));
  if (first && typeof first === "object") {
    return Object.fromEntries(Object.keys(first).map((key) => [key, medianOf(results.map((r) => r?.[key]))]));
  }
  return first;
}

const ms = (n) => (n === undefined ? "—" : n < 10 ? n.toFixed(2) : n.toFixed(1));
const pair = (t) => (t ? `${ms(t.p50)} / ${ms(t.p95)}` : "—");
const fixed = (n, digits) => (n === undefined ? "—" : n.toFixed(digits));

const rows = [];
const homes = [];
const sqlite = (nativeVectors) => async () => {
  const home = await mkdtemp(join(tmpdir(), "reson-bench-memory-"));
  homes.push(home);
  return openStore({ home, nativeVectors });
};
/** Vectors the in-process index keeps at most (the store's 256 MiB budget); beyond, it scans pages. */
const IN_PROCESS_MAX = Math.floor((256 * 2 ** 20) / (DIMS * 4));
const settings = [
  `maintenance_work_mem = '${MAINTENANCE_WORK_MEM}'`,
  `max_parallel_maintenance_workers = ${PARALLEL_WORKERS}`,
];

async function postgresRows(server, given) {
  for (const size of SIZES) {
    const results = [];
    let how = "";
    for (let run = 0; run < RUNS; run++) {
      const databaseUrl = given ?? (await server.createDatabase());
      // Index build settings for every session of this database, the store's included.
      await withClient(databaseUrl, async (c) => {
        for (const setting of settings) await c.query(`ALTER DATABASE ${c.database} SET ${setting}`);
      });
      const open = () => openStore({ home: tmpdir(), databaseUrl });
      const probe = await open();
      how = probe.features.vectorSearch;
      await probe.close();
      results.push(await bench(size, open, databaseUrl));
    }
    rows.push({ label: `PostgreSQL, vectors: ${how}`, size, ...medianOf(results) });
  }
}

try {
  for (const size of ONLY.includes("sqlite") ? SIZES : []) {
    for (const mode of SQLITE_MODES) {
      const native = mode !== "in-process";
      if (!native && size > IN_PROCESS_MAX) {
        rows.push({
          label: "SQLite, vectors: in-process",
          size,
          note: "not measured: over the in-process budget",
        });
        continue;
      }
      const probe = await sqlite(native)();
      const label = `SQLite, vectors: ${probe.features.vectorSearch}`;
      await probe.close();
      const results = [];
      for (let run = 0; run < RUNS; run++) results.push(await bench(size, sqlite(native)));
      rows.push({ label, size, ...medianOf(results) });
    }
  }
  const given = process.env.RESON_BENCH_DATABASE_URL;
  const availability = pgServer.postgresAvailability();
  if (!ONLY.includes("postgres")) {
    // Not asked for.
  } else if (given || availability.available) {
    const server = given
      ? undefined
      : await pgServer.startTestPostgres({ settings: [`shared_buffers=${arg("shared-buffers", "1GB")}`] });
    try {
      await postgresRows(server, given);
    } finally {
      await server?.stop();
    }
  } else {
    rows.push({ label: "PostgreSQL", size: 0, note: `not measured: ${availability.reason}` });
  }
} finally {
  for (const home of homes) await rm(home, { recursive: true, force: true });
}

const items = (row) => row.size.toLocaleString("en-US");
console.log(
  `\nMemory search, ${QUERIES} queries each, top ${K}; ${DIMS}-dimension vectors; medians of ${RUNS} run${RUNS === 1 ? "" : "s"}. Latency p50 / p95 in ms.\n`,
);
console.log(
  "| store | items | vector | vector recall@10 | full text | hybrid | hybrid recall@10 | first vector search (ms) | load (s) | append with index (ms/item) |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const row of rows) {
  if (row.note) {
    console.log(`| ${row.label} | ${row.size ? items(row) : ""} | ${row.note} | | | | | | | |`);
    continue;
  }
  console.log(
    `| ${row.label} | ${items(row)} | ${pair(row.vector)} | ${fixed(row.vector?.recall, 3)} | ${pair(row.text)} | ${pair(row.hybrid)} | ${fixed(row.hybrid?.recall, 3)} | ${ms(row.coldMs)} | ${fixed(row.loadSeconds, 1)} | ${fixed(row.appendMs, 2)} |`,
  );
}
console.log("\nSize on disk after the load (and the index), MB.\n");
console.log("| store | items | database | HNSW index | index build (s) |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const row of rows.filter((r) => !r.note)) {
  console.log(
    `| ${row.label} | ${items(row)} | ${fixed(row.sizeMb, 0)} | ${fixed(row.indexMb, 0)} | ${fixed(row.buildSeconds, 1)} |`,
  );
}
const swept = rows.filter((r) => r.efSearch?.length);
if (swept.length > 0) {
  console.log(
    `\npgvector HNSW (m = ${HNSW?.[0] ?? pgvector.HNSW_M}, ef_construction = ${HNSW?.[1] ?? pgvector.HNSW_EF_CONSTRUCTION}) by ef_search (the store's default is ${pgvector.HNSW_EF_SEARCH}): vector search p50 / p95 in ms, recall@10.\n`,
  );
  console.log("| items | ef_search | vector | recall@10 |");
  console.log("| ---: | ---: | ---: | ---: |");
  for (const row of swept) {
    for (const e of row.efSearch)
      console.log(`| ${items(row)} | ${e.ef} | ${pair(e)} | ${fixed(e.recall, 3)} |`);
  }
}
if (TEXT) {
  console.log("\nFull-text latency by query shape, p50 / p95 in ms.\n");
  console.log(`| store | items | ${QUERY_KINDS.join(" | ")} |`);
  console.log(`| --- | ---: |${" ---: |".repeat(QUERY_KINDS.length)}`);
  for (const row of rows.filter((r) => !r.note)) {
    console.log(`| ${row.label} | ${items(row)} | ${row.textByKind.map(pair).join(" | ")} |`);
  }
}
console.log(
  `\nPostgreSQL settings: ${settings.join(", ")}, shared_buffers ${arg("shared-buffers", "1GB")} (throw-away cluster: fsync off).`,
);
