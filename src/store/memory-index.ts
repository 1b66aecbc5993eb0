// An exact in-process vector index: unit vectors in one Float32Array, cosine similarity by a
// full scan, top-k by insertion into a short sorted list. It serves vector search where the
// database has no vector extension (PostgreSQL without pgvector, SQLite without sqlite-vec);
// memory is bounded by maxVectors, so a caller knows up front what it costs (dims × 4 bytes
// per vector).
import { ResonError } from "../core/errors.js";

export interface MemoryIndexOptions {
  dims: number;
  /** The most vectors it holds; add beyond it fails (default 1,000,000). */
  maxVectors?: number;
  /** Vectors to reserve room for up front (it grows by doubling beyond). */
  initialCapacity?: number;
}

export interface VectorHit {
  id: string;
  /** Cosine similarity, −1..1. */
  score: number;
}

const INITIAL_CAPACITY = 64;

export class MemoryIndex {
  readonly dims: number;
  readonly maxVectors: number;
  #ids: string[] = [];
  readonly #slots = new Map<string, number>();
  #vectors: Float32Array;

  constructor(options: MemoryIndexOptions) {
    if (!Number.isSafeInteger(options.dims) || options.dims < 1) {
      throw new ResonError("usage_error", `A vector index needs dims ≥ 1, not ${options.dims}.`);
    }
    this.dims = options.dims;
    this.maxVectors = options.maxVectors ?? 1_000_000;
    const capacity = Math.max(1, options.initialCapacity ?? INITIAL_CAPACITY);
    this.#vectors = new Float32Array(Math.min(capacity, this.maxVectors) * this.dims);
  }

  get size(): number {
    return this.#ids.length;
  }

  /** Bytes held by the vectors (the capacity reserved, not only the part in use). */
  get bytes(): number {
    return this.#vectors.byteLength;
  }

  has(id: string): boolean {
    return this.#slots.has(id);
  }

  /** Adds a vector, or replaces the one of the same id. Stored normalised. */
  add(id: string, vector: Float32Array): void {
    if (vector.length !== this.dims) {
      throw new ResonError(
        "usage_error",
        `A vector of ${vector.length} dimensions cannot join an index of ${this.dims}.`,
        { hint: "Vectors of one index come from one embedding model." },
      );
    }
    let slot = this.#slots.get(id);
    if (slot === undefined) {
      if (this.#ids.length >= this.maxVectors) {
        throw new ResonError("usage_error", `The vector index is full (${this.maxVectors} vectors).`);
      }
      slot = this.#ids.length;
      this.#grow(slot + 1);
      this.#ids.push(id);
      this.#slots.set(id, slot);
    }
    let norm = 0;
    for (let i = 0; i < vector.length; i++) norm += (vector[i] ?? 0) ** 2;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const offset = slot * this.dims;
    for (let i = 0; i < vector.length; i++) this.#vectors[offset + i] = (vector[i] ?? 0) * scale;
  }

  /** Removes a vector (the last one moves into its slot); false when the id is not there. */
  remove(id: string): boolean {
    const slot = this.#slots.get(id);
    if (slot === undefined) return false;
    const last = this.#ids.length - 1;
    const lastId = this.#ids[last];
    if (slot !== last && lastId !== undefined) {
      this.#vectors.copyWithin(slot * this.dims, last * this.dims, (last + 1) * this.dims);
      this.#ids[slot] = lastId;
      this.#slots.set(lastId, slot);
    }
    this.#ids.pop();
    this.#slots.delete(id);
    return true;
  }

  /**
   * The `k` most similar vectors, best first; `accept` skips ids (a filter the caller
   * checks). Exact: every vector is compared.
   */
  search(query: Float32Array, k: number, accept?: (id: string) => boolean): VectorHit[] {
    if (query.length !== this.dims) {
      throw new ResonError(
        "usage_error",
        `A query of ${query.length} dimensions cannot search an index of ${this.dims}.`,
      );
    }
    if (k <= 0 || this.#ids.length === 0) return [];
    let norm = 0;
    for (let i = 0; i < query.length; i++) norm += (query[i] ?? 0) ** 2;
    if (norm === 0) return [];
    const q = Float32Array.from(query, (v) => v / Math.sqrt(norm));
    const dims = this.dims;
    const vectors = this.#vectors;
    const count = this.#ids.length;
    const whole = dims - (dims % 4);
    // Ascending by score: topScores[0] is the worst kept, the one a better candidate replaces.
    const topScores: number[] = [];
    const topSlots: number[] = [];
    // Four independent sums: the hot loop of every search without an extension.
    for (let slot = 0, offset = 0; slot < count; slot++, offset += dims) {
      let d0 = 0;
      let d1 = 0;
      let d2 = 0;
      let d3 = 0;
      for (let i = 0; i < whole; i += 4) {
        d0 += (q[i] as number) * (vectors[offset + i] as number);
        d1 += (q[i + 1] as number) * (vectors[offset + i + 1] as number);
        d2 += (q[i + 2] as number) * (vectors[offset + i + 2] as number);
        d3 += (q[i + 3] as number) * (vectors[offset + i + 3] as number);
      }
      let dot = d0 + d1 + d2 + d3;
      for (let i = whole; i < dims; i++) dot += (q[i] as number) * (vectors[offset + i] as number);
      if (topScores.length === k && dot <= (topScores[0] as number)) continue;
      if (accept && !accept(this.#ids[slot] as string)) continue;
      let at = 0;
      while (at < topScores.length && (topScores[at] as number) < dot) at++;
      topScores.splice(at, 0, dot);
      topSlots.splice(at, 0, slot);
      if (topScores.length > k) {
        topScores.shift();
        topSlots.shift();
      }
    }
    const hits: VectorHit[] = [];
    for (let i = topScores.length - 1; i >= 0; i--) {
      hits.push({ id: this.#ids[topSlots[i] as number] as string, score: topScores[i] as number });
    }
    return hits;
  }

  #grow(needed: number): void {
    const capacity = this.#vectors.length / this.dims;
    if (needed <= capacity) return;
    const next = Math.min(this.maxVectors, Math.max(needed, capacity * 2));
    const grown = new Float32Array(next * this.dims);
    grown.set(this.#vectors);
    this.#vectors = grown;
  }
}
