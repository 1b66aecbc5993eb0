// searchMemory over a real SQLite store: full text alone without an embedder, hybrid with one.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ResonError } from "../../src/core/errors.js";
import { searchMemory } from "../../src/memory/index.js";
import { type MemoryItemRecord, openStore, type Store, textTokens } from "../../src/store/index.js";
import { memoryItem, PROJECT } from "../store/fixtures.js";

const NOW = Date.UTC(2026, 5, 1);
const DIMS = 32;

/** A deterministic embedder: terms hashed into DIMS signed buckets, so shared terms mean similar vectors. */
async function embed(text: string): Promise<Float32Array> {
  const vector = new Float32Array(DIMS);
  for (const term of textTokens(text)) {
    let h = 2166136261;
    for (const ch of term) h = Math.imul(h ^ (ch.codePointAt(0) ?? 0), 16777619);
    vector[(h >>> 0) % DIMS]! += h & 1 ? 1 : -1;
  }
  return vector;
}

function item(text: string, overrides: Partial<MemoryItemRecord> = {}): MemoryItemRecord {
  return memoryItem({ projectKey: PROJECT, text, createdAt: NOW, ...overrides });
}

let home: string;
let store: Store;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "reson-memory-"));
  store = await openStore({ home });
});
afterEach(async () => {
  await store.close();
  await rm(home, { recursive: true, force: true });
});

describe("searchMemory", () => {
  it("without an embedder searches the full text alone and ranks it", async () => {
    const deploy = item("deploy the api to production with the blue-green script");
    const other = item("部署脚本在生产环境执行成功");
    await store.memory.appendItems([deploy, other, item("unrelated note about lunch")]);
    const result = await searchMemory({ store, query: "deploy production", projectKey: PROJECT, now: NOW });
    expect(result.mode).toBe("text");
    expect(result.hits.map((h) => h.item.id)).toEqual([deploy.id]);
    expect(result.hits[0]).toMatchObject({ score: 1, textScore: 1, vectorScore: 0 });
    const chinese = await searchMemory({ store, query: "部署", projectKey: PROJECT, now: NOW });
    expect(chinese.hits.map((h) => h.item.id)).toEqual([other.id]);
  });

  it("with an embedder but no index identity stays full-text and says why", async () => {
    await store.memory.appendItems([item("rotate the keys")]);
    const result = await searchMemory({ store, query: "rotate keys", projectKey: PROJECT, embed, now: NOW });
    expect(result.mode).toBe("text");
    expect(result.note).toMatch(/index identity/);
    expect(result.hits).toHaveLength(1);
  });

  it("with an embedder and vectors, finds what only the vectors match and ranks what both match first", async () => {
    const both = item("database outage during the nightly deploy");
    const vectorOnly = item("PG went down at 3am");
    const textOnly = item("outage of the coffee machine");
    await store.memory.appendItems([both, vectorOnly, textOnly]);
    await store.memory.setIndexIdentity({ model: "hash-32", dims: DIMS });
    const vectors = [
      await embed(both.text),
      await embed("database outage"),
      await embed("kitchen appliances"),
    ];
    await store.memory.putEmbeddings(
      [both, vectorOnly, textOnly].map((it, i) => ({
        ownerKind: "memory" as const,
        ownerId: it.id,
        projectKey: PROJECT,
        model: "hash-32",
        vector: vectors[i]!,
        createdAt: NOW,
      })),
    );
    const result = await searchMemory({
      store,
      query: "database outage",
      projectKey: PROJECT,
      embed,
      now: NOW,
    });
    expect(result.mode).toBe("hybrid");
    const ids = result.hits.map((h) => h.item.id);
    expect(ids).toContain(vectorOnly.id);
    expect(ids).toContain(both.id);
    expect(result.hits.find((h) => h.item.id === both.id)?.textScore).toBeGreaterThan(0);
    expect(result.hits.find((h) => h.item.id === vectorOnly.id)).toMatchObject({ textScore: 0 });
    expect(result.hits.every((h) => h.score >= 0.35)).toBe(true);
  });

  it("prefers the newer of two equal matches, notes excepted, by the half-life", async () => {
    const old = item("cache warmup steps", { createdAt: NOW - 60 * 86_400_000 });
    const fresh = item("cache warmup steps", { createdAt: NOW - 86_400_000 });
    const note = item("cache warmup steps", { kind: "note", createdAt: NOW - 90 * 86_400_000 });
    await store.memory.appendItems([old, fresh, note]);
    const result = await searchMemory({
      store,
      query: "cache warmup",
      projectKey: PROJECT,
      now: NOW,
      minScore: 0,
      mmrLambda: 1,
    });
    expect(result.hits.map((h) => h.item.id)).toEqual([note.id, fresh.id, old.id]);
    expect(result.hits[2]?.score).toBeCloseTo(0.25, 5);
  });

  it("refuses an embedder of the wrong size, and stops when aborted", async () => {
    await store.memory.setIndexIdentity({ model: "hash-32", dims: 8 });
    const error = await searchMemory({ store, query: "x", projectKey: PROJECT, embed, now: NOW }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(ResonError);
    expect(error.code).toBe("usage_error");
    const controller = new AbortController();
    controller.abort();
    await expect(
      searchMemory({ store, query: "x", projectKey: PROJECT, signal: controller.signal }),
    ).rejects.toThrow();
  });
});
