// Memory on PostgreSQL: a tsvector ('simple' configuration) of the item's words and the
// bigrams of its CJK runs, so Chinese is searchable whatever the database's locale, ILIKE for
// single CJK characters, and pgvector's HNSW index when the server has the extension (else
// the store searches vectors in process). The pgvector path is not exercised by the test
// suite unless the server offers the extension.
import { createHash } from "node:crypto";
import { bytesToVector } from "../../core/vector-bytes.js";
import type { MemoryDialect, NativeVectors, TextQueryPlan } from "../memory-dialect.js";
import type { Row, SqlValue } from "../records.js";
import { characterNgrams, charCount, querySegments, textTokens } from "../text-terms.js";

const MAX_TERMS = 64;
/** Tokens of an item put in its tsvector, at most (a tsvector is limited to 1 MB). */
const MAX_INDEXED_TOKENS = 50_000;
/** Rows converted per statement when an existing table gains the pgvector column. */
const BACKFILL_BATCH = 500;
/** pgvector's HNSW indexes `vector` of at most this many dimensions; larger ones are scanned exactly. */
const HNSW_MAX_DIMS = 2000;

/** What to_tsvector sees of a text: its tokens (CJK as bigrams) separated by spaces. */
export function indexedTokens(text: string): string {
  return textTokens(text).slice(0, MAX_INDEXED_TOKENS).join(" ");
}

/**
 * Words match as prefixes (deploy → deployment) once they have three characters, exactly
 * below that; CJK runs of two or more by their bigrams, OR-ed; a single CJK character by
 * substring. The tokens hold letters, marks and digits only, so they need no quoting beyond
 * the quotes.
 */
export function planPostgresText(query: string): TextQueryPlan {
  const terms = new Set<string>();
  const substrings = new Set<string>();
  let indexedUnits = 0;
  for (const segment of querySegments(query)) {
    const length = charCount(segment.text);
    if (segment.cjk && length === 1) {
      substrings.add(segment.text);
      continue;
    }
    const before = terms.size;
    const grams = segment.cjk ? characterNgrams(segment.text, 2) : [segment.text];
    for (const gram of grams) {
      const term = !segment.cjk && length >= 3 ? `'${gram}':*` : `'${gram}'`;
      if (terms.size < MAX_TERMS) terms.add(term);
    }
    if (terms.size > before) indexedUnits++;
  }
  return {
    indexed: terms.size === 0 ? undefined : [...terms].join(" | "),
    indexedUnits,
    substrings: [...substrings],
  };
}

function vectorLiteral(vector: Float32Array): string {
  return `[${Array.from(vector).join(",")}]`;
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function dimsOf(dims: number): number {
  if (!Number.isSafeInteger(dims) || dims < 1 || dims > 16_000) throw new RangeError(`bad dims ${dims}`);
  return dims;
}

/**
 * pgvector: vectors of every model share one column without a fixed size, so each (kind,
 * model, dims) gets a partial HNSW index over the column cast to its size, and queries name
 * the model as a literal so the planner can use that index.
 */
export const PGVECTOR: NativeVectors = {
  kind: "pgvector",
  column: { name: "embedding", placeholder: "CAST(? AS vector)", value: vectorLiteral },
  nearest: (ownerKind, model, dims, vector, projectKey, limit) => {
    const size = dimsOf(dims);
    const distance = `embedding::vector(${size}) <=> CAST(? AS vector(${size}))`;
    const literal = vectorLiteral(vector);
    return {
      sql: `SELECT owner_id, 1 - (${distance}) AS similarity FROM embeddings
        WHERE owner_kind = ${sqlString(ownerKind)} AND model = ${sqlString(model)} AND dims = ${size}
          AND project_key = ?
        ORDER BY ${distance} LIMIT ?`,
      params: [literal, projectKey, literal, limit],
    };
  },
  prepare: async (query, ownerKind, model, dims) => {
    const size = dimsOf(dims);
    // Vectors stored before the server had pgvector have only their bytes: fill the column in.
    for (;;) {
      const rows: Row[] = await query(
        `SELECT owner_id, vec FROM embeddings
         WHERE owner_kind = ? AND model = ? AND dims = ? AND embedding IS NULL LIMIT ${BACKFILL_BATCH}`,
        [ownerKind, model, size],
      );
      for (const row of rows) {
        const params: SqlValue[] = [
          vectorLiteral(bytesToVector(row.vec as Buffer)),
          ownerKind,
          String(row.owner_id),
          model,
        ];
        await query(
          "UPDATE embeddings SET embedding = CAST(? AS vector) WHERE owner_kind = ? AND owner_id = ? AND model = ?",
          params,
        );
      }
      if (rows.length < BACKFILL_BATCH) break;
    }
    if (size > HNSW_MAX_DIMS) return;
    const name = `embeddings_hnsw_${createHash("sha256").update(`${ownerKind}\n${model}\n${size}`).digest("hex").slice(0, 16)}`;
    await query(
      `CREATE INDEX IF NOT EXISTS ${name} ON embeddings USING hnsw ((embedding::vector(${size})) vector_cosine_ops)
       WHERE owner_kind = ${sqlString(ownerKind)} AND model = ${sqlString(model)} AND dims = ${size}`,
      [],
    );
  },
};

export function postgresMemoryDialect(
  vectors: NativeVectors | undefined,
  nativeSearch: boolean,
): MemoryDialect {
  return {
    textIndex: "tsvector (words and CJK bigrams)",
    jsonValues: "jsonb_array_elements_text(CAST(? AS jsonb)) AS t(value)",
    like: "ILIKE",
    planText: planPostgresText,
    textLeg: {
      from: "memory_items m, to_tsquery('simple', ?) AS q",
      match: "m.tsv @@ q",
      // ts_rank, not ts_rank_cd: the same ordering by term frequency at less than half the cost
      // when a common word matches a fifth of the items.
      relevance: "ts_rank(m.tsv, q)",
    },
    itemIndexColumn: { name: "tsv", placeholder: "to_tsvector('simple', ?)", value: indexedTokens },
    ...(vectors ? { vectors } : {}),
    nativeSearch,
  };
}
