// pgvector on PostgreSQL: how vectors are written (pgvector's binary format, beside their
// bytes), searched (cosine distance `<=>` over a partial HNSW index per owner kind, model and
// dimensions) and readied (rows stored before the server had pgvector filled in, the index
// built once, CONCURRENTLY, by one process at a time), and the session settings a search
// needs for recall (ef_search, iterative scans for the project filter).
import { createHash } from "node:crypto";
import { ResonError } from "../../core/errors.js";
import { bytesToVector } from "../../core/vector-bytes.js";
import type { NativeVectors } from "../memory-dialect.js";
import type { Row, SqlValue } from "../records.js";
import type { EmbeddingOwnerKind } from "../types.js";

/**
 * HNSW build parameters: pgvector's defaults. With HNSW_EF_SEARCH they give recall@10 0.977 at
 * p95 9 ms on 100k 256-dimension vectors (bench/results/memory-search-pgvector-2026-12-02.md).
 * A million-vector project needs m 32, ef_construction 128, ef_search 200 for 0.98, at 2.9× the
 * build and 1.9× every insert: a database that needs it rebuilds the index under the same name.
 */
export const HNSW_M = 16;
export const HNSW_EF_CONSTRUCTION = 64;
/** Candidates kept per search (pgvector's default is 40); the server's or role's own setting wins. */
export const HNSW_EF_SEARCH = 100;
/** Dimensions HNSW indexes as `vector` (float32); up to HALFVEC_MAX_DIMS as `halfvec` (float16). */
const VECTOR_INDEX_MAX_DIMS = 2000;
const HALFVEC_INDEX_MAX_DIMS = 4000;
/** The `vector` type's limit: larger vectors are not written to the column and are searched in process. */
export const PGVECTOR_MAX_DIMS = 16_000;
/** Rows filled in per statement when vectors stored without pgvector get its column. */
const BACKFILL_BATCH = 500;
/** First key of the two-key advisory locks that serialise index builds ("reso"). */
const INDEX_LOCK_CLASS = 0x7265736f;

/**
 * Run on every new connection once the extension is there: loads it (so its settings are
 * defined), then sets ef_search and relaxed iterative scans unless the server, database, role
 * or connection string set them already (their source is then not 'default'). Iterative
 * scans keep a project's search from coming back short when the index's nearest candidates
 * belong to other projects.
 */
export const PGVECTOR_SESSION_SQL = `SELECT CAST('[0]' AS vector) IS NOT NULL;
SELECT set_config(name, '${HNSW_EF_SEARCH}', false) FROM pg_settings WHERE name = 'hnsw.ef_search' AND source = 'default';
SELECT set_config(name, 'relaxed_order', false) FROM pg_settings WHERE name = 'hnsw.iterative_scan' AND source = 'default'`;

/**
 * One connection held for a while: index builds need their own session (CONCURRENTLY, a
 * session lock). Its queries go to pg as they are, with $1-style parameters.
 */
export type Session = <T>(
  use: (query: (sql: string, params?: SqlValue[]) => Promise<Row[]>) => Promise<T>,
) => Promise<T>;

type Query = (sql: string, params: SqlValue[]) => Promise<Row[]>;

/** pgvector's binary input: dimensions and a reserved word (uint16 each), then float32s, all big-endian. */
export function vectorBinary(vector: Float32Array): Buffer {
  const bytes = Buffer.allocUnsafe(4 + vector.length * 4);
  bytes.writeUInt16BE(vector.length, 0);
  bytes.writeUInt16BE(0, 2);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatBE(vector[i] ?? 0, 4 + i * 4);
  return bytes;
}

function vectorText(vector: Float32Array): string {
  return `[${Array.from(vector).join(",")}]`;
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function dimsOf(dims: number): number {
  if (!Number.isSafeInteger(dims) || dims < 1 || dims > PGVECTOR_MAX_DIMS) {
    throw new ResonError("internal_error", `pgvector cannot search vectors of ${dims} dimensions.`);
  }
  return dims;
}

/** How one (kind, model, dims) is indexed and compared: the expression, and its HNSW operator class. */
interface Layout {
  /** The column as the index sees it, e.g. `(embedding::vector(256))`. */
  expression: string;
  /** The query vector (one parameter) in the same type. */
  query: string;
  /** undefined: too many dimensions for HNSW, searched exactly by pgvector. */
  opclass: string | undefined;
  predicate: string;
  name: string;
}

export function layoutOf(ownerKind: EmbeddingOwnerKind, model: string, dims: number): Layout {
  const size = dimsOf(dims);
  const half = size > VECTOR_INDEX_MAX_DIMS && size <= HALFVEC_INDEX_MAX_DIMS;
  const type = half ? `halfvec(${size})` : `vector(${size})`;
  const digest = createHash("sha256").update(`${ownerKind}\n${model}\n${size}`).digest("hex");
  return {
    expression: `(embedding::${type})`,
    query: half ? `CAST(CAST(? AS vector) AS ${type})` : `CAST(? AS ${type})`,
    opclass: size > HALFVEC_INDEX_MAX_DIMS ? undefined : half ? "halfvec_cosine_ops" : "vector_cosine_ops",
    // Literals, not parameters: the planner matches a partial index only on constants.
    predicate: `owner_kind = ${sqlString(ownerKind)} AND model = ${sqlString(model)} AND dims = ${size}`,
    name: `embeddings_hnsw_${digest.slice(0, 16)}`,
  };
}

type IndexState = "valid" | "invalid" | "missing";

const INDEX_STATE = `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  WHERE c.relname = $1 AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())`;

function indexState(rows: Row[]): IndexState {
  const row = rows[0];
  if (!row) return "missing";
  return row.valid === true ? "valid" : "invalid";
}

/** The index's name as a lock key: the second key of a two-key advisory lock. */
function lockKey(name: string): number {
  return createHash("sha256").update(name).digest().readInt32BE(0);
}

/**
 * Builds the layout's HNSW index unless it is there and valid. CONCURRENTLY, so writers go on
 * meanwhile; under a session advisory lock, so two processes never build it at once. An
 * invalid index (a build that was interrupted) is dropped and built again. False when another
 * process is building it (searches are exact until it is valid).
 */
async function ensureIndex(session: Session, layout: Layout, what: string): Promise<boolean> {
  if (!layout.opclass) return true;
  return session(async (query) => {
    const state = async () => indexState(await query(INDEX_STATE, [layout.name]));
    if ((await state()) === "valid") return true;
    const key = [INDEX_LOCK_CLASS, lockKey(layout.name)];
    const [lock] = await query("SELECT pg_try_advisory_lock($1, $2) AS locked", key);
    if (lock?.locked !== true) return false;
    try {
      const now = await state();
      if (now === "valid") return true;
      if (now === "invalid") await query(`DROP INDEX CONCURRENTLY IF EXISTS ${layout.name}`);
      // A build cut off by a statement timeout would leave an invalid index to build again at
      // every first search: this one runs to the end (minutes for a million vectors).
      await query("SET statement_timeout = 0");
      await query(
        `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${layout.name} ON embeddings
         USING hnsw (${layout.expression} ${layout.opclass})
         WITH (m = ${HNSW_M}, ef_construction = ${HNSW_EF_CONSTRUCTION}) WHERE ${layout.predicate}`,
      );
      await query("RESET statement_timeout");
      return true;
    } catch (error) {
      throw new ResonError(
        "store_unavailable",
        `Building the HNSW index of ${what} failed: ${error instanceof Error ? error.message : String(error)}`,
        {
          hint: `See the PostgreSQL server log for ${layout.name}; the next process to search these vectors tries again.`,
          cause: error,
        },
      );
    } finally {
      await query("SELECT pg_advisory_unlock($1, $2)", key);
    }
  });
}

/** Fills in the pgvector column of rows stored with their bytes only (before the server had pgvector). */
async function backfill(query: Query, ownerKind: EmbeddingOwnerKind, model: string, dims: number) {
  let after = "";
  for (;;) {
    const rows = await query(
      `SELECT owner_id, vec FROM embeddings
       WHERE embedding IS NULL AND owner_kind = ? AND model = ? AND dims = ? AND owner_id > ?
       ORDER BY owner_id LIMIT ${BACKFILL_BATCH}`,
      [ownerKind, model, dims, after],
    );
    const last = rows.at(-1);
    if (!last) return;
    const batch = rows.map((row) => ({
      id: String(row.owner_id),
      v: vectorText(bytesToVector(row.vec as Uint8Array)),
    }));
    await query(
      `UPDATE embeddings e SET embedding = CAST(x.v AS vector)
       FROM jsonb_to_recordset(CAST(? AS jsonb)) AS x(id text, v text)
       WHERE e.owner_kind = ? AND e.model = ? AND e.owner_id = x.id AND e.embedding IS NULL`,
      [JSON.stringify(batch), ownerKind, model],
    );
    if (rows.length < BACKFILL_BATCH) return;
    after = String(last.owner_id);
  }
}

/**
 * pgvector for the shared store: vectors of every model share one column of no fixed size;
 * each (kind, model, dims) gets its partial HNSW index over the column cast to its size, and a
 * query names the model as a literal so the planner uses that index. A small project's search
 * may instead read its rows by the scope index and sort them (exact), where that is cheaper.
 */
export function pgvector(session: Session): NativeVectors {
  return {
    kind: "pgvector",
    maxDims: PGVECTOR_MAX_DIMS,
    column: {
      name: "embedding",
      placeholder: "CAST(? AS vector)",
      value: (vector) => (vector.length > PGVECTOR_MAX_DIMS ? null : vectorBinary(vector)),
    },
    nearest: (ownerKind, model, dims, vector, projectKey, limit) => {
      const layout = layoutOf(ownerKind, model, dims);
      // Relaxed iterative scans may return neighbours slightly out of order: sorted again here.
      return {
        sql: `WITH nearest AS MATERIALIZED (
            SELECT owner_id, ${layout.expression} <=> ${layout.query} AS distance FROM embeddings
            WHERE ${layout.predicate} AND project_key = ?
            ORDER BY distance LIMIT ?)
          SELECT owner_id, 1 - distance AS similarity FROM nearest ORDER BY distance, owner_id`,
        params: [vectorBinary(vector), projectKey, limit],
      };
    },
    prepare: async (query, ownerKind, model, dims) => {
      await backfill(query, ownerKind, model, dimsOf(dims));
      return ensureIndex(session, layoutOf(ownerKind, model, dims), `${ownerKind} vectors of ${model}`);
    },
  };
}
