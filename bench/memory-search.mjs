// Memory search latency and vector recall, at 10k and 100k items, on SQLite (vectors by
// sqlite-vec, and in process) and PostgreSQL (RESON_BENCH_DATABASE_URL, else a throw-away
// local cluster; pgvector when the server has it, else in process). Three searches: full
// text (store.memory.search), vector (store.memory.vectorSearch) and hybrid (searchMemory
// with an embedder). Items are synthetic operations notes in English, Chinese and both, with
// 256-dimension unit vectors clustered by topic (a topic centroid plus noise), as sentence
// embeddings are. Recall@10 is against an exact search over the same vectors in this process.
// Prints a markdown table. With RESON_BENCH_DATABASE_URL, use a scratch database: the items stay.
//   npm run build && node bench/memory-search.mjs [--sizes 10000,100000] [--queries 200] [--dims 256]
//     [--only sqlite,postgres]
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
const SIZES = String(arg("sizes", "10000,100000")).split(",").map(Number);
const ONLY = arg("only", "sqlite,postgres").split(",");
const QUERIES = Number(arg("queries", 200));
const DIMS = Number(arg("dims", 256));
const BATCH = 1000;
const K = 10;
const ROOT = resolve(import.meta.dirname, "..");
for (const built of ["dist/store/index.js", "dist/memory/index.js"]) {
  if (!existsSync(join(ROOT, built))) {
    console.error(`${built} is missing: run \`npm run build\` first.`);
    process.exit(1);
  }
}
const { openStore, percentile } = await import(join(ROOT, "dist/store/index.js"));
const { searchMemory, hybridRank, HYBRID_DEFAULTS } = await import(join(ROOT, "dist/memory/index.js"));
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

function corpus(size) {
  const random = mulberry32(size);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const centroids = Array.from({ length: TOPICS }, () =>
    unit(Float32Array.from({ length: DIMS }, () => gaussian(random))),
  );
  const items = [];
  const vectors = [];
  const now = Date.UTC(2026, 10, 30);
  for (let i = 0; i < size; i++) {
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
function exactTop(vectors, query, k) {
  const scores = vectors.map((v, i) => {
    let dot = 0;
    for (let j = 0; j < DIMS; j++) dot += v[j] * query[j];
    return [i, dot];
  });
  return scores.sort((a, b) => b[1] - a[1]).slice(0, k);
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

const ms = (n) => (n < 10 ? n.toFixed(2) : n.toFixed(1));

/** After the bulk load, as a server settles: the text index merged, statistics current. */
async function settle(databaseUrl) {
  if (!databaseUrl) return;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("VACUUM ANALYZE memory_items, embeddings");
  } finally {
    await client.end();
  }
}

async function bench(label, size, open, databaseUrl) {
  const { items, vectors, queries, now } = corpus(size);
  const store = await open();
  const projectKey = items[0].projectKey;
  const model = `synthetic-${DIMS}`;
  try {
    const loadStarted = performance.now();
    for (let at = 0; at < size; at += BATCH) {
      const ops = [];
      for (let i = at; i < Math.min(size, at + BATCH); i++) ops.push({ op: "appendMemory", item: items[i] });
      for (let i = at; i < Math.min(size, at + BATCH); i++) {
        ops.push({
          op: "putEmbedding",
          embedding: {
            ownerKind: "memory",
            ownerId: items[i].id,
            projectKey,
            model,
            vector: vectors[i],
            createdAt: now,
          },
        });
      }
      await store.apply(ops);
    }
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    await settle(databaseUrl);
    await store.memory.setIndexIdentity({ model, dims: DIMS }, { projectKey });
    const options = { projectKey, limit: K };

    const coldStarted = performance.now();
    await store.memory.vectorSearch(queries[0].vector, model, options);
    const coldMs = performance.now() - coldStarted;

    const textTimes = [];
    const text = await timed(async (q) => {
      const started = performance.now();
      await store.memory.search(queries[q].text, options);
      textTimes.push([q % QUERY_KINDS.length, performance.now() - started]);
    });
    const byKind = QUERY_KINDS.map((_, kind) => {
      const sorted = textTimes
        .filter(([k]) => k === kind)
        .map(([, t]) => t)
        .sort((a, b) => a - b);
      return `${ms(percentile(sorted, 50))} / ${ms(percentile(sorted, 95))}`;
    });
    textByKind.push([label, size.toLocaleString("en-US"), ...byKind]);
    const vectorResults = [];
    const vector = await timed(async (q) => {
      vectorResults[q] = await store.memory.vectorSearch(queries[q].vector, model, options);
    });
    let vectorRecall = 0;
    for (const [q, query] of queries.entries()) {
      const exact = new Set(exactTop(vectors, query.vector, K).map(([i]) => items[i].id));
      vectorRecall += vectorResults[q].filter((m) => exact.has(m.item.id)).length / K;
    }
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
    let hybridRecall = 0;
    for (const [q, query] of queries.entries()) {
      const candidates = K * HYBRID_DEFAULTS.candidateMultiplier;
      const textLeg = await store.memory.search(query.text, { projectKey, limit: candidates });
      const vectorLeg = exactTop(vectors, query.vector, candidates).map(([i, score]) => ({
        item: items[i],
        score,
      }));
      const exact = hybridRank(
        { text: textLeg.map((m) => ({ item: m.item, score: m.score })), vector: vectorLeg },
        { limit: K, now, isEvergreen: (item) => item.kind === "note" },
      );
      const exactIds = new Set(exact.map((h) => h.item.id));
      const found = hybridResults[q].hits.filter((h) => exactIds.has(h.item.id)).length;
      hybridRecall += exactIds.size === 0 ? 1 : found / exactIds.size;
    }
    return [
      label,
      size.toLocaleString("en-US"),
      `${ms(text.p50)} / ${ms(text.p95)}`,
      `${ms(vector.p50)} / ${ms(vector.p95)}`,
      (vectorRecall / QUERIES).toFixed(3),
      `${ms(hybrid.p50)} / ${ms(hybrid.p95)}`,
      (hybridRecall / QUERIES).toFixed(3),
      `${ms(coldMs)}`,
      loadSeconds.toFixed(1),
    ];
  } finally {
    await store.close();
  }
}

const rows = [];
const textByKind = [];
const homes = [];
const sqlite = (nativeVectors) => async () => {
  const home = await mkdtemp(join(tmpdir(), "reson-bench-memory-"));
  homes.push(home);
  return openStore({ home, nativeVectors });
};
try {
  for (const size of ONLY.includes("sqlite") ? SIZES : []) {
    const probe = await sqlite(true)();
    const how = probe.features.vectorSearch;
    await probe.close();
    rows.push(await bench(`SQLite, vectors: ${how}`, size, sqlite(true)));
    rows.push(await bench("SQLite, vectors: in-process", size, sqlite(false)));
  }
  const given = process.env.RESON_BENCH_DATABASE_URL;
  const availability = pgServer.postgresAvailability();
  if (!ONLY.includes("postgres")) {
    // Not asked for.
  } else if (given || availability.available) {
    const server = given ? undefined : await pgServer.startTestPostgres();
    try {
      for (const size of SIZES) {
        const databaseUrl = given ?? (await server.createDatabase());
        const probe = await openStore({ home: tmpdir(), databaseUrl });
        const how = probe.features.vectorSearch;
        await probe.close();
        rows.push(
          await bench(
            `PostgreSQL, vectors: ${how}`,
            size,
            () => openStore({ home: tmpdir(), databaseUrl }),
            databaseUrl,
          ),
        );
      }
    } finally {
      await server?.stop();
    }
  } else {
    rows.push(["PostgreSQL", `not measured: ${availability.reason}`, "", "", "", "", "", "", ""]);
  }
} finally {
  for (const home of homes) await rm(home, { recursive: true, force: true });
}

console.log(
  `\nMemory search, ${QUERIES} queries each, top ${K}; ${DIMS}-dimension vectors. Latency p50 / p95 in ms.\n`,
);
console.log(
  "| store | items | full text | vector | vector recall@10 | hybrid | hybrid recall@10 | first vector search (ms) | load (s) |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
console.log("\nFull-text latency by query shape, p50 / p95 in ms.\n");
console.log(`| store | items | ${QUERY_KINDS.join(" | ")} |`);
console.log(`| --- | ---: |${" ---: |".repeat(QUERY_KINDS.length)}`);
for (const row of textByKind) console.log(`| ${row.join(" | ")} |`);
