// The store contract on a real PostgreSQL (see postgres-server.ts), and what only this backend
// promises: no password anywhere it shows, migrations safe against racing openers, and vector
// search through pgvector's HNSW index when the server has the extension. In CI a missing
// PostgreSQL, or one without pgvector, fails the suite; locally it skips, or searches vectors in
// process and says so.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { searchMemory } from "../../src/memory/index.js";
import { type EmbeddingInput, openStore, type Store } from "../../src/store/index.js";
import { POSTGRES_MIGRATIONS } from "../../src/store/postgres/migrations.js";
import { pgvector } from "../../src/store/postgres/pgvector.js";
import { skipWithout } from "../support/requirements.js";
import { channelContract } from "./channel-contract.js";
import { expectUpgraded, rejection, type StoreTarget, storeContract } from "./contract.js";
import { memoryItem, OTHER_PROJECT, PROJECT, session, trace } from "./fixtures.js";
import { memoryContract } from "./memory-contract.js";
import {
  postgresAvailability,
  querySql as sql,
  startTestPostgres,
  type TestPostgres,
} from "./postgres-server.js";
import { serviceContract } from "./service-contract.js";
import { workspaceContract } from "./workspace-contract.js";

const availability = postgresAvailability();
const skip = await skipWithout("postgres", "PostgreSQL store");
if (!availability.available) {
  const say = process.env.CI ? "FAILING (CI needs it)" : "SKIPPING";
  console.warn(`\n*** PostgreSQL store tests: ${say}: ${availability.reason} ***\n`);
}

// Counted as a failed test (not only a failed hook) when CI has no PostgreSQL.
it.skipIf(!process.env.CI)("CI has a PostgreSQL to run the store contract against", () => {
  expect(availability).toMatchObject({ available: true });
});

let server: TestPostgres | undefined;
let home: string;
/** How this server's stores search vectors, found once it is up. */
let vectorSearch: string | undefined;
const INSTALL_PGVECTOR =
  "bash ../shared/vendor/install-pgvector.sh (or apt-get install postgresql-15-pgvector where the distribution has it)";

async function postgresTarget(): Promise<StoreTarget> {
  if (!server) throw new Error("PostgreSQL did not start");
  const databaseUrl = await server.createDatabase();
  return {
    open: (options = {}) => openStore({ home, databaseUrl, ...options }),
    sql: async (text, params = []) => {
      let n = 0;
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        return (
          await client.query(
            text.replace(/\?/g, () => `$${++n}`),
            params,
          )
        ).rows;
      } finally {
        await client.end();
      }
    },
    files: [],
    openOptions: { home, databaseUrl },
    schemaVersions: async () =>
      (
        await sql<{ version: number }>(databaseUrl, "SELECT version FROM schema_migrations ORDER BY version")
      ).map((r) => r.version),
    pretendNewerSchema: async () => {
      await sql(
        databaseUrl,
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)",
      );
    },
    rewindSchema: async (version) => {
      await sql(databaseUrl, `DELETE FROM schema_migrations WHERE version > ${Number(version)}`);
    },
    // Row-level soundness is PostgreSQL's own business; what can go wrong here is orphans.
    integrity: async () => {
      const [row] = await sql<{ orphans: number }>(
        databaseUrl,
        `SELECT (SELECT count(*) FROM steps s WHERE NOT EXISTS (SELECT 1 FROM traces t WHERE t.id = s.trace_id))
              + (SELECT count(*) FROM turns u WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = u.session_id))
              AS orphans`,
      );
      return Number(row?.orphans) === 0 ? "ok" : `${row?.orphans} orphan rows`;
    },
    cleanup: async () => undefined,
  };
}

describe.skipIf(skip)("PostgreSQL store", () => {
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "reson-store-pg-home-"));
    server = await startTestPostgres();
    const probe = await openStore({ home, databaseUrl: await server.createDatabase() });
    vectorSearch = probe.features?.vectorSearch;
    await probe.close();
    if (vectorSearch !== "pgvector-hnsw") {
      const say = process.env.CI ? "FAILING (CI needs pgvector)" : "searching vectors in process";
      console.warn(
        `\n*** PostgreSQL store tests: ${say}: the server has no pgvector; ${INSTALL_PGVECTOR} ***\n`,
      );
    }
  }, 60_000);
  // Dropping a hundred test databases takes a while on a busy machine.
  afterAll(async () => {
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  }, 180_000);

  // Counted as a failed test when CI's server has no pgvector: the HNSW path must run there.
  it.skipIf(!process.env.CI)("CI's PostgreSQL searches memory vectors with pgvector's HNSW index", () => {
    expect(vectorSearch, INSTALL_PGVECTOR).toBe("pgvector-hnsw");
  });

  storeContract(postgresTarget);

  describe("service", () => {
    serviceContract(postgresTarget);
  });

  describe("workspace registry", () => {
    workspaceContract(postgresTarget);
  });

  describe("chat channels", () => {
    channelContract(postgresTarget);
  });

  // Vector cases on pgvector's HNSW index where the server has it (else in process).
  describe("memory", () => {
    memoryContract(postgresTarget);
  });

  describe("memory, vectors in process", () => {
    memoryContract(postgresTarget, { nativeVectors: false });
  });

  describe("pgvector", pgvectorSpecifics);

  describe("wake-ups across processes", () => {
    it("a store on another connection hears a run's appended events, an answer and an enqueue within the commit", async () => {
      const databaseUrl = await server!.createDatabase();
      const writer = await openStore({ home, databaseUrl });
      const reader = await openStore({ home, databaseUrl });
      try {
        const heard: string[] = [];
        let wake = () => {};
        const next = () =>
          new Promise<void>((resolve) => {
            wake = resolve;
          });
        const stops = await Promise.all([
          reader.events.subscribe((traceId, lastSeq) => {
            heard.push(`events ${traceId} ${lastSeq}`);
            wake();
          }),
          reader.prompts.subscribe((traceId, promptId) => {
            heard.push(`prompt ${traceId} ${promptId}`);
            wake();
          }),
          reader.queue.subscribe(() => {
            heard.push("queue");
            wake();
          }),
        ]);
        const s = session();
        const t = trace(s.id);
        let woken = next();
        await writer.apply([
          { op: "insertSession", session: s },
          { op: "insertTrace", trace: t },
          {
            op: "appendEvents",
            traceId: t.id,
            events: [1, 2].map((seq) => ({ seq, type: "step_end", step: seq, ts: seq, data: {} })),
          },
        ]);
        await woken;
        expect(heard).toEqual([`events ${t.id} 2`]);
        woken = next();
        await writer.prompts.open({
          id: "p1",
          traceId: t.id,
          kind: "question",
          payload: {},
          timeoutMs: null,
        });
        await writer.prompts.answer("p1", "yes");
        await woken;
        woken = next();
        await writer.queue.enqueue({ id: "r1", sessionId: s.id, task: "t", spec: {} });
        await woken;
        expect(heard).toEqual([`events ${t.id} 2`, `prompt ${t.id} p1`, "queue"]);
        await Promise.all(stops.map((stop) => stop()));
      } finally {
        await Promise.all([writer.close(), reader.close()]);
      }
    });

    it("a listener whose connection is cut is told of the gap, and hears later commits again", async () => {
      const databaseUrl = await server!.createDatabase();
      const store = await openStore({ home, databaseUrl });
      try {
        let gaps = 0;
        const seen: number[] = [];
        let wake = () => {};
        const next = () =>
          new Promise<void>((resolve) => {
            wake = resolve;
          });
        const stop = await store.events.subscribe(
          (_traceId, lastSeq) => {
            seen.push(lastSeq);
            wake();
          },
          {
            onGap: () => {
              gaps++;
              wake();
            },
          },
        );
        const name = new URL(databaseUrl).pathname.slice(1);
        let woken = next();
        const [killed] = await sql<{ killed: boolean }>(
          databaseUrl,
          `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
           WHERE application_name = 'reson listener' AND datname = '${name}'`,
        );
        expect(killed?.killed).toBe(true);
        await woken;
        expect(gaps).toBe(1);
        woken = next();
        const event = { seq: 1, type: "run_start", step: 0, ts: 0, data: {} };
        await store.apply([{ op: "appendEvents", traceId: "01RUN", events: [event] }]);
        await woken;
        expect(seen).toEqual([1]);
        await stop();
        const [left] = await sql<{ n: number }>(
          databaseUrl,
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'reson listener' AND datname = '${name}'`,
        );
        expect(left?.n).toBe(0);
      } finally {
        await store.close();
      }
    });
  });

  describe("PostgreSQL specifics", () => {
    it("shows its URL without the password, in location and in errors", async () => {
      const databaseUrl = await server!.createDatabase();
      const withPassword = databaseUrl.replace("postgres@", "postgres:hunter2-secret@");
      const store = await openStore({
        home,
        databaseUrl: `${withPassword}?sslmode=disable&password=other-secret`,
      });
      try {
        expect(store.kind).toBe("postgres");
        expect(store.location).not.toMatch(/hunter2|other-secret/);
        expect(store.location).toContain("postgres@127.0.0.1");
      } finally {
        await store.close();
      }
      const unreachable = "postgres://reson:hunter2-secret@127.0.0.1:9/reson";
      const error = await rejection(openStore({ home, databaseUrl: unreachable }));
      expect(error.code).toBe("store_unavailable");
      expect(
        JSON.stringify({ message: error.message, hint: error.hint, details: error.details }),
      ).not.toContain("hunter2");
      expect(error.message).toContain("postgres://reson@127.0.0.1:9/reson");
    });

    it("refuses a URL that is not a postgres:// URL, without echoing it", async () => {
      const error = await rejection(openStore({ home, databaseUrl: "mysql://root:hunter2-secret@db/x" }));
      expect(error.code).toBe("config_invalid");
      expect(error.message).not.toContain("hunter2");
    });

    it("migrates a fresh database once when many openers race", async () => {
      const databaseUrl = await server!.createDatabase();
      const stores = await Promise.all(Array.from({ length: 6 }, () => openStore({ home, databaseUrl })));
      await Promise.all(stores.map((s) => s.close()));
      const rows = await sql<{ version: number }>(databaseUrl, "SELECT version FROM schema_migrations");
      expect(rows.map((r) => r.version).sort((a, b) => a - b)).toEqual(
        POSTGRES_MIGRATIONS.map((m) => m.version),
      );
    });

    it("a database of schema 1 (before artifacts) is migrated on open and keeps its data", async () => {
      const databaseUrl = await server!.createDatabase();
      const v1 = POSTGRES_MIGRATIONS.find((m) => m.version === 1)!;
      const s = session();
      await sql(
        databaseUrl,
        `${v1.sql};
        CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL);
        INSERT INTO schema_migrations VALUES (1, 'v1', 0);
        INSERT INTO sessions VALUES ('${s.id}', '${s.projectKey}', '/w', 'kept', 'active', '{}', '{}', NULL, 0, 0);`,
      );
      const store = await openStore({ home, databaseUrl });
      try {
        await expectUpgraded(store, s.id, "kept");
      } finally {
        await store.close();
      }
      const rows = await sql<{ version: number }>(
        databaseUrl,
        "SELECT version FROM schema_migrations ORDER BY version",
      );
      expect(rows.map((r) => r.version)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
    });

    it("records whether pgvector is available, and enables it when it is", async () => {
      const databaseUrl = await server!.createDatabase();
      const store = await openStore({ home, databaseUrl });
      try {
        const [offered] = await sql<{ available: boolean }>(
          databaseUrl,
          "SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS available",
        );
        expect(store.features?.vector).toBe(offered?.available);
        expect(store.features?.vectorSearch).toBe(offered?.available ? "pgvector-hnsw" : "in-process");
        const [recorded] = await sql<{ enabled: boolean }>(
          databaseUrl,
          "SELECT enabled FROM store_features WHERE name = 'vector'",
        );
        expect(recorded?.enabled).toBe(offered?.available);
      } finally {
        await store.close();
      }
    });
  });
});

const MODEL = "test-embed";
const T0 = Date.UTC(2026, 0, 1);

function embedding(ownerId: string, vector: Float32Array, overrides: Partial<EmbeddingInput> = {}) {
  return {
    ownerKind: "memory",
    ownerId,
    projectKey: PROJECT,
    model: MODEL,
    vector,
    createdAt: T0,
    ...overrides,
  } as const;
}

/** `count` deterministic vectors of `dims` around `centre` (a unit axis when omitted). */
function vectors(count: number, dims: number, seed: number, centre?: Float32Array): Float32Array[] {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648 - 0.5;
  };
  return Array.from({ length: count }, () =>
    Float32Array.from({ length: dims }, (_, i) => (centre ? (centre[i] ?? 0) : i === 0 ? 1 : 0) + random()),
  );
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] ?? 0) * (b[i] ?? 0);
    na += (a[i] ?? 0) ** 2;
    nb += (b[i] ?? 0) ** 2;
  }
  return dot / Math.sqrt(na * nb);
}

interface HnswIndex {
  name: string;
  definition: string;
  valid: boolean;
  oid: number;
}

async function hnswIndexes(url: string): Promise<HnswIndex[]> {
  const rows = await sql<{ name: string; definition: string; valid: boolean; oid: number }>(
    url,
    `SELECT c.relname AS name, pg_get_indexdef(c.oid) AS definition, i.indisvalid AS valid, c.oid::int AS oid
     FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
     WHERE a.amname = 'hnsw' ORDER BY c.relname`,
  );
  return rows;
}

/** The plan of the store's own nearest query (`settings` first, on the same connection). */
async function planOf(url: string, model: string, vector: Float32Array, settings: string[] = []) {
  const unused = () => Promise.reject(new Error("no session here"));
  const { sql: text, params } = pgvector(unused).nearest("memory", model, vector.length, vector, PROJECT, 10);
  let n = 0;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const setting of settings) await client.query(setting);
    const { rows } = await client.query<{ "QUERY PLAN": string }>(
      `EXPLAIN ${text.replace(/\?/g, () => `$${++n}`)}`,
      params,
    );
    return rows.map((row) => row["QUERY PLAN"]).join("\n");
  } finally {
    await client.end();
  }
}

function pgvectorSpecifics(): void {
  let databaseUrl: string;
  let store: Store | undefined;
  const search = (vector: Float32Array, options: { model?: string; limit?: number; on?: Store } = {}) =>
    (options.on ?? store!).memory.vectorSearch(vector, options.model ?? MODEL, {
      projectKey: PROJECT,
      limit: options.limit ?? 10,
    });

  beforeEach(async (context) => {
    store = undefined;
    // Under CI these run, and fail, whatever the server has.
    if (vectorSearch !== "pgvector-hnsw" && !process.env.CI) context.skip("the server has no pgvector");
    databaseUrl = await server!.createDatabase();
    store = await openStore({ home, databaseUrl });
  });
  afterEach(async () => {
    await store?.close();
  });

  async function seed(count: number, dims: number, options: { seed?: number; model?: string } = {}) {
    const items = Array.from({ length: count }, (_, i) =>
      memoryItem({ text: `note ${i}`, createdAt: T0 + i }),
    );
    const vs = vectors(count, dims, options.seed ?? 1);
    await store!.memory.appendItems(items);
    await store!.memory.putEmbeddings(
      items.map((item, i) => embedding(item.id, vs[i]!, { model: options.model ?? MODEL })),
    );
    return { items, vectors: vs };
  }

  it("gives each embedding model its own valid HNSW index (cosine), which the store's query is answered from", async () => {
    const a = await seed(40, 8);
    const b = await seed(40, 3, { seed: 2, model: "other-model" });
    const found = await search(a.vectors[7]!, { limit: 3 });
    expect(found[0]?.item.id).toBe(a.items[7]!.id);
    expect(found[0]?.score).toBeCloseTo(1, 5);
    expect((await search(b.vectors[5]!, { model: "other-model", limit: 1 }))[0]?.item.id).toBe(
      b.items[5]!.id,
    );
    const indexes = await hnswIndexes(databaseUrl);
    expect(indexes).toHaveLength(2);
    for (const index of indexes) expect(index.valid).toBe(true);
    const of = (model: string) => indexes.find((index) => index.definition.includes(`'${model}'`))!;
    expect(of(MODEL).definition).toContain("vector(8)) vector_cosine_ops");
    expect(of(MODEL).definition).toContain("m='16'");
    expect(of("other-model").definition).toContain("vector(3)) vector_cosine_ops");
    // With sequential scans and sorts priced out, only an index matching the query's expression
    // and predicate can answer it: this one.
    const plan = await planOf(databaseUrl, MODEL, a.vectors[0]!, [
      "SET enable_seqscan = off",
      "SET enable_sort = off",
    ]);
    expect(plan).toContain(`Index Scan using ${of(MODEL).name}`);
  });

  it("fills in vectors stored while the server had no pgvector, and finds them", async () => {
    const { items, vectors: vs } = await seed(30, 8);
    await store!.close();
    // As if the database had lived on a server without pgvector: vectors as bytes only.
    await sql(databaseUrl, "DROP EXTENSION vector CASCADE");
    store = await openStore({ home, databaseUrl });
    expect(store.features?.vectorSearch).toBe("pgvector-hnsw");
    const found = await search(vs[12]!, { limit: 5 });
    expect(found[0]?.item.id).toBe(items[12]!.id);
    expect(found.map((m) => m.item.id)).toEqual(
      items
        .map((item, i) => ({ id: item.id, score: cosine(vs[i]!, vs[12]!) }))
        .sort((x, y) => y.score - x.score)
        .slice(0, 5)
        .map((x) => x.id),
    );
    const [left] = await sql<{ n: number }>(
      databaseUrl,
      "SELECT count(*)::int AS n FROM embeddings WHERE embedding IS NULL",
    );
    expect(left?.n).toBe(0);
    expect((await hnswIndexes(databaseUrl)).map((index) => index.valid)).toEqual([true]);
  });

  it("drops an index whose build was interrupted and builds it again", async () => {
    const { items, vectors: vs } = await seed(30, 8);
    await search(vs[0]!);
    const [built] = await hnswIndexes(databaseUrl);
    // What a build killed half way leaves behind: an index the planner never uses.
    await sql(databaseUrl, `UPDATE pg_index SET indisvalid = false WHERE indexrelid = ${built!.oid}`);
    const next = await openStore({ home, databaseUrl });
    try {
      expect((await search(vs[3]!, { on: next, limit: 1 }))[0]?.item.id).toBe(items[3]!.id);
    } finally {
      await next.close();
    }
    const [rebuilt] = await hnswIndexes(databaseUrl);
    expect(rebuilt).toMatchObject({ name: built!.name, valid: true });
    expect(rebuilt!.oid).not.toBe(built!.oid);
  });

  it("stores readying the same model at once build one index and find the same neighbours", async () => {
    const { items, vectors: vs } = await seed(200, 8);
    const stores = await Promise.all(Array.from({ length: 4 }, () => openStore({ home, databaseUrl })));
    try {
      const found = await Promise.all(stores.map((on) => search(vs[42]!, { on, limit: 5 })));
      for (const result of found) {
        expect(result[0]?.item.id).toBe(items[42]!.id);
        expect(result.map((m) => m.item.id)).toEqual(found[0]!.map((m) => m.item.id));
      }
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
    expect((await hnswIndexes(databaseUrl)).map((index) => index.valid)).toEqual([true]);
  });

  it("a project's search comes back whole when the index's nearest vectors all belong to other projects", async () => {
    const query = vectors(1, 16, 9)[0]!;
    const crowd = vectors(1500, 16, 3, query);
    const others = crowd.map(() => memoryItem({ projectKey: OTHER_PROJECT }));
    const own = Array.from({ length: 15 }, (_, i) => memoryItem({ text: `own ${i}`, createdAt: T0 + i }));
    const ownVectors = vectors(15, 16, 4);
    await store!.memory.appendItems([...others, ...own]);
    await store!.memory.putEmbeddings([
      ...others.map((item, i) => embedding(item.id, crowd[i]!, { projectKey: OTHER_PROJECT })),
      ...own.map((item, i) => embedding(item.id, ownVectors[i]!)),
    ]);
    // Only the HNSW index may answer (else a small project is read by another index and sorted,
    // exactly): with sequential scans and sorts priced out for the store's sessions. Its ef_search
    // candidates are all other projects' here, so without iterative scans it would come back empty.
    const name = new URL(databaseUrl).pathname.slice(1);
    await sql(databaseUrl, `ALTER DATABASE ${name} SET enable_seqscan = off`);
    await sql(databaseUrl, `ALTER DATABASE ${name} SET enable_sort = off`);
    const next = await openStore({ home, databaseUrl });
    try {
      const expected = own
        .map((item, i) => ({ id: item.id, score: cosine(ownVectors[i]!, query) }))
        .sort((x, y) => y.score - x.score)
        .slice(0, 10)
        .map((x) => x.id);
      expect((await search(query, { on: next })).map((m) => m.item.id)).toEqual(expected);
    } finally {
      await next.close();
    }
    expect(await planOf(databaseUrl, MODEL, query)).toMatch(/Index Scan using embeddings_hnsw_/);
  });

  it("indexes 3072 dimensions as halfvec, searches 5000 exactly with pgvector and 17000 in process", async () => {
    for (const dims of [3072, 5000, 17_000]) {
      const model = `wide-${dims}`;
      const { items, vectors: vs } = await seed(12, dims, { seed: dims, model });
      const found = await search(vs[4]!, { model, limit: 3 });
      expect(found[0]?.item.id).toBe(items[4]!.id);
      expect(found[0]?.score).toBeCloseTo(1, 2);
    }
    const indexes = await hnswIndexes(databaseUrl);
    expect(indexes.map((index) => index.definition)).toEqual([
      expect.stringContaining("halfvec(3072)) halfvec_cosine_ops"),
    ]);
    const [unindexed] = await sql<{ n: number }>(
      databaseUrl,
      "SELECT count(*)::int AS n FROM embeddings WHERE embedding IS NULL AND dims = 17000",
    );
    expect(unindexed?.n).toBe(12);
  });

  it("hybrid memory search joins pgvector's neighbours with the full-text matches", async () => {
    const deploy = memoryItem({ text: "deploy the api with the blue-green script", createdAt: T0 });
    const keys = memoryItem({ text: "rotate the signing keys every quarter", createdAt: T0 });
    const lunch = memoryItem({ text: "lunch is at noon", createdAt: T0 });
    await store!.memory.appendItems([deploy, keys, lunch]);
    await store!.memory.putEmbeddings([
      embedding(deploy.id, Float32Array.of(0.6, 0.8, 0, 0)),
      embedding(keys.id, Float32Array.of(1, 0.05, 0, 0)),
      embedding(lunch.id, Float32Array.of(0, 0, 1, 0)),
    ]);
    await store!.memory.setIndexIdentity({ model: MODEL, dims: 4 }, { projectKey: PROJECT });
    const result = await searchMemory({
      store: store!,
      query: "how do we deploy",
      projectKey: PROJECT,
      embed: async () => Float32Array.of(1, 0, 0, 0),
      now: T0,
    });
    expect(result.mode).toBe("hybrid");
    const hits = new Map(result.hits.map((hit) => [hit.item.id, hit]));
    expect(hits.get(keys.id)?.vectorScore).toBeCloseTo(1, 2);
    expect(hits.get(deploy.id)?.textScore).toBe(1);
    expect(hits.has(lunch.id)).toBe(false);
  });
}
