// What the memory store needs from a backend beyond SQL both dialects accept: how text is
// indexed and queried (FTS5 trigrams on SQLite, a tsvector of words and CJK bigrams on
// PostgreSQL), how a JSON array parameter is read as a set, and the database's own vector
// search when it has one (sqlite-vec, pgvector). Everything else is written once.
import type { Row, SqlValue } from "./records.js";
import type { EmbeddingOwnerKind } from "./types.js";

/** How a query is answered: through the text index, and by substring for terms it cannot match. */
export interface TextQueryPlan {
  /** The index query (an FTS5 MATCH expression, or tsquery text); undefined when no term fits the index. */
  indexed: string | undefined;
  /** How many words or CJK runs of the query the index answers. */
  indexedUnits: number;
  /** Lowercased terms the index cannot match (too short), matched as substrings (the first 8). */
  substrings: string[];
}

export interface NativeVectors {
  readonly kind: "sqlite-vec" | "pgvector";
  /** Vectors of more dimensions than this are searched in process (pgvector's type holds 16,000). */
  readonly maxDims?: number;
  /**
   * A column the vector is also written to, beside its bytes (pgvector's `vector`); the value
   * is null for a vector of more than maxDims.
   */
  readonly column?: { name: string; placeholder: string; value(vector: Float32Array): SqlValue };
  /**
   * The nearest owners of one scope: a query returning owner_id and similarity (cosine),
   * best first, with its parameters.
   */
  nearest(
    ownerKind: EmbeddingOwnerKind,
    model: string,
    dims: number,
    vector: Float32Array,
    projectKey: string,
    limit: number,
  ): { sql: string; params: SqlValue[] };
  /**
   * Readies a (kind, model, dims) for search (pgvector: fills in vectors stored before the
   * server had it, builds the HNSW index). True once ready, so it is not asked again in this
   * process; false while another process is readying it (the search is exact meanwhile).
   */
  prepare?(
    query: (sql: string, params: SqlValue[]) => Promise<Row[]>,
    ownerKind: EmbeddingOwnerKind,
    model: string,
    dims: number,
  ): Promise<boolean>;
}

export interface MemoryDialect {
  /** The text index, for messages and benchmarks. */
  readonly textIndex: string;
  /** A table expression over a JSON array bound as one parameter, rows `t.value` (text). */
  readonly jsonValues: string;
  /** The case-insensitive LIKE operator. */
  readonly like: string;
  planText(query: string): TextQueryPlan;
  /**
   * The full-text leg: FROM clause (with the items as `m`), the match condition and the
   * relevance expression (≥ 0, higher is better). The query parameter comes before any other.
   */
  readonly textLeg: { from: string; match: string; relevance: string };
  /**
   * The experiences' ranked text index over their `terms`: FROM (experiences as `x`), match
   * and relevance as for textLeg, and the query expression of a set of terms (any of them).
   */
  readonly experienceText: {
    from: string;
    match: string;
    relevance: string;
    anyOf(terms: readonly string[]): string;
  };
  /** An extra column written with each item (PostgreSQL's tsv), or undefined. */
  readonly itemIndexColumn?: { name: string; placeholder: string; value(text: string): SqlValue };
  /** The database's own vectors, when it has them: written always, searched when `nativeSearch`. */
  readonly vectors?: NativeVectors;
  /** Search with `vectors`; false keeps searching in process (to compare, or when told not to use it). */
  readonly nativeSearch: boolean;
}
