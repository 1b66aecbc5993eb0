// The memory and experience contract, one suite for every backend and vector path: each
// backend's test file calls memoryContract with a way to get a fresh database (and, for
// SQLite, once more without sqlite-vec so the in-process index is exercised too).
import { readFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ulid } from "../../src/core/ids.js";
import {
  contentHash,
  type MemoryItemInput,
  type OpenStoreOptions,
  type Store,
  successRate,
  type WriteOp,
} from "../../src/store/index.js";
import { rejection, type StoreTarget } from "./contract.js";
import { experience, memoryItem, OTHER_PROJECT, PROJECT, session, T0, turn, vec } from "./fixtures.js";

const DAY = 86_400_000;
const MODEL = "test-embed";

/** Realistic notes in Chinese, English and both. */
const CORPUS = {
  loginTimeout: "用户登录失败，因为数据库连接超时",
  deployOk: "部署脚本在生产环境执行成功",
  redisPenetration: "Redis 缓存穿透导致数据库压力过大",
  nightlyDeploy: "The database connection timed out during the nightly deploy",
  flakyParser: "Fixed the flaky parser test: it relied on Map iteration order",
  localCache: "本地缓存的过期策略改成了 LRU",
  lockWait: "锁等待超时，事务回滚",
} as const;
type Name = keyof typeof CORPUS;

export function memoryContract(
  fresh: () => Promise<StoreTarget>,
  options: Pick<OpenStoreOptions, "nativeVectors"> = {},
): void {
  let target: StoreTarget;
  let store: Store;

  beforeEach(async () => {
    target = await fresh();
    store = await target.open(options);
  });
  afterEach(async () => {
    await store.close();
    await target.cleanup();
  });

  const count = async (sql: string, params: unknown[] = []) => Number((await target.sql(sql, params))[0]?.n);

  /** The corpus in PROJECT (one item a minute, in order) and a copy of it in OTHER_PROJECT. */
  async function seedCorpus(): Promise<Record<Name, MemoryItemInput>> {
    const names = Object.keys(CORPUS) as Name[];
    const items = Object.fromEntries(
      names.map((name, i) => [name, memoryItem({ text: CORPUS[name], createdAt: T0 + i * 60_000 })]),
    ) as Record<Name, MemoryItemInput>;
    const elsewhere = names.map((name) => memoryItem({ projectKey: OTHER_PROJECT, text: CORPUS[name] }));
    await store.memory.appendItems([...Object.values(items), ...elsewhere]);
    return items;
  }

  async function searchIds(query: string, limit = 10): Promise<string[]> {
    return (await store.memory.search(query, { projectKey: PROJECT, limit })).map((m) => m.item.id);
  }

  describe("memory full-text search", () => {
    it("finds English by its words, best match first, within the project only", async () => {
      const items = await seedCorpus();
      expect((await searchIds("database timed out deploy"))[0]).toBe(items.nightlyDeploy.id);
      expect(await searchIds("flaky parser")).toEqual([items.flakyParser.id]);
      // Words like "how" and "the" are left out when the query has others.
      expect(await searchIds("how did we fix the parser")).toEqual([items.flakyParser.id]);
      expect(await searchIds("REDIS")).toEqual([items.redisPenetration.id]);
      const matches = await store.memory.search("iteration order", { projectKey: PROJECT, limit: 10 });
      expect(matches.map((m) => m.item)).toEqual([items.flakyParser]);
      expect(await store.memory.search("flaky", { projectKey: "c".repeat(64), limit: 10 })).toEqual([]);
    });

    it("finds Chinese by a phrase, sharing part of it, and ranks the closest first", async () => {
      const items = await seedCorpus();
      const ids = await searchIds("数据库连接超时");
      expect(ids[0]).toBe(items.loginTimeout.id);
      // 数据库 is shared with the Redis note: found, ranked lower.
      expect(ids).toContain(items.redisPenetration.id);
      expect(ids).not.toContain(items.deployOk.id);
      expect(ids).not.toContain(items.flakyParser.id);
    });

    it("finds two-character and one-character Chinese words (部署, 缓存, 锁) that the index alone cannot", async () => {
      const items = await seedCorpus();
      expect(await searchIds("部署")).toEqual([items.deployOk.id]);
      expect((await searchIds("缓存")).sort()).toEqual(
        [items.redisPenetration.id, items.localCache.id].sort(),
      );
      expect(await searchIds("锁")).toEqual([items.lockWait.id]);
      expect(await searchIds("回滚")).toEqual([items.lockWait.id]);
    });

    it("answers a mixed Chinese and English query, items matching both first", async () => {
      const items = await seedCorpus();
      const ids = await searchIds("Redis 缓存");
      expect(ids[0]).toBe(items.redisPenetration.id);
      expect(ids).toContain(items.localCache.id);
      expect(ids).not.toContain(items.deployOk.id);
      const lru = await searchIds("LRU 过期策略");
      expect(lru[0]).toBe(items.localCache.id);
    });

    it("scores from 0 to 1 with the best match at 1, honours the limit, and finds nothing for no words", async () => {
      await seedCorpus();
      const matches = await store.memory.search("数据库 database", { projectKey: PROJECT, limit: 10 });
      expect(matches.length).toBeGreaterThanOrEqual(3);
      expect(matches[0]?.score).toBe(1);
      for (const m of matches) expect(m.score).toBeGreaterThan(0);
      for (const m of matches) expect(m.score).toBeLessThanOrEqual(1);
      const scores = matches.map((m) => m.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      expect(await store.memory.search("数据库 database", { projectKey: PROJECT, limit: 1 })).toHaveLength(1);
      expect(await searchIds("")).toEqual([]);
      expect(await searchIds(" !!! ，。 ")).toEqual([]);
      expect(await searchIds("zzzz-not-there")).toEqual([]);
      expect((await rejection(store.memory.search("x", { projectKey: PROJECT, limit: -1 }))).code).toBe(
        "usage_error",
      );
    });

    it("filters by session, kind and time", async () => {
      const s = ulid();
      const a = memoryItem({ text: "rotate the signing keys every quarter", sessionId: s, createdAt: T0 });
      const b = memoryItem({ text: "signing keys live in the vault", kind: "note", createdAt: T0 + DAY });
      const c = memoryItem({
        text: "summary: signing keys rotated",
        kind: "summary",
        createdAt: T0 + 2 * DAY,
      });
      await store.memory.appendItems([a, b, c]);
      const ids = async (extra: {
        sessionId?: string;
        kinds?: ("turn" | "note" | "summary")[];
        since?: number;
      }) =>
        (await store.memory.search("signing keys", { projectKey: PROJECT, limit: 10, ...extra }))
          .map((m) => m.item.id)
          .sort();
      expect(await ids({})).toEqual([a.id, b.id, c.id].sort());
      expect(await ids({ sessionId: s })).toEqual([a.id]);
      expect(await ids({ kinds: ["note", "summary"] })).toEqual([b.id, c.id].sort());
      expect(await ids({ since: T0 + DAY })).toEqual([b.id, c.id].sort());
      expect((await rejection(ids({ kinds: ["bogus" as "note"] }))).code).toBe("usage_error");
    });
  });

  describe("memory items", () => {
    it("read back as written; getRecent gives the newest first, by session and kind, up to a limit", async () => {
      const s = ulid();
      const items = [0, 1, 2, 3].map((i) =>
        memoryItem({
          text: `note ${i}`,
          createdAt: T0 + i,
          sessionId: i % 2 === 0 ? s : null,
          traceId: ulid(),
        }),
      );
      await store.memory.appendItems(items);
      await store.memory.appendItems([memoryItem({ projectKey: OTHER_PROJECT, createdAt: T0 + 9 })]);
      expect(await store.memory.get(items[2]!.id)).toEqual(items[2]);
      expect(await store.memory.get(ulid())).toBeUndefined();
      const recent = async (extra: { sessionId?: string; kinds?: ("turn" | "note")[]; limit: number }) =>
        (await store.memory.getRecent({ projectKey: PROJECT, ...extra })).map((i) => i.text);
      expect(await recent({ limit: 10 })).toEqual(["note 3", "note 2", "note 1", "note 0"]);
      expect(await recent({ limit: 2 })).toEqual(["note 3", "note 2"]);
      expect(await recent({ sessionId: s, limit: 10 })).toEqual(["note 2", "note 0"]);
      expect(await recent({ kinds: ["note"], limit: 10 })).toEqual([]);
    });

    it("join a loop step's batch, all or nothing, index included", async () => {
      const s = session();
      const item = memoryItem({ sessionId: s.id, text: "the batch that failed mentions kumquats" });
      const error = await rejection(
        store.apply([
          { op: "insertSession", session: s },
          { op: "appendTurn", turn: turn(s.id, 0) },
          { op: "appendMemory", item },
          { op: "appendTurn", turn: turn(ulid(), 0) },
        ]),
      );
      expect(error.code).toBe("not_found");
      expect(await store.memory.get(item.id)).toBeUndefined();
      expect(await searchIds("kumquats")).toEqual([]);
      await store.apply([
        { op: "insertSession", session: s },
        { op: "appendTurn", turn: turn(s.id, 0) },
        { op: "appendMemory", item },
      ]);
      expect(await searchIds("kumquats")).toEqual([item.id]);
      const again = await rejection(store.memory.appendItems([item]));
      expect(again.code).toBe("store_conflict");
    });

    it("refuses an item that does not fit its type before anything is written", async () => {
      const good = memoryItem();
      for (const bad of [
        memoryItem({ kind: "diary" as "note" }),
        memoryItem({ provenance: "rumour" as "user" }),
        memoryItem({ text: 42 as unknown as string }),
      ]) {
        expect((await rejection(store.memory.appendItems([good, bad]))).code).toBe("internal_error");
      }
      expect(await store.memory.get(good.id)).toBeUndefined();
    });

    it("keep NUL and lone surrogates out of the stored text, the same on every backend", async () => {
      const item = memoryItem({ text: "before\u0000after \ud800 end" });
      await store.memory.appendItems([item]);
      expect((await store.memory.get(item.id))?.text).toBe("before\uFFFDafter \uFFFD end");
    });
  });

  describe("secrets", () => {
    it("are redacted before anything is stored or indexed: the canary is in no row and no byte of the database", async () => {
      const canary = "zq7canaryvalue9x";
      const redacting = await target.open({
        ...options,
        redact: (text) => text.replaceAll(canary, "<secret>deploy_token</secret>"),
      });
      try {
        const item = memoryItem({ text: `deploy with token ${canary} then verify` });
        const e = experience({
          condition: `when the token ${canary} expires`,
          rule: `rotate ${canary} first.`,
          conditionFilter: { urls: [`https://ci.example.com/?t=${canary}`] },
          evidence: [{ traceId: ulid(), outcome: "success", note: `used ${canary}`, at: T0 }],
        });
        await redacting.memory.appendItems([item]);
        await redacting.experiences.insert(e);
        await redacting.apply([
          { op: "updateExperience", id: e.id, patch: { rule: `never print ${canary}.` }, at: T0 + 1 },
        ]);
        const stored = await redacting.memory.get(item.id);
        expect(stored?.text).toBe("deploy with token <secret>deploy_token</secret> then verify");
        const storedExperience = await redacting.experiences.get(e.id);
        expect(JSON.stringify(storedExperience)).not.toContain(canary);
        expect(storedExperience?.rule).toBe("never print <secret>deploy_token</secret>.");
        expect(await redacting.memory.search(canary, { projectKey: PROJECT, limit: 5 })).toEqual([]);
        expect(
          (await redacting.memory.search("deploy_token", { projectKey: PROJECT, limit: 5 })).map(
            (m) => m.item.id,
          ),
        ).toEqual([item.id]);
        const [row] = await target.sql("SELECT text_hash FROM memory_items WHERE id = ?", [item.id]);
        expect(row?.text_hash).toBe(contentHash(stored?.text ?? ""));
        expect(await count("SELECT count(*) AS n FROM memory_items WHERE text LIKE ?", [`%${canary}%`])).toBe(
          0,
        );
        expect(
          await count("SELECT count(*) AS n FROM experiences WHERE condition LIKE ? OR rule LIKE ?", [
            `%${canary}%`,
            `%${canary}%`,
          ]),
        ).toBe(0);
        for (const file of target.files) {
          const bytes = await readFile(file).catch(() => Buffer.alloc(0));
          expect(bytes.includes(Buffer.from(canary)), file).toBe(false);
        }
      } finally {
        await redacting.close();
      }
    });
  });

  describe("memory vectors", () => {
    async function seedVectors() {
      const near = memoryItem({ text: "near", createdAt: T0 });
      const close = memoryItem({ text: "close", kind: "note", createdAt: T0 + 1 });
      const far = memoryItem({ text: "far", createdAt: T0 + 2 });
      const foreign = memoryItem({ projectKey: OTHER_PROJECT, text: "foreign" });
      await store.memory.appendItems([near, close, far, foreign]);
      await store.memory.putEmbeddings([
        {
          ownerKind: "memory",
          ownerId: near.id,
          projectKey: PROJECT,
          model: MODEL,
          vector: vec(1, 0, 0, 0),
          createdAt: T0,
        },
        {
          ownerKind: "memory",
          ownerId: close.id,
          projectKey: PROJECT,
          model: MODEL,
          vector: vec(0.9, 0.1, 0, 0),
          createdAt: T0,
        },
        {
          ownerKind: "memory",
          ownerId: far.id,
          projectKey: PROJECT,
          model: MODEL,
          vector: vec(0, 0, 1, 0),
          createdAt: T0,
        },
        {
          ownerKind: "memory",
          ownerId: foreign.id,
          projectKey: OTHER_PROJECT,
          model: MODEL,
          vector: vec(1, 0, 0, 0),
          createdAt: T0,
        },
        {
          ownerKind: "memory",
          ownerId: far.id,
          projectKey: PROJECT,
          model: "other-model",
          vector: vec(1, 0, 0),
          createdAt: T0,
        },
      ]);
      return { near, close, far, foreign };
    }

    it("finds the nearest items by cosine similarity, of the project and model asked, with filters", async () => {
      const { near, close, far } = await seedVectors();
      const found = await store.memory.vectorSearch(vec(2, 0, 0, 0), MODEL, {
        projectKey: PROJECT,
        limit: 10,
      });
      expect(found.map((m) => m.item.id)).toEqual([near.id, close.id, far.id]);
      expect(found[0]?.score).toBeCloseTo(1, 5);
      expect(found[1]?.score).toBeCloseTo(0.9 / Math.hypot(0.9, 0.1), 5);
      expect(found[2]?.score).toBeCloseTo(0, 5);
      expect(found[0]?.item).toEqual(near);
      const top = await store.memory.vectorSearch(vec(1, 0, 0, 0), MODEL, { projectKey: PROJECT, limit: 1 });
      expect(top.map((m) => m.item.id)).toEqual([near.id]);
      const notes = await store.memory.vectorSearch(vec(1, 0, 0, 0), MODEL, {
        projectKey: PROJECT,
        kinds: ["note"],
        limit: 10,
      });
      expect(notes.map((m) => m.item.id)).toEqual([close.id]);
      const other = await store.memory.vectorSearch(vec(1, 0, 0), "other-model", {
        projectKey: PROJECT,
        limit: 10,
      });
      expect(other.map((m) => m.item.id)).toEqual([far.id]);
      expect(
        await store.memory.vectorSearch(vec(1, 0, 0, 0), "unknown", { projectKey: PROJECT, limit: 5 }),
      ).toEqual([]);
    });

    it("a vector stored again replaces the first; a vector of a missing owner or the wrong project is refused", async () => {
      const { near, far } = await seedVectors();
      await store.memory.vectorSearch(vec(1, 0, 0, 0), MODEL, { projectKey: PROJECT, limit: 3 });
      await store.memory.putEmbeddings([
        {
          ownerKind: "memory",
          ownerId: far.id,
          projectKey: PROJECT,
          model: MODEL,
          vector: vec(1, 0, 0, 0),
          createdAt: T0,
        },
      ]);
      const found = await store.memory.vectorSearch(vec(1, 0, 0, 0), MODEL, {
        projectKey: PROJECT,
        limit: 2,
      });
      expect(found.map((m) => m.item.id).sort()).toEqual([near.id, far.id].sort());
      for (const embedding of [
        {
          ownerKind: "memory" as const,
          ownerId: ulid(),
          projectKey: PROJECT,
          model: MODEL,
          vector: vec(1),
          createdAt: T0,
        },
        {
          ownerKind: "memory" as const,
          ownerId: near.id,
          projectKey: OTHER_PROJECT,
          model: MODEL,
          vector: vec(1),
          createdAt: T0,
        },
      ]) {
        const error = await rejection(store.memory.putEmbeddings([embedding]));
        expect(error.code).toBe("not_found");
      }
      const bad = await rejection(
        store.memory.putEmbeddings([
          {
            ownerKind: "memory",
            ownerId: near.id,
            projectKey: PROJECT,
            model: MODEL,
            vector: [1, 0] as unknown as Float32Array,
            createdAt: T0,
          },
        ]),
      );
      expect(bad.code).toBe("internal_error");
      const query = await rejection(
        store.memory.vectorSearch([1, 0, 0, 0] as unknown as Float32Array, MODEL, {
          projectKey: PROJECT,
          limit: 1,
        }),
      );
      expect(query.code).toBe("usage_error");
    });

    it("another store's writes and forgets on the same database are seen by the next search", async () => {
      const { near } = await seedVectors();
      expect(
        (await store.memory.vectorSearch(vec(0, 1, 0, 0), MODEL, { projectKey: PROJECT, limit: 1 }))[0]?.item
          .id,
      ).not.toBe(undefined);
      const second = await target.open(options);
      try {
        const newcomer = memoryItem({ text: "newcomer" });
        await second.memory.appendItems([newcomer]);
        await second.memory.putEmbeddings([
          {
            ownerKind: "memory",
            ownerId: newcomer.id,
            projectKey: PROJECT,
            model: MODEL,
            vector: vec(0, 1, 0, 0),
            createdAt: T0,
          },
        ]);
        const found = await store.memory.vectorSearch(vec(0, 1, 0, 0), MODEL, {
          projectKey: PROJECT,
          limit: 1,
        });
        expect(found.map((m) => m.item.id)).toEqual([newcomer.id]);
        await second.memory.forget([newcomer.id, near.id]);
        const after = await store.memory.vectorSearch(vec(1, 1, 0, 0), MODEL, {
          projectKey: PROJECT,
          limit: 10,
        });
        expect(after.map((m) => m.item.id)).not.toContain(newcomer.id);
        expect(after.map((m) => m.item.id)).not.toContain(near.id);
        expect(after).toHaveLength(2);
      } finally {
        await second.close();
      }
    });

    it("the embedding cache gives back exactly the vector stored under a model and content hash", async () => {
      const hash = contentHash("some text");
      const vector = vec(0.1, -0.25, 3.5e-8, 1e6);
      await store.memory.cacheEmbeddings(MODEL, [{ hash, vector }]);
      const cached = await store.memory.cachedEmbeddings(MODEL, [hash, contentHash("other")]);
      expect([...cached.keys()]).toEqual([hash]);
      expect(Array.from(cached.get(hash)!)).toEqual(Array.from(vector));
      expect((await store.memory.cachedEmbeddings("another-model", [hash])).size).toBe(0);
      expect((await store.memory.cachedEmbeddings(MODEL, [])).size).toBe(0);
    });
  });

  describe("forgetting", () => {
    it("forget removes items with their text-index entries, vectors, cached embeddings and the summaries made from them", async () => {
      const doomed = memoryItem({ text: "the staging password rotation uses quokkas" });
      const kept = memoryItem({ text: "unrelated note about quokkas in the zoo" });
      const sibling = memoryItem({ text: "another turn of the same session" });
      const summary = memoryItem({
        kind: "summary",
        text: "summary: rotation with quokkas",
        sourceIds: [doomed.id, sibling.id],
      });
      const summaryOfSummary = memoryItem({
        kind: "summary",
        text: "weekly digest",
        sourceIds: [summary.id],
      });
      await store.memory.appendItems([doomed, kept, sibling, summary, summaryOfSummary]);
      const embed = (id: string, v: number[]) =>
        ({
          ownerKind: "memory",
          ownerId: id,
          projectKey: PROJECT,
          model: MODEL,
          vector: vec(...v),
          createdAt: T0,
        }) as const;
      await store.memory.putEmbeddings([
        embed(doomed.id, [1, 0]),
        embed(summary.id, [0.5, 0.5]),
        embed(kept.id, [0, 1]),
      ]);
      await store.memory.cacheEmbeddings(MODEL, [
        { hash: contentHash(doomed.text), vector: vec(1, 0) },
        { hash: contentHash(kept.text), vector: vec(0, 1) },
      ]);
      expect((await searchIds("quokkas")).length).toBe(3);

      expect(await store.memory.forget([doomed.id])).toEqual({ items: 3, embeddings: 2, cacheEntries: 1 });

      expect((await searchIds("quokkas")).sort()).toEqual([kept.id]);
      expect(await searchIds("staging password")).toEqual([]);
      expect(await store.memory.get(summaryOfSummary.id)).toBeUndefined();
      expect(await store.memory.get(sibling.id)).toEqual(sibling);
      const found = await store.memory.vectorSearch(vec(1, 0), MODEL, { projectKey: PROJECT, limit: 10 });
      expect(found.map((m) => m.item.id)).toEqual([kept.id]);
      // Nothing of them is left, as the database itself sees it.
      expect(await count("SELECT count(*) AS n FROM memory_items")).toBe(2);
      expect(await count("SELECT count(*) AS n FROM embeddings")).toBe(1);
      expect(await count("SELECT count(*) AS n FROM embedding_cache")).toBe(1);
      expect(await count("SELECT count(*) AS n FROM memory_links")).toBe(0);
      expect(await count("SELECT count(*) AS n FROM memory_items WHERE forget_mark IS NOT NULL")).toBe(0);
      if (store.kind === "sqlite") {
        expect(
          await count("SELECT count(*) AS n FROM memory_fts WHERE memory_fts MATCH ?", ['"staging"']),
        ).toBe(0);
        expect(
          await count("SELECT count(*) AS n FROM memory_fts WHERE memory_fts MATCH ?", ['"quokkas"']),
        ).toBe(1);
        expect(await count("SELECT count(*) AS n FROM memory_fts_docsize")).toBe(2);
        await target.sql("INSERT INTO memory_fts (memory_fts) VALUES ('integrity-check')");
      } else {
        expect(
          await count("SELECT count(*) AS n FROM memory_items WHERE tsv @@ to_tsquery('simple', 'staging')"),
        ).toBe(0);
      }
      expect(await store.memory.forget([])).toEqual({ items: 0, embeddings: 0, cacheEntries: 0 });
      expect(await store.memory.forget([ulid()])).toEqual({ items: 0, embeddings: 0, cacheEntries: 0 });
    });

    it("evictBefore removes older items of one project or of all, with their derivatives, and keeps newer ones", async () => {
      const old = memoryItem({ text: "old decision about wombats", createdAt: T0 - 3 * DAY });
      const older = memoryItem({ text: "older decision about wombats", createdAt: T0 - 5 * DAY });
      const recent = memoryItem({ text: "recent decision about wombats", createdAt: T0 });
      const foreignOld = memoryItem({
        projectKey: OTHER_PROJECT,
        text: "foreign wombats",
        createdAt: T0 - 3 * DAY,
      });
      const digest = memoryItem({
        kind: "summary",
        text: "digest of wombats",
        createdAt: T0,
        sourceIds: [old.id],
      });
      await store.memory.appendItems([old, older, recent, foreignOld, digest]);
      await store.memory.putEmbeddings(
        [old, recent, foreignOld].map((item) => ({
          ownerKind: "memory" as const,
          ownerId: item.id,
          projectKey: item.projectKey,
          model: MODEL,
          vector: vec(1, 2, 3),
          createdAt: T0,
        })),
      );
      await store.memory.cacheEmbeddings(MODEL, [{ hash: contentHash(old.text), vector: vec(1, 2, 3) }]);

      expect(await store.memory.evictBefore(T0 - DAY, { projectKey: PROJECT })).toEqual({
        items: 3,
        embeddings: 1,
        cacheEntries: 1,
      });
      expect(await searchIds("wombats")).toEqual([recent.id]);
      expect(await store.memory.get(foreignOld.id)).toEqual(foreignOld);
      expect(await store.memory.evictBefore(T0 - DAY)).toEqual({ items: 1, embeddings: 1, cacheEntries: 0 });
      expect(await count("SELECT count(*) AS n FROM memory_items")).toBe(1);
      expect(await count("SELECT count(*) AS n FROM embeddings")).toBe(1);
      if (store.kind === "sqlite")
        expect(await count("SELECT count(*) AS n FROM memory_fts_docsize")).toBe(1);
      expect((await rejection(store.memory.evictBefore(Number.NaN))).code).toBe("usage_error");
    });
  });

  describe("index identity", () => {
    it("is per project with a global default, and a model change lists what lacks a vector of the new model", async () => {
      expect(await store.memory.indexIdentity(PROJECT)).toBeUndefined();
      await store.memory.setIndexIdentity({ model: "m1", dims: 3 });
      expect(await store.memory.indexIdentity(PROJECT)).toEqual({ model: "m1", dims: 3 });
      expect(await store.memory.indexIdentity()).toEqual({ model: "m1", dims: 3 });

      const a = memoryItem({ text: "first", createdAt: T0 });
      const b = memoryItem({ text: "second", createdAt: T0 + 1 });
      const foreign = memoryItem({ projectKey: OTHER_PROJECT, text: "foreign", createdAt: T0 - 1 });
      const e = experience({
        condition: "when deploying",
        rule: "run the smoke tests first.",
        keys: ["deploy", "smoke tests"],
        createdAt: T0 + 2,
      });
      const retired = experience({ status: "retired", createdAt: T0 + 3 });
      await store.memory.appendItems([a, b, foreign]);
      await store.experiences.insert(e);
      await store.experiences.insert(retired);
      await store.memory.putEmbeddings(
        [a, b].map((item) => ({
          ownerKind: "memory" as const,
          ownerId: item.id,
          projectKey: PROJECT,
          model: "m1",
          vector: vec(1, 0, 0),
          createdAt: T0,
        })),
      );
      expect(await store.memory.missingEmbeddings("m1", { projectKey: PROJECT, limit: 10 })).toEqual([
        // An experience is embedded as its condition, rule and keys.
        {
          ownerKind: "experience",
          ownerId: e.id,
          projectKey: PROJECT,
          text: "when deploying\nrun the smoke tests first.\ndeploy; smoke tests",
        },
      ]);

      await store.memory.setIndexIdentity({ model: "m2", dims: 2 }, { projectKey: PROJECT });
      expect(await store.memory.indexIdentity(PROJECT)).toEqual({ model: "m2", dims: 2 });
      expect(await store.memory.indexIdentity(OTHER_PROJECT)).toEqual({ model: "m1", dims: 3 });
      const stale = await store.memory.missingEmbeddings("m2", { projectKey: PROJECT, limit: 10 });
      expect(stale.map((o) => o.ownerId)).toEqual([a.id, b.id, e.id]);
      expect(
        await store.memory.missingEmbeddings("m2", { projectKey: PROJECT, ownerKind: "memory", limit: 1 }),
      ).toEqual([{ ownerKind: "memory", ownerId: a.id, projectKey: PROJECT, text: "first" }]);
      expect((await store.memory.missingEmbeddings("m2", { limit: 10 })).map((o) => o.ownerId)).toEqual([
        foreign.id,
        a.id,
        b.id,
        e.id,
      ]);
      await store.memory.putEmbeddings([
        {
          ownerKind: "memory",
          ownerId: a.id,
          projectKey: PROJECT,
          model: "m2",
          vector: vec(0, 1),
          createdAt: T0,
        },
      ]);
      expect(
        (await store.memory.missingEmbeddings("m2", { projectKey: PROJECT, limit: 10 })).map(
          (o) => o.ownerId,
        ),
      ).toEqual([b.id, e.id]);
      // The old model's vectors stay, but a search of the new model does not mix them in.
      const found = await store.memory.vectorSearch(vec(0, 1), "m2", { projectKey: PROJECT, limit: 10 });
      expect(found.map((m) => m.item.id)).toEqual([a.id]);
    });
  });

  describe("experiences", () => {
    it("are inserted, read, listed by project (with the global ones), status and scope, updated, voted and retired", async () => {
      const own = experience({ updatedAt: T0 + 3 });
      const global = experience({
        projectKey: null,
        status: "active",
        scope: "domain:*.example.com",
        updatedAt: T0 + 2,
      });
      const foreign = experience({ projectKey: OTHER_PROJECT, status: "active", updatedAt: T0 + 1 });
      for (const e of [own, global, foreign]) await store.experiences.insert(e);

      expect(await store.experiences.get(own.id)).toEqual({ ...own, successRate: 0.5 });
      expect(await store.experiences.get(ulid())).toBeUndefined();
      const ids = async (filter: Parameters<Store["experiences"]["list"]>[0]) =>
        (await store.experiences.list(filter)).map((e) => e.id);
      expect(await ids({ projectKey: PROJECT })).toEqual([own.id, global.id]);
      expect(await ids({ projectKey: PROJECT, includeGlobal: false })).toEqual([own.id]);
      expect(await ids({ projectKey: null })).toEqual([global.id]);
      expect(await ids({ status: "active" })).toEqual([global.id, foreign.id]);
      expect(await ids({ status: ["candidate", "active"], projectKey: OTHER_PROJECT })).toEqual([
        global.id,
        foreign.id,
      ]);
      expect(await ids({ scope: "domain:*.example.com" })).toEqual([global.id]);
      expect(await ids({ limit: 1 })).toEqual([own.id]);
      expect(await ids(undefined)).toEqual([own.id, global.id, foreign.id]);

      await store.experiences.update(
        own.id,
        {
          status: "active",
          rule: "run the migrations first.",
          conditionFilter: { tools: ["execute_command"] },
        },
        T0 + 10,
      );
      await store.experiences.vote(own.id, 1, T0 + 11);
      const updated = await store.experiences.get(own.id);
      expect(updated).toMatchObject({
        status: "active",
        rule: "run the migrations first.",
        conditionFilter: { tools: ["execute_command"] },
        votes: 3,
        updatedAt: T0 + 11,
        condition: own.condition,
      });
      await store.experiences.retire(global.id, T0 + 12);
      expect((await store.experiences.get(global.id))?.status).toBe("retired");
      expect(await ids({ projectKey: PROJECT, status: "active" })).toEqual([own.id]);

      expect((await rejection(store.experiences.update(ulid(), { rule: "x." }))).code).toBe("not_found");
      expect((await rejection(store.experiences.vote(ulid(), 1))).code).toBe("not_found");
      expect((await rejection(store.experiences.insert(own))).code).toBe("store_conflict");
      expect(
        (await rejection(store.experiences.insert(experience({ status: "maybe" as "active" })))).code,
      ).toBe("internal_error");
    });

    it("a run's outcome counts for exactly the experiences shown in it, once, and rates them (s+1)/(s+f+2)", async () => {
      const [a, b, c] = [experience(), experience(), experience({ projectKey: null })];
      for (const e of [a!, b!, c!]) await store.experiences.insert(e);
      const [runA, runB, runC] = [ulid(), ulid(), ulid()];
      await store.experiences.recordUse(a!.id, runA, T0 + 1);
      await store.experiences.recordUse(a!.id, runA, T0 + 2);
      await store.experiences.recordUse(b!.id, runA, T0 + 1);
      await store.experiences.recordUse(c!.id, runB, T0 + 1);

      expect(await store.experiences.recordOutcome(runA, "success")).toBe(2);
      expect(await store.experiences.recordOutcome(runA, "failure")).toBe(0);
      expect(await store.experiences.recordOutcome(runB, "failure")).toBe(1);
      expect(await store.experiences.recordOutcome(ulid(), "success")).toBe(0);
      await store.experiences.recordUse(a!.id, runC, T0 + 5);
      expect(await store.experiences.recordOutcome(runC, "failure")).toBe(1);

      const read = async (id: string) => (await store.experiences.get(id))!;
      expect(await read(a!.id)).toMatchObject({
        usageCount: 2,
        successCount: 1,
        failureCount: 1,
        lastUsedAt: T0 + 5,
      });
      expect((await read(a!.id)).successRate).toBe(0.5);
      expect(await read(b!.id)).toMatchObject({
        usageCount: 1,
        successCount: 1,
        failureCount: 0,
        successRate: 2 / 3,
      });
      expect(await read(c!.id)).toMatchObject({
        usageCount: 1,
        successCount: 0,
        failureCount: 1,
        successRate: 1 / 3,
      });
      expect(await store.experiences.usesIn(runA)).toEqual(
        [
          { experienceId: a!.id, shownAt: T0 + 1, outcome: "success", withheld: false },
          { experienceId: b!.id, shownAt: T0 + 1, outcome: "success", withheld: false },
        ].sort((x, y) => (x.experienceId < y.experienceId ? -1 : 1)),
      );
      expect((await rejection(store.experiences.recordUse(ulid(), runA))).code).toBe("not_found");
      expect([successRate(0, 0), successRate(3, 1), successRate(0, 4)]).toEqual([0.5, 4 / 6, 1 / 6]);
    });

    it("are found by the vector of their condition, in the project and globally, by status; a new condition drops its vector", async () => {
      const own = experience({ status: "active" });
      const global = experience({ projectKey: null, status: "active" });
      const foreign = experience({ projectKey: OTHER_PROJECT, status: "active" });
      const retired = experience({ status: "retired" });
      const all = [own, global, foreign, retired];
      for (const e of all) await store.experiences.insert(e);
      const vectors = [vec(1, 0, 0), vec(0.8, 0.6, 0), vec(1, 0, 0), vec(0.6, 0.8, 0)];
      await store.memory.putEmbeddings(
        all.map((e, i) => ({
          ownerKind: "experience" as const,
          ownerId: e.id,
          projectKey: e.projectKey,
          model: MODEL,
          vector: vectors[i]!,
          createdAt: T0,
        })),
      );
      const search = async (status?: ("active" | "retired")[]) =>
        (
          await store.experiences.vectorSearch(vec(1, 0, 0), MODEL, {
            projectKey: PROJECT,
            limit: 10,
            ...(status ? { status } : {}),
          })
        ).map((m) => m.experience.id);
      expect(await search()).toEqual([own.id, global.id, retired.id]);
      expect(await search(["active"])).toEqual([own.id, global.id]);
      const [best] = await store.experiences.vectorSearch(vec(1, 0, 0), MODEL, {
        projectKey: PROJECT,
        limit: 1,
      });
      expect(best?.score).toBeCloseTo(1, 5);
      expect(best?.experience.successRate).toBe(0.5);

      const batch: WriteOp[] = [
        { op: "updateExperience", id: own.id, patch: { condition: "when the cache is cold" }, at: T0 + 1 },
      ];
      await store.apply(batch);
      await store.experiences.update(global.id, { condition: "when the CDN purges" });
      expect(await search(["active"])).toEqual([]);
      expect(
        (await store.memory.missingEmbeddings(MODEL, { ownerKind: "experience", limit: 10 }))
          .map((o) => o.ownerId)
          .sort(),
      ).toEqual([own.id, global.id].sort());
    });

    it("are found by ranked text over condition, rule and keys: stemmed, without stop words, Chinese in words", async () => {
      const busy = experience({
        status: "active",
        condition: "several processes write to the SQLite database at once",
        rule: "set PRAGMA busy_timeout before writing, and retry on SQLITE_BUSY.",
        keys: ["database is locked", "SQLITE_BUSY", "数据库被锁", "并发写入"],
      });
      const lineEndings = experience({
        status: "active",
        condition: "a diff shows every line changed after a checkout on Windows",
        rule: "add a .gitattributes with text=auto so git normalises line endings.",
        keys: ["CRLF", "line endings", "换行符"],
      });
      const candidate = experience({
        condition: "the tests need a database",
        rule: "start PostgreSQL first.",
        keys: ["ECONNREFUSED 5432"],
      });
      const foreign = experience({
        projectKey: OTHER_PROJECT,
        status: "active",
        keys: ["database is locked"],
      });
      for (const e of [busy, lineEndings, candidate, foreign]) await store.experiences.insert(e);
      const search = async (query: string, status?: "active") =>
        store.experiences.search(query, { projectKey: PROJECT, limit: 5, ...(status ? { status } : {}) });

      // Worded unlike the rule, sharing a key's words in other forms: found, fully.
      const [locked, ...rest] = await search(
        "Why does my script keep failing with 'database locked' errors?",
      );
      expect(locked?.experience.id).toBe(busy.id);
      expect(locked?.score).toBe(1);
      expect(locked?.rank).toBeGreaterThan(0);
      // The others share one word ("database"): less than a match (retrieval's threshold is 0.75).
      expect(rest.every((m) => m.score < 0.75)).toBe(true);
      expect(locked?.experience.keys).toEqual(busy.keys);
      // One identifier is enough; the project's own and global rules only; by status.
      expect((await search("sqlite_busy again")).map((m) => m.experience.id)).toEqual([busy.id]);
      expect(
        (await search("ECONNREFUSED 5432 when the tests start", "active")).map((m) => m.experience.id),
      ).toEqual([]);
      expect((await search("ECONNREFUSED 5432 when the tests start"))[0]?.experience.id).toBe(candidate.id);
      // Chinese, cut into words: 数据库 and 锁 are words of the task and of a key.
      expect((await search("为什么并发写入的时候数据库会被锁住？"))[0]).toMatchObject({
        experience: { id: busy.id },
        score: 1,
      });
      expect((await search("换行符全变了"))[0]?.experience.id).toBe(lineEndings.id);
      // Stop words alone match nothing: "the", "of" and "with" are in every rule.
      expect(await search("the of with to and")).toEqual([]);
      expect((await search("Write a poem about the sea")).every((m) => m.score < 0.5)).toBe(true);

      // An edit of the keys is indexed again before the next search.
      await store.experiences.update(lineEndings.id, { keys: ["autocrlf"] });
      expect((await store.experiences.get(lineEndings.id))?.keys).toEqual(["autocrlf"]);
      expect((await search("换行符全变了")).map((m) => m.experience.id)).not.toContain(lineEndings.id);
      expect((await search("core.autocrlf is set"))[0]?.experience.id).toBe(lineEndings.id);
      expect(await store.experiences.reindex()).toBe(0);
    });

    it("are cut again by the current rules when a database from before them opens", async () => {
      const auth = experience({
        status: "active",
        condition: "API calls are rejected as unauthorized after a token refresh",
        rule: "send the new access token in the Authorization header.",
        keys: ["401 Unauthorized", "Authorization header", "正则表达式卡死"],
      });
      await store.experiences.insert(auth);
      // As an older reson cut them: Porter's stems ("authorization" became "author"), Chinese whole.
      await target.sql("UPDATE experiences SET terms = ? WHERE id = ?", [
        "api call reject unauthor token refresh send new access author header 401 正则表达式卡死",
        auth.id,
      ]);
      const found = async (query: string) =>
        (await store.experiences.search(query, { projectKey: PROJECT, limit: 5 })).map(
          (m) => m.experience.id,
        );
      expect(await found("list the books sorted by author")).toEqual([auth.id]);
      await store.close();
      await target.rewindSchema(8);
      store = await target.open(options);
      expect(await found("list the books sorted by author")).toEqual([]);
      expect(await found("the Authorization header is missing")).toEqual([auth.id]);
      expect(await found("正则卡死了")).toEqual([auth.id]);
      expect(await store.experiences.reindex()).toBe(0);
    });

    it("score a match the same in a project of 3 rules and of 300", async () => {
      const target = experience({
        status: "active",
        condition: "the build fails with a webpack out-of-memory error",
        rule: "raise NODE_OPTIONS=--max-old-space-size=4096 for the build.",
        keys: ["heap out of memory", "webpack"],
      });
      await store.experiences.insert(target);
      const query = "webpack build runs out of heap memory";
      const [few] = await store.experiences.search(query, { projectKey: PROJECT, limit: 1 });
      const others = Array.from({ length: 300 }, (_, i) =>
        experience({
          status: "active",
          condition: `module ${i} of the memory service is built`,
          rule: `run make build-${i} with webpack caching off.`,
          keys: [`build-${i}`],
        }),
      );
      await store.apply(others.map((e) => ({ op: "insertExperience" as const, experience: e })));
      const many = await store.experiences.search(query, { projectKey: PROJECT, limit: 3 });
      expect(many[0]?.experience.id).toBe(target.id);
      expect(many[0]?.score).toBe(few?.score);
    });

    it("a run that matched a rule but was not shown it counts apart, as its holdout record", async () => {
      const rule = experience({ status: "active" });
      await store.experiences.insert(rule);
      const [shown, withheldRun, laterShown] = [ulid(), ulid(), ulid()];
      await store.apply([{ op: "recordExperienceUse", experienceId: rule.id, traceId: shown, at: T0 }]);
      await store.apply([
        { op: "recordExperienceUse", experienceId: rule.id, traceId: withheldRun, at: T0, withheld: true },
      ]);
      // Withheld first, then shown in the same run (the model looked it up): a use after all.
      await store.apply([
        { op: "recordExperienceUse", experienceId: rule.id, traceId: laterShown, at: T0, withheld: true },
        { op: "recordExperienceUse", experienceId: rule.id, traceId: laterShown, at: T0 + 1 },
      ]);
      expect((await store.experiences.usesIn(withheldRun))[0]).toMatchObject({ withheld: true });
      expect(await store.experiences.recordOutcome(shown, "success")).toBe(1);
      expect(await store.experiences.recordOutcome(withheldRun, "failure")).toBe(1);
      expect(await store.experiences.recordOutcome(laterShown, "failure")).toBe(1);
      expect(await store.experiences.get(rule.id)).toMatchObject({
        usageCount: 2,
        successCount: 1,
        failureCount: 1,
        holdoutSuccessCount: 0,
        holdoutFailureCount: 1,
      });
    });
  });
}
