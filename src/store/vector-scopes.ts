// Vector search without a vector extension: the vectors of a scope (owner kind, project,
// model, dims) are loaded once into an exact in-process index and kept current. Every write
// of a scope's vectors, by any process, bumps the scope's generation in embedding_scopes; an
// index is used while the generation it was loaded at still holds, this process's own writes
// are applied to it as they commit, and anything else makes it load again (cheap: one
// ordered read). The indexes share a byte budget, least recently used first out; a scope too
// large for the budget is scanned page by page instead of kept.

import { bytesToVector } from "../core/vector-bytes.js";
import { MemoryIndex, type VectorHit } from "./memory-index.js";
import type { Row, SqlValue } from "./records.js";
import type { EmbeddingOwnerKind, WriteOp } from "./types.js";

/** Bytes of vectors kept in process across all scopes (256 MiB: 100k vectors of 640 dims). */
export const VECTOR_CACHE_BYTES = 256 * 1024 * 1024;
const PAGE_ROWS = 4096;

export interface VectorScope {
  ownerKind: EmbeddingOwnerKind;
  /** '' for global experiences. */
  projectKey: string;
  model: string;
  dims: number;
}

interface Loaded {
  scope: VectorScope;
  index: MemoryIndex;
  generation: number;
}

type Query = (sql: string, params: SqlValue[]) => Promise<Row[]>;

const GENERATION =
  "SELECT generation FROM embedding_scopes WHERE owner_kind = ? AND project_key = ? AND model = ?";
const COUNT = `SELECT count(*) AS n FROM embeddings
  WHERE owner_kind = ? AND project_key = ? AND model = ? AND dims = ?`;
const PAGE = `SELECT owner_id, vec FROM embeddings
  WHERE owner_kind = ? AND project_key = ? AND model = ? AND dims = ? AND owner_id > ?
  ORDER BY owner_id LIMIT ${PAGE_ROWS}`;

function keyOf(scope: VectorScope): string {
  return JSON.stringify([scope.ownerKind, scope.projectKey, scope.model, scope.dims]);
}

function sameGenerationScope(a: VectorScope, b: Omit<VectorScope, "dims">): boolean {
  return a.ownerKind === b.ownerKind && a.projectKey === b.projectKey && a.model === b.model;
}

/** Keeps the best `k` of two best-first lists. */
function mergeTop(a: VectorHit[], b: VectorHit[], k: number): VectorHit[] {
  return [...a, ...b].sort((x, y) => y.score - x.score).slice(0, k);
}

export class VectorScopes {
  readonly #query: Query;
  readonly #budgetBytes: number;
  /** Insertion order is recency of use: the first entry is the least recently used. */
  readonly #loaded = new Map<string, Loaded>();
  readonly #loading = new Map<string, { generation: number; done: Promise<Loaded | undefined> }>();

  constructor(query: Query, budgetBytes: number = VECTOR_CACHE_BYTES) {
    this.#query = query;
    this.#budgetBytes = budgetBytes;
  }

  /** The `k` nearest owners of a scope by cosine similarity, best first. */
  async nearest(scope: VectorScope, vector: Float32Array, k: number): Promise<VectorHit[]> {
    const generation = await this.#generation(scope);
    const key = keyOf(scope);
    let loaded = this.#loaded.get(key);
    if (!loaded || loaded.generation !== generation) {
      // A load already under way serves only if it started at this generation or later.
      let pending = this.#loading.get(key);
      if (!pending || pending.generation < generation) {
        const done = this.#load(scope, generation).finally(() => {
          if (this.#loading.get(key) === pending) this.#loading.delete(key);
        });
        pending = { generation, done };
        this.#loading.set(key, pending);
      }
      loaded = await pending.done;
      if (!loaded) return this.#scan(scope, vector, k);
    }
    // Most recently used goes last.
    this.#loaded.delete(key);
    this.#loaded.set(key, loaded);
    return loaded.index.search(vector, k);
  }

  /** Applies this process's committed writes to the loaded indexes (see the file comment). */
  afterWrite(ops: readonly WriteOp[]): void {
    if (this.#loaded.size === 0) return;
    for (const op of ops) {
      if (op.op !== "putEmbedding") continue;
      const { ownerKind, ownerId, projectKey, model, vector } = op.embedding;
      const scope = { ownerKind, projectKey: projectKey ?? "", model };
      for (const loaded of this.#loaded.values()) {
        if (!sameGenerationScope(loaded.scope, scope)) continue;
        loaded.generation += 1;
        if (loaded.scope.dims === vector.length) loaded.index.add(ownerId, vector);
        else loaded.index.remove(ownerId);
      }
    }
    this.#fitBudget();
  }

  /** Forgets the loaded indexes of a kind of owner (after deletes, which may touch any scope). */
  drop(ownerKind: EmbeddingOwnerKind): void {
    for (const [key, loaded] of this.#loaded)
      if (loaded.scope.ownerKind === ownerKind) this.#loaded.delete(key);
  }

  async #generation(scope: VectorScope): Promise<number> {
    const rows = await this.#query(GENERATION, [scope.ownerKind, scope.projectKey, scope.model]);
    return Number(rows[0]?.generation ?? 0);
  }

  #params(scope: VectorScope): SqlValue[] {
    return [scope.ownerKind, scope.projectKey, scope.model, scope.dims];
  }

  /** Loads a scope at `generation` (read before its rows); undefined when it exceeds the budget. */
  async #load(scope: VectorScope, generation: number): Promise<Loaded | undefined> {
    const count = Number((await this.#query(COUNT, this.#params(scope)))[0]?.n ?? 0);
    if (count * scope.dims * 4 > this.#budgetBytes) return undefined;
    const index = new MemoryIndex({ dims: scope.dims, initialCapacity: count });
    await this.#pages(scope, (rows) => {
      for (const row of rows) index.add(String(row.owner_id), bytesToVector(row.vec as Uint8Array));
    });
    const loaded = { scope, index, generation };
    this.#loaded.set(keyOf(scope), loaded);
    this.#fitBudget();
    return loaded;
  }

  /** Exact search page by page, keeping nothing: for a scope larger than the budget. */
  async #scan(scope: VectorScope, vector: Float32Array, k: number): Promise<VectorHit[]> {
    let best: VectorHit[] = [];
    await this.#pages(scope, (rows) => {
      const page = new MemoryIndex({ dims: scope.dims, initialCapacity: rows.length });
      for (const row of rows) page.add(String(row.owner_id), bytesToVector(row.vec as Uint8Array));
      best = mergeTop(best, page.search(vector, k), k);
    });
    return best;
  }

  async #pages(scope: VectorScope, each: (rows: Row[]) => void): Promise<void> {
    let after = "";
    // Bounded by the rows of the scope: every page moves `after` past the rows it read.
    for (;;) {
      const rows = await this.#query(PAGE, [...this.#params(scope), after]);
      each(rows);
      const last = rows.at(-1);
      if (rows.length < PAGE_ROWS || !last) return;
      after = String(last.owner_id);
    }
  }

  #fitBudget(): void {
    let total = 0;
    for (const loaded of this.#loaded.values()) total += loaded.index.bytes;
    for (const [key, loaded] of this.#loaded) {
      if (total <= this.#budgetBytes) return;
      this.#loaded.delete(key);
      total -= loaded.index.bytes;
    }
  }
}
