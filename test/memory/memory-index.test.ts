import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ResonError } from "../../src/core/errors.js";
import { MemoryIndex } from "../../src/memory/index.js";

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! ** 2;
    nb += b[i]! ** 2;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

const v = (...values: number[]) => Float32Array.from(values);

describe("MemoryIndex", () => {
  it("finds the same top k as comparing every vector, best first", () => {
    const dims = 6;
    const vector = fc.array(fc.float({ min: -1, max: 1, noNaN: true, noDefaultInfinity: true }), {
      minLength: dims,
      maxLength: dims,
    });
    fc.assert(
      fc.property(
        fc.array(vector, { minLength: 1, maxLength: 60 }),
        vector,
        fc.integer({ min: 1, max: 10 }),
        (rows, q, k) => {
          const index = new MemoryIndex({ dims });
          for (const [i, row] of rows.entries()) index.add(`v${i}`, Float32Array.from(row));
          const query = Float32Array.from(q);
          const hits = index.search(query, k);
          if (cosine(query, query) === 0) return hits.length === 0;
          const exact = rows
            .map((row, i) => ({ id: `v${i}`, score: cosine(query, Float32Array.from(row)) }))
            .sort((a, b) => b.score - a.score);
          expect(hits).toHaveLength(Math.min(k, rows.length));
          hits.forEach((hit, i) => {
            expect(hit.score).toBeCloseTo(exact[i]!.score, 4);
            expect(hit.score).toBeCloseTo(
              cosine(query, Float32Array.from(rows[Number(hit.id.slice(1))]!)),
              4,
            );
          });
          return true;
        },
      ),
      { numRuns: 200 },
    );
  });

  it("replaces a vector added again under the same id, and removes one without disturbing the rest", () => {
    const index = new MemoryIndex({ dims: 2 });
    index.add("a", v(1, 0));
    index.add("b", v(0, 1));
    index.add("c", v(1, 1));
    index.add("a", v(0, 2));
    expect(index.size).toBe(3);
    expect(index.search(v(0, 1), 1)[0]).toEqual({ id: "a", score: expect.closeTo(1, 6) });
    expect(index.remove("a")).toBe(true);
    expect(index.remove("a")).toBe(false);
    expect(index.has("a")).toBe(false);
    expect(index.search(v(0, 1), 3).map((h) => h.id)).toEqual(["b", "c"]);
    expect(index.remove("c")).toBe(true);
    expect(index.search(v(1, 1), 3).map((h) => h.id)).toEqual(["b"]);
  });

  it("skips what the filter refuses, and answers nothing for a zero query or k of 0", () => {
    const index = new MemoryIndex({ dims: 2 });
    index.add("keep", v(0.5, 0.5));
    index.add("skip", v(1, 0));
    expect(index.search(v(1, 0), 5, (id) => id !== "skip").map((h) => h.id)).toEqual(["keep"]);
    expect(index.search(v(0, 0), 5)).toEqual([]);
    expect(index.search(v(1, 0), 0)).toEqual([]);
  });

  it("refuses vectors of other sizes and holds no more than maxVectors, growing as it fills", () => {
    const index = new MemoryIndex({ dims: 3, maxVectors: 2, initialCapacity: 1 });
    const before = index.bytes;
    index.add("a", v(1, 0, 0));
    index.add("b", v(0, 1, 0));
    expect(index.bytes).toBe(2 * 3 * 4);
    expect(index.bytes).toBeGreaterThan(before);
    for (const attempt of [
      () => index.add("c", v(0, 0, 1)),
      () => index.add("a", v(1, 0)),
      () => index.search(v(1), 1),
    ]) {
      expect(attempt).toThrow(ResonError);
    }
    expect(() => new MemoryIndex({ dims: 0 })).toThrow(ResonError);
  });
});
