// The shared store on PostgreSQL: a pool of connections, each batch in BEGIN … COMMIT on one
// client, named prepared statements, migrations under an advisory lock, pgvector when the
// server has it.
import { createRequire } from "node:module";
import type pg from "pg";
import { ResonError } from "../../core/errors.js";
import {
  type Driver,
  type FailureReason,
  type Statement,
  StatementFailed,
  type TransactOptions,
  type TxQuery,
} from "../driver.js";
import type { MemoryDialect } from "../memory-dialect.js";
import { assertKnownVersion, pendingMigrations } from "../migration.js";
import type { Row, SqlValue } from "../records.js";
import { SqlStore, type SqlStoreOptions } from "../sql-store.js";
import type { CloseOptions, Store, StoreFeatures } from "../types.js";
import { type DatabaseUrl, parseDatabaseUrl } from "./database-url.js";
import { LIVE_TEXT_CHANNEL, NOTICE_CHANNEL, PostgresNotices } from "./listener.js";
import { postgresMemoryDialect } from "./memory-dialect.js";
import { POSTGRES_MIGRATIONS, POSTGRES_TABLES } from "./migrations.js";
import { PGVECTOR_SESSION_SQL, pgvector } from "./pgvector.js";

/**
 * How long a transaction may sit idle before the server ends it (see the pool below): the
 * lease TTL of the process, so a frozen holder's locks go about when its lease does, within
 * a floor (a busy process may pause between the statements of one transaction) and a ceiling.
 */
const MIN_IDLE_IN_TRANSACTION_MS = 1_000;
const MAX_IDLE_IN_TRANSACTION_MS = 10_000;

function idleInTransactionTimeoutMs(leaseTtlMs: number | undefined): number {
  if (leaseTtlMs === undefined) return MAX_IDLE_IN_TRANSACTION_MS;
  return Math.min(MAX_IDLE_IN_TRANSACTION_MS, Math.max(MIN_IDLE_IN_TRANSACTION_MS, Math.round(leaseTtlMs)));
}

const OID_INT8 = 20;
const OID_JSON = 114;
const OID_JSONB = 3802;
/** Key of the advisory lock that serialises migrations ("reson" in ASCII). */
const MIGRATION_LOCK = "491328728942";
/** A batch that lost a serialization race or a deadlock is retried this often in all. */
const MAX_ATTEMPTS = 3;

function errorCode(error: unknown): string {
  return error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : "";
}

function reasonOf(error: unknown): FailureReason {
  const code = errorCode(error);
  if (code === "23505") return "duplicate";
  if (code === "23503") return "missing_reference";
  return "other";
}

/** serialization_failure, deadlock_detected: the server rolled the transaction back whole. */
function isRetryable(error: unknown): boolean {
  const code = errorCode(error instanceof StatementFailed ? error.cause : error);
  return code === "40001" || code === "40P01";
}

function hintFor(code: string): string {
  if (code === "28P01" || code === "28000") return "Check the user and password in RESON_DATABASE_URL.";
  if (code === "3D000") return "Create the database first (createdb), or fix its name in RESON_DATABASE_URL.";
  if (code === "42501") return "The role needs the right to create tables in its schema for the first open.";
  return "Check that PostgreSQL is running and that RESON_DATABASE_URL points at it.";
}

function unavailable(url: DatabaseUrl, error: unknown): ResonError {
  if (error instanceof ResonError) return error;
  const message = url.scrub(error instanceof Error ? error.message : String(error));
  const code = errorCode(error);
  return new ResonError("store_unavailable", `PostgreSQL at ${url.shown} cannot be used: ${message}`, {
    hint: hintFor(code),
    details: code ? { code } : undefined,
  });
}

/** Rolls back; a client that cannot even do that is broken and must not go back to the pool. */
async function rollback(client: pg.PoolClient): Promise<Error | undefined> {
  try {
    await client.query("ROLLBACK");
    return undefined;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

class PostgresDriver implements Driver {
  readonly kind = "postgres";
  readonly location: string;
  readonly features: StoreFeatures;
  readonly memory: MemoryDialect;
  readonly #pool: pg.Pool;
  readonly #url: DatabaseUrl;
  readonly #named = new Map<string, { name: string; text: string }>();
  readonly notices: PostgresNotices;
  readonly liveText: PostgresNotices;

  constructor(
    pool: pg.Pool,
    url: DatabaseUrl,
    vector: boolean,
    nativeSearch: boolean,
    listener: () => pg.Client,
  ) {
    this.#pool = pool;
    this.notices = new PostgresNotices(listener, NOTICE_CHANNEL);
    this.liveText = new PostgresNotices(listener, LIVE_TEXT_CHANNEL);
    this.#url = url;
    this.location = url.shown;
    const native = vector && nativeSearch;
    this.features = { vector, vectorSearch: native ? "pgvector-hnsw" : "in-process" };
    this.memory = postgresMemoryDialect(vector ? pgvector((use) => this.#session(use)) : undefined, native);
  }

  /** One client for a while, its queries sent as they are ($1 parameters, no named statements). */
  async #session<T>(use: (query: (sql: string, params?: SqlValue[]) => Promise<Row[]>) => Promise<T>) {
    const client = await this.#connect();
    let broken: Error | undefined;
    try {
      return await use(async (sql, params = []) => (await client.query<Row>(sql, params)).rows);
    } catch (error) {
      // A session that failed half way may still hold a lock: it does not go back to the pool.
      broken = error instanceof Error ? error : new Error(String(error));
      throw unavailable(this.#url, error);
    } finally {
      client.release(broken);
    }
  }

  /** A client from the pool; a server out of reach is store_unavailable. */
  async #connect(): Promise<pg.PoolClient> {
    try {
      return await this.#pool.connect();
    } catch (error) {
      throw unavailable(this.#url, error);
    }
  }

  /** A named statement, so each connection parses and plans it once. */
  #prepared(sql: string, values: SqlValue[]): pg.QueryConfig<SqlValue[]> {
    let named = this.#named.get(sql);
    if (!named) {
      let n = 0;
      named = { name: `reson_${this.#named.size + 1}`, text: sql.replace(/\?/g, () => `$${++n}`) };
      this.#named.set(sql, named);
    }
    return { ...named, values };
  }

  async query(sql: string, params: SqlValue[]): Promise<Row[]> {
    try {
      return (await this.#pool.query<Row>(this.#prepared(sql, params))).rows;
    } catch (error) {
      throw unavailable(this.#url, error);
    }
  }

  async transact(statements: readonly Statement[], options: TransactOptions = {}): Promise<number[]> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.#connect();
      let broken: Error | undefined;
      try {
        await client.query(options.consistent ? "BEGIN ISOLATION LEVEL REPEATABLE READ" : "BEGIN");
        const changes: number[] = [];
        for (const [index, statement] of statements.entries()) {
          let count: number;
          try {
            count = (await client.query(this.#prepared(statement.sql, statement.params))).rowCount ?? 0;
          } catch (error) {
            throw new StatementFailed(index, reasonOf(error), error);
          }
          if (statement.mustChangeOne && count !== 1) {
            throw new StatementFailed(index, "missing_row", new Error(`${count} rows changed`));
          }
          changes.push(count);
        }
        await client.query("COMMIT");
        return changes;
      } catch (error) {
        broken = await rollback(client);
        if (isRetryable(error) && attempt < MAX_ATTEMPTS) continue;
        if (error instanceof StatementFailed) throw error;
        throw unavailable(this.#url, error);
      } finally {
        client.release(broken);
      }
    }
  }

  async transaction<T>(work: (query: TxQuery) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.#connect();
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        let index = 0;
        const query: TxQuery = async (sql, params) => {
          const at = index++;
          try {
            return (await client.query<Row>(this.#prepared(sql, params))).rows;
          } catch (error) {
            throw new StatementFailed(at, reasonOf(error), error);
          }
        };
        const result = await work(query);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        broken = await rollback(client);
        if (isRetryable(error) && attempt < MAX_ATTEMPTS) continue;
        if (error instanceof StatementFailed || error instanceof ResonError) throw error;
        throw unavailable(this.#url, error);
      } finally {
        client.release(broken);
      }
    }
  }

  async reclaim(): Promise<void> {
    // Autovacuum gives the space of deleted rows back to the tables; nothing to ask for.
  }

  async sizeBytes(): Promise<number> {
    const names = POSTGRES_TABLES.map((name) => `'${name}'`).join(", ");
    const rows = await this.query(
      `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname IN (${names})`,
      [],
    );
    return Number(rows[0]?.bytes ?? 0);
  }

  async close(_options: CloseOptions): Promise<void> {
    await this.notices.close();
    await this.liveText.close();
    await this.#pool.end();
  }
}

/** Enables pgvector where the server has it and this role may; its absence is not an error. */
async function enableVector(client: pg.PoolClient): Promise<boolean> {
  const { rows } = await client.query<{ installed: boolean; available: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS installed,
            EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS available`,
  );
  const found = rows[0];
  if (found?.installed) return true;
  if (!found?.available) return false;
  await client.query("SAVEPOINT enable_vector");
  try {
    await client.query("CREATE EXTENSION IF NOT EXISTS vector");
    await client.query("RELEASE SAVEPOINT enable_vector");
    return true;
  } catch {
    // Installed on the server but this role may not create it: run without vectors until a
    // superuser runs CREATE EXTENSION vector; the next open sees it.
    await client.query("ROLLBACK TO SAVEPOINT enable_vector");
    return false;
  }
}

/**
 * Vectors of every model go in one pgvector column of no fixed size; each model gets its own
 * partial HNSW index (pgvector.ts). Rows stored before the server had pgvector keep their bytes
 * and are filled in before the first search, found by a partial index of the rows still
 * without one. Checked first: ALTER TABLE would lock the table against every reader on every open.
 */
async function addVectorColumn(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ column: boolean; pending: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = CAST('embeddings' AS regclass)
              AND attname = 'embedding' AND NOT attisdropped) AS column,
            to_regclass('embeddings_without_vector') IS NOT NULL AS pending`,
  );
  if (!rows[0]?.column) await client.query("ALTER TABLE embeddings ADD COLUMN embedding vector");
  if (!rows[0]?.pending) {
    await client.query(
      `CREATE INDEX embeddings_without_vector ON embeddings (owner_kind, model, dims, owner_id)
       WHERE embedding IS NULL`,
    );
  }
}

/** Applies missing migrations and records the features, one opener at a time; whether pgvector is there. */
async function migrate(pool: pg.Pool, url: DatabaseUrl): Promise<boolean> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`);
    const { rows } = await client.query<{ version: number }>(
      "SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations",
    );
    const current = Number(rows[0]?.version ?? 0);
    assertKnownVersion(current, POSTGRES_MIGRATIONS, url.shown);
    for (const migration of pendingMigrations(POSTGRES_MIGRATIONS, current)) {
      await client.query(migration.sql);
      await client.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [
        migration.version,
        migration.name,
        Date.now(),
      ]);
    }
    const vector = await enableVector(client);
    if (vector) await addVectorColumn(client);
    await client.query(
      `INSERT INTO store_features (name, enabled, checked_at) VALUES ('vector', $1, $2)
       ON CONFLICT (name) DO UPDATE SET enabled = excluded.enabled, checked_at = excluded.checked_at
       WHERE store_features.enabled IS DISTINCT FROM excluded.enabled`,
      [vector, Date.now()],
    );
    await client.query("COMMIT");
    if (vector) await client.query(PGVECTOR_SESSION_SQL);
    return vector;
  } catch (error) {
    broken = await rollback(client);
    throw error;
  } finally {
    client.release(broken);
  }
}

export interface PostgresStoreOptions extends SqlStoreOptions {
  /** Search vectors with pgvector when the server has it (default true). */
  nativeVectors?: boolean;
  /** The lease TTL of this process: bounds how long a transaction may sit idle (see above). */
  leaseTtlMs?: number;
}

export async function openPostgresStore(
  databaseUrl: string,
  options: PostgresStoreOptions = {},
): Promise<Store> {
  const url = parseDatabaseUrl(databaseUrl);
  // require(): pg is CommonJS (and the command's bundle, a script, has no import() of its own).
  const postgres = createRequire(import.meta.url)("pg") as typeof pg;
  const types = new postgres.TypeOverrides();
  // Epoch ms and counters fit a double exactly; the default would give strings.
  types.setTypeParser(OID_INT8, Number);
  // JSON stays text, parsed by records.ts as for SQLite, so both backends read alike.
  types.setTypeParser(OID_JSON, (text: string) => text);
  types.setTypeParser(OID_JSONB, (text: string) => text);
  // Set once the migration found pgvector: every later connection then gets its search settings
  // before it is used (the migrating one has them already).
  let vectorSettings = false;
  const pool = new postgres.Pool({
    onConnect: async (client) => {
      if (vectorSettings) await client.query(PGVECTOR_SESSION_SQL);
    },
    connectionString: databaseUrl,
    types,
    max: 10,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    application_name: "reson",
    // A process frozen inside a transaction (SIGSTOP, swap, a debugger) would hold its row locks
    // (a run's lease among them) for ever, and no other worker could take the run over: the
    // server ends such a transaction after about the lease TTL. reson never waits inside one.
    idle_in_transaction_session_timeout: idleInTransactionTimeoutMs(options.leaseTtlMs),
  });
  // An idle connection the server dropped emits "error" on the pool; without a listener that
  // would crash the process. The pool discards the client, the next query gets a fresh one.
  pool.on("error", () => {});
  // The same for a connection in use: the server ending it (idle-in-transaction timeout, a
  // restart) fails the query in flight or the next one, which reports it; it must not also
  // crash the process as an unhandled "error" event.
  pool.on("connect", (client) => client.on("error", () => {}));
  try {
    const vector = await migrate(pool, url);
    vectorSettings = vector;
    const listener = () =>
      new postgres.Client({
        connectionString: databaseUrl,
        connectionTimeoutMillis: 10_000,
        application_name: "reson listener",
      });
    const driver = new PostgresDriver(pool, url, vector, options.nativeVectors !== false, listener);
    return new SqlStore(driver, options);
  } catch (error) {
    await pool.end();
    throw unavailable(url, error);
  }
}
