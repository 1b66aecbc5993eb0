import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HYBRID_DEFAULTS, hybridRank, mmr, type RankItem } from "../../src/memory/index.js";

const NOW = Date.UTC(2026, 5, 1);
const DAY = 86_400_000;

function item(id: string, text: string, ageDays = 0): RankItem {
  return { id, text, createdAt: NOW - ageDays * DAY };
}

describe("hybridRank", () => {
  it("weighs vectors 0.7 and text 0.3, a side an item is missing from counting 0", () => {
    const both = item("both", "alpha");
    const vectorOnly = item("vector", "beta");
    const textOnly = item("text", "gamma");
    const hits = hybridRank(
      {
        text: [
          { item: both, score: 1 },
          { item: textOnly, score: 1 },
        ],
        vector: [
          { item: both, score: 0.5 },
          { item: vectorOnly, score: 0.9 },
        ],
      },
      { limit: 10, now: NOW, minScore: 0, mmrLambda: 1 },
    );
    expect(hits.map((h) => [h.item.id, Number(h.score.toFixed(4))])).toEqual([
      ["both", 0.65],
      ["vector", 0.63],
      ["text", 0.3],
    ]);
    expect(hits[0]).toMatchObject({ textScore: 1, vectorScore: 0.5 });
  });

  it("cuts below minScore (0.35 by default): a text-only hit needs vectors to agree once vectors are in play", () => {
    const hits = hybridRank(
      {
        text: [{ item: item("text", "gamma"), score: 1 }],
        vector: [{ item: item("v", "beta"), score: 0.9 }],
      },
      { limit: 10, now: NOW },
    );
    expect(HYBRID_DEFAULTS.minScore).toBe(0.35);
    expect(hits.map((h) => h.item.id)).toEqual(["v"]);
  });

  it("without vector candidates the text score stands alone", () => {
    const hits = hybridRank(
      { text: [{ item: item("a", "alpha"), score: 0.8 }], vector: [] },
      { limit: 5, now: NOW },
    );
    expect(hits).toEqual([{ item: item("a", "alpha"), score: 0.8, textScore: 0.8, vectorScore: 0 }]);
  });

  it("halves a score per half-life of age, except for evergreen items", () => {
    const old = item("old", "alpha", 30);
    const note = item("note", "beta", 60);
    const hits = hybridRank(
      {
        text: [
          { item: old, score: 1 },
          { item: note, score: 1 },
        ],
        vector: [],
      },
      { limit: 5, now: NOW, minScore: 0, isEvergreen: (i) => i.id === "note" },
    );
    expect(hits.map((h) => [h.item.id, Number(h.score.toFixed(6))])).toEqual([
      ["note", 1],
      ["old", 0.5],
    ]);
    const off = hybridRank(
      { text: [{ item: old, score: 1 }], vector: [] },
      { limit: 5, now: NOW, halfLifeDays: Infinity },
    );
    expect(off[0]?.score).toBe(1);
  });

  it("lets a different hit pass a near-duplicate of a better one (MMR), unless λ is 1", () => {
    const first = item("first", "deploy the api server to production");
    const duplicate = item("duplicate", "deploy the api server to production now");
    const different = item("different", "rotate the database credentials");
    const text = [
      { item: first, score: 1 },
      { item: duplicate, score: 0.95 },
      { item: different, score: 0.9 },
    ];
    expect(hybridRank({ text, vector: [] }, { limit: 2, now: NOW }).map((h) => h.item.id)).toEqual([
      "first",
      "different",
    ]);
    expect(
      hybridRank({ text, vector: [] }, { limit: 2, now: NOW, mmrLambda: 1 }).map((h) => h.item.id),
    ).toEqual(["first", "duplicate"]);
  });

  it("breaks ties by the newer item, then by id, and returns nothing for a limit of 0", () => {
    const a = item("a", "x", 0);
    const b = item("b", "y", 0);
    const older = { ...item("c", "z"), createdAt: NOW - 1 };
    const text = [older, b, a].map((i) => ({ item: i, score: 1 }));
    const ranked = hybridRank({ text, vector: [] }, { limit: 3, now: NOW, halfLifeDays: Infinity });
    expect(ranked.map((h) => h.item.id)).toEqual(["a", "b", "c"]);
    expect(hybridRank({ text, vector: [] }, { limit: 0, now: NOW })).toEqual([]);
  });

  it("returns at most limit distinct candidates, each at or above minScore, whatever the input", () => {
    const candidate = fc.record({
      id: fc.constantFrom("a", "b", "c", "d", "e", "f"),
      text: fc.constantFrom("deploy api", "数据库连接", "rotate keys", "部署", ""),
      age: fc.integer({ min: 0, max: 400 }),
      score: fc.double({ min: -2, max: 2, noNaN: true }),
    });
    fc.assert(
      fc.property(
        fc.array(candidate, { maxLength: 12 }),
        fc.array(candidate, { maxLength: 12 }),
        fc.integer({ min: 0, max: 8 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (text, vector, limit, minScore) => {
          const leg = (rows: typeof text) =>
            rows.map((r) => ({ item: item(r.id, r.text, r.age), score: r.score }));
          const hits = hybridRank({ text: leg(text), vector: leg(vector) }, { limit, now: NOW, minScore });
          const ids = hits.map((h) => h.item.id);
          expect(hits.length).toBeLessThanOrEqual(limit);
          expect(new Set(ids).size).toBe(ids.length);
          for (const hit of hits) {
            expect(hit.score).toBeGreaterThanOrEqual(minScore);
            expect(hit.score).toBeLessThanOrEqual(1);
          }
        },
      ),
    );
  });
});

describe("mmr", () => {
  it("with λ = 0.7 spreads over topics, O(limit × n) picks in order", () => {
    const hit = (id: string, text: string, score: number) => ({
      item: item(id, text),
      score,
      textScore: score,
      vectorScore: 0,
    });
    const picked = mmr(
      [
        hit("a1", "缓存 穿透 redis", 0.9),
        hit("a2", "缓存 穿透 redis 集群", 0.88),
        hit("b", "部署 成功", 0.7),
      ],
      2,
    );
    expect(picked.map((h) => h.item.id)).toEqual(["a1", "b"]);
  });
});
