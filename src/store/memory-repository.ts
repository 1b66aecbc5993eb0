// Memory items over a Driver: full-text search through the backend's index with a substring
// leg for terms it cannot match, vector search through the database's extension or the
// in-process index, recent items, and forgetting that reaches every derivative (text index,
// vectors, cached embeddings, summaries made from the items) in one transaction.
import { ResonError } from "../core/errors.js";
import { ulid } from "../core/ids.js";
import { bytesToVector } from "../core/vector-bytes.js";
import type { Statement, TransactOptions } from "./driver.js";
import type { MemoryDialect } from "./memory-dialect.js";
import { MEMORY_KINDS } from "./memory-plan.js";
import { columnList, fromRow, MEMORY_ITEMS, type Row, type SqlValue, type Table } from "./records.js";
import type {
  EmbeddingOwner,
  EmbeddingOwnerKind,
  ForgetReport,
  IndexIdentity,
  MemoryItemRecord,
  MemoryKind,
  MemoryMatch,
  MemoryRepository,
  WriteOp,
} from "./types.js";
import type { VectorScopes } from "./vector-scopes.js";

/** What the repositories need of the store they belong to. */
export interface RepositoryContext {
  query(sql: string, params: SqlValue[]): Promise<Row[]>;
  /** A transaction whose failure is a ResonError naming `what`; the rows changed by each statement. */
  transact(what: string, statements: readonly Statement[], options?: TransactOptions): Promise<number[]>;
  apply(ops: readonly WriteOp[]): Promise<void>;
  dialect: MemoryDialect;
  /** Search vectors with the database's extension (else in process). */
  nativeVectors: boolean;
  vectors: VectorScopes;
}

/** Terms of a query matched by substring, at most (the text index answers the rest). */
const MAX_SUBSTRINGS = 8;

export interface ScoredId {
  id: string;
  score: number;
}

/** A table's columns prefixed with an alias (the text index has a `text` column too). */
export function aliasedColumns<R>(table: Table<R>, alias: string): string {
  return columnList(table)
    .split(", ")
    .map((column) => `${alias}.${column}`)
    .join(", ");
}

export function checkLimit(limit: unknown, what = "A search limit"): number {
  if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 0) {
    throw new ResonError("usage_error", `${what} must be a whole number ≥ 0, not ${String(limit)}.`);
  }
  return limit;
}

/** The query vector, or undefined for a zero vector (similar to nothing). */
export function checkVectorQuery(vector: unknown): Float32Array | undefined {
  if (!(vector instanceof Float32Array) || vector.length === 0) {
    throw new ResonError("usage_error", "A vector search needs a non-empty Float32Array.");
  }
  return vector.some((value) => value !== 0) ? vector : undefined;
}

/**
 * The nearest owners of a scope: through the database's extension when there is one, else
 * the in-process index. `prepared` remembers which (kind, model, dims) were readied.
 */
export async function nearestOwners(
  context: RepositoryContext,
  prepared: Set<string>,
  ownerKind: EmbeddingOwnerKind,
  projectKey: string,
  model: string,
  vector: Float32Array,
  k: number,
): Promise<ScoredId[]> {
  const dims = vector.length;
  const native = context.dialect.vectors;
  if (!context.nativeVectors || !native || dims > (native.maxDims ?? Number.POSITIVE_INFINITY)) {
    return context.vectors.nearest({ ownerKind, projectKey, model, dims }, vector, k);
  }
  const readied = JSON.stringify([ownerKind, model, dims]);
  if (native.prepare && !prepared.has(readied)) {
    if (await native.prepare((sql, params) => context.query(sql, params), ownerKind, model, dims)) {
      prepared.add(readied);
    }
  }
  const { sql, params } = native.nearest(ownerKind, model, dims, vector, projectKey, k);
  const rows = await context.query(sql, params);
  return rows.map((row) => ({ id: String(row.owner_id), score: Number(row.similarity) }));
}

/**
 * Nearest owners that pass a filter the vector search cannot see: asks for 4× the limit and
 * widens (×4 a round, at most 6 rounds) while filtered-out candidates leave it short.
 */
export async function nearestFiltered<T>(
  limit: number,
  filtered: boolean,
  nearest: (k: number) => Promise<ScoredId[]>,
  hydrate: (ids: string[]) => Promise<Map<string, T>>,
): Promise<{ record: T; score: number }[]> {
  if (limit === 0) return [];
  let k = filtered ? limit * 4 : limit;
  let out: { record: T; score: number }[] = [];
  for (let round = 0; round < 6; round++) {
    const hits = await nearest(k);
    const records = await hydrate(hits.map((h) => h.id));
    out = [];
    for (const hit of hits) {
      const record = records.get(hit.id);
      if (record !== undefined) out.push({ record, score: hit.score });
    }
    if (out.length >= limit || hits.length < k) break;
    k *= 4;
  }
  return out.slice(0, limit);
}

/** What an experience's vector is made of: condition, rule and retrieval keys, a line each. */
function experienceText(row: Row): string {
  const keys: unknown = typeof row.keys === "string" ? JSON.parse(row.keys) : row.keys;
  const list = Array.isArray(keys) ? keys.map(String) : [];
  return [String(row.text), String(row.rule), ...(list.length > 0 ? [list.join("; ")] : [])].join("\n");
}

function kindsJson(kinds: readonly MemoryKind[] | undefined): string | null {
  if (kinds === undefined) return null;
  for (const kind of kinds) {
    if (!MEMORY_KINDS.includes(kind)) {
      throw new ResonError("usage_error", `"${kind}" is not a memory kind (${MEMORY_KINDS.join(", ")}).`);
    }
  }
  return JSON.stringify(kinds);
}

interface ItemFilter {
  projectKey: string;
  sessionId?: string | undefined;
  kinds?: readonly MemoryKind[] | undefined;
  since?: number | undefined;
}

function filterParams(filter: ItemFilter): SqlValue[] {
  if (typeof filter.projectKey !== "string") {
    throw new ResonError("usage_error", "A memory search needs the project key of the items to search.");
  }
  const session = filter.sessionId ?? null;
  const kinds = kindsJson(filter.kinds);
  return [filter.projectKey, session, session, kinds, kinds, filter.since ?? Number.MIN_SAFE_INTEGER];
}

function isFiltered(filter: ItemFilter): boolean {
  return filter.sessionId !== undefined || filter.kinds !== undefined || filter.since !== undefined;
}

/** Combines relevance and substring hits into one 0..1 score per item, the best 1. */
function scoreText(
  indexed: Row[],
  bySubstring: Row[],
  indexedUnits: number,
  substrings: readonly string[],
): MemoryMatch[] {
  const relevance = new Map<string, number>();
  const items = new Map<string, MemoryItemRecord>();
  for (const row of indexed) {
    const item = fromRow(MEMORY_ITEMS, row);
    items.set(item.id, item);
    relevance.set(item.id, Math.max(0, Number(row.relevance)));
  }
  for (const row of bySubstring) {
    const item = fromRow(MEMORY_ITEMS, row);
    if (!items.has(item.id)) items.set(item.id, item);
  }
  let best = 0;
  for (const r of relevance.values()) best = Math.max(best, r);
  const units = indexedUnits + substrings.length;
  const matches: MemoryMatch[] = [];
  for (const item of items.values()) {
    const r = relevance.get(item.id);
    const indexedScore = r === undefined ? 0 : best > 0 ? r / best : 1;
    const lower = substrings.length > 0 ? item.text.toLowerCase() : "";
    const found = substrings.filter((term) => lower.includes(term)).length;
    const score = units === 0 ? 0 : (indexedUnits * indexedScore + found) / units;
    matches.push({ item, score });
  }
  const top = matches.reduce((max, m) => Math.max(max, m.score), 0);
  for (const match of matches) match.score = top > 0 ? match.score / top : 0;
  return matches.sort(
    (a, b) => b.score - a.score || b.item.createdAt - a.item.createdAt || (a.item.id < b.item.id ? 1 : -1),
  );
}

export function memoryRepository(context: RepositoryContext): MemoryRepository {
  const { dialect } = context;
  const columns = aliasedColumns(MEMORY_ITEMS, "m");
  const ids = `SELECT t.value FROM ${dialect.jsonValues}`;
  const filters = `m.project_key = ? AND (CAST(? AS TEXT) IS NULL OR m.session_id = ?)
    AND (CAST(? AS TEXT) IS NULL OR m.kind IN (${ids})) AND m.created_at >= ?`;
  const { from, match, relevance } = dialect.textLeg;
  const textLeg = `SELECT ${columns}, ${relevance} AS relevance FROM ${from} WHERE ${match} AND ${filters}
    ORDER BY relevance DESC, m.created_at DESC, m.id DESC LIMIT ?`;
  // The newest items holding any of the terms (unused slots are NULL, which matches nothing);
  // ordered by time so the recent-items index can stop early, ranked by scoreText after.
  const anyTerm = Array.from({ length: MAX_SUBSTRINGS }, () => `m.text ${dialect.like} ?`).join(" OR ");
  const substringLeg = `SELECT ${columns} FROM memory_items m WHERE ${filters} AND (${anyTerm})
    ORDER BY m.created_at DESC, m.id DESC LIMIT ?`;
  const hydrateSql = `SELECT ${columns} FROM memory_items m WHERE m.id IN (${ids}) AND ${filters}`;
  const recent = `SELECT ${columns} FROM memory_items m WHERE ${filters} ORDER BY m.created_at DESC, m.id DESC LIMIT ?`;
  const prepared = new Set<string>();

  const all = async (sql: string, params: SqlValue[]) =>
    (await context.query(sql, params)).map((row) => fromRow(MEMORY_ITEMS, row));

  /** Marks the doomed items (and, transitively, summaries made from them), then deletes it all. */
  const removeMarked = async (what: string, base: string, baseParams: SqlValue[]): Promise<ForgetReport> => {
    const mark = ulid();
    const marked = "SELECT id FROM memory_items WHERE forget_mark = ?";
    const statements: Statement[] = [
      {
        sql: `UPDATE memory_items SET forget_mark = ? WHERE id IN (
          WITH RECURSIVE doomed (id) AS (
            SELECT id FROM memory_items WHERE ${base}
            UNION SELECT l.derived_id FROM memory_links l JOIN doomed d ON l.source_id = d.id)
          SELECT id FROM doomed)`,
        params: [mark, ...baseParams],
      },
      {
        sql: `UPDATE embedding_scopes SET generation = generation + 1 WHERE (owner_kind, project_key, model) IN
          (SELECT owner_kind, project_key, model FROM embeddings WHERE owner_kind = 'memory' AND owner_id IN (${marked}))`,
        params: [mark],
      },
      {
        sql: "DELETE FROM embedding_cache WHERE hash IN (SELECT text_hash FROM memory_items WHERE forget_mark = ?)",
        params: [mark],
      },
      {
        sql: `DELETE FROM embeddings WHERE owner_kind = 'memory' AND owner_id IN (${marked})`,
        params: [mark],
      },
      {
        sql: `DELETE FROM memory_links WHERE derived_id IN (${marked}) OR source_id IN (${marked})`,
        params: [mark, mark],
      },
      { sql: "DELETE FROM memory_items WHERE forget_mark = ?", params: [mark] },
    ];
    try {
      const [, , cacheEntries = 0, embeddings = 0, , items = 0] = await context.transact(what, statements);
      return { items, embeddings, cacheEntries };
    } finally {
      context.vectors.drop("memory");
    }
  };

  const missing = async (
    ownerKind: EmbeddingOwnerKind,
    model: string,
    projectKey: string | null,
    limit: number,
  ): Promise<(EmbeddingOwner & { createdAt: number })[]> => {
    const table = ownerKind === "memory" ? "memory_items" : "experiences";
    // An experience is embedded as condition, rule and keys: a task may echo any of them.
    const text =
      ownerKind === "memory" ? "x.text, NULL AS rule, NULL AS keys" : "x.condition AS text, x.rule, x.keys";
    const active = ownerKind === "memory" ? "" : "AND x.status <> 'retired'";
    const rows = await context.query(
      `SELECT x.id, x.project_key, ${text}, x.created_at FROM ${table} x
       WHERE (CAST(? AS TEXT) IS NULL OR x.project_key = ?) ${active}
         AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.owner_kind = ? AND e.owner_id = x.id AND e.model = ?)
       ORDER BY x.created_at, x.id LIMIT ?`,
      [projectKey, projectKey, ownerKind, model, limit],
    );
    return rows.map((row) => ({
      ownerKind,
      ownerId: String(row.id),
      projectKey: row.project_key === null ? null : String(row.project_key),
      text: ownerKind === "memory" ? String(row.text) : experienceText(row),
      createdAt: Number(row.created_at),
    }));
  };

  return {
    get: async (id) => (await all(`SELECT ${columns} FROM memory_items m WHERE m.id = ?`, [id]))[0],

    appendItems: (items) => context.apply(items.map((item): WriteOp => ({ op: "appendMemory", item }))),

    search: async (query, options) => {
      const limit = checkLimit(options.limit);
      const params = filterParams(options);
      const plan = dialect.planText(query);
      const substrings = plan.substrings.slice(0, MAX_SUBSTRINGS);
      if (limit === 0 || (plan.indexed === undefined && substrings.length === 0)) return [];
      const patterns = Array.from({ length: MAX_SUBSTRINGS }, (_, i) =>
        substrings[i] === undefined ? null : `%${substrings[i]}%`,
      );
      const [indexed, bySubstring] = await Promise.all([
        plan.indexed === undefined ? [] : context.query(textLeg, [plan.indexed, ...params, limit]),
        substrings.length === 0 ? [] : context.query(substringLeg, [...params, ...patterns, limit]),
      ]);
      return scoreText(indexed, bySubstring, plan.indexedUnits, substrings).slice(0, limit);
    },

    vectorSearch: async (vector, model, options) => {
      const query = checkVectorQuery(vector);
      const limit = checkLimit(options.limit);
      const params = filterParams(options);
      if (!query) return [];
      const found = await nearestFiltered(
        limit,
        isFiltered(options),
        (k) => nearestOwners(context, prepared, "memory", options.projectKey, model, query, k),
        async (hits) => {
          if (hits.length === 0) return new Map();
          const items = await all(hydrateSql, [JSON.stringify(hits), ...params]);
          return new Map(items.map((item) => [item.id, item]));
        },
      );
      return found.map(({ record, score }) => ({ item: record, score }));
    },

    getRecent: async (options) => {
      const limit = checkLimit(options.limit, "A limit");
      return all(recent, [...filterParams(options), limit]);
    },

    evictBefore: async (cutoff, options = {}) => {
      if (!Number.isSafeInteger(cutoff)) {
        throw new ResonError(
          "usage_error",
          `evictBefore needs a cutoff in epoch milliseconds, not ${cutoff}.`,
        );
      }
      const project = options.projectKey ?? null;
      return removeMarked(
        "Evicting memory",
        "created_at < ? AND (CAST(? AS TEXT) IS NULL OR project_key = ?)",
        [cutoff, project, project],
      );
    },

    forget: async (forgotten) => {
      if (forgotten.length === 0) return { items: 0, embeddings: 0, cacheEntries: 0 };
      return removeMarked("Forgetting memory", `id IN (${ids})`, [JSON.stringify(forgotten)]);
    },

    indexIdentity: async (projectKey) => {
      const rows = await context.query(
        "SELECT model, dims FROM memory_index_meta WHERE scope_key = ? OR scope_key = '' ORDER BY scope_key DESC LIMIT 1",
        [projectKey ?? ""],
      );
      const row = rows[0];
      return row ? ({ model: String(row.model), dims: Number(row.dims) } satisfies IndexIdentity) : undefined;
    },

    setIndexIdentity: (identity, options = {}) =>
      context.apply([
        {
          op: "setIndexIdentity",
          projectKey: options.projectKey ?? null,
          identity,
          at: options.at ?? Date.now(),
        },
      ]),

    missingEmbeddings: async (model, options) => {
      const limit = checkLimit(options.limit, "A limit");
      const project = options.projectKey ?? null;
      const kinds: EmbeddingOwnerKind[] = options.ownerKind ? [options.ownerKind] : ["memory", "experience"];
      const found = (await Promise.all(kinds.map((kind) => missing(kind, model, project, limit)))).flat();
      return found
        .sort((a, b) => a.createdAt - b.createdAt || (a.ownerId < b.ownerId ? -1 : 1))
        .slice(0, limit)
        .map(({ createdAt: _, ...owner }) => owner);
    },

    putEmbeddings: (embeddings) =>
      context.apply(embeddings.map((embedding): WriteOp => ({ op: "putEmbedding", embedding }))),

    cachedEmbeddings: async (model, hashes) => {
      if (hashes.length === 0) return new Map();
      const rows = await context.query(
        `SELECT hash, vec FROM embedding_cache WHERE model = ? AND hash IN (${ids})`,
        [model, JSON.stringify(hashes)],
      );
      return new Map(rows.map((row) => [String(row.hash), bytesToVector(row.vec as Uint8Array)]));
    },

    cacheEmbeddings: (model, entries) => {
      const at = Date.now();
      return context.apply(
        entries.map((e): WriteOp => ({ op: "cacheEmbedding", model, hash: e.hash, vector: e.vector, at })),
      );
    },
  };
}
