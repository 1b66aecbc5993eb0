// The embedded store: one SQLite file in WAL mode, safe for several reson processes at once.
// better-sqlite3 is synchronous, so a transaction runs start to end without yielding to the
// event loop; nothing else of this process can slip into it.
import { closeSync, openSync } from "node:fs";
import { stat } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import type BetterSqlite3 from "better-sqlite3";
import { ResonError } from "../../core/errors.js";
import { type Driver, type FailureReason, type Statement, StatementFailed, type TxQuery } from "../driver.js";
import type { MemoryDialect } from "../memory-dialect.js";
import { assertKnownVersion, pendingMigrations } from "../migration.js";
import type { Row, SqlValue } from "../records.js";
import { SqlStore, type SqlStoreOptions } from "../sql-store.js";
import type { CloseOptions, Store, StoreFeatures } from "../types.js";
import { SQLITE_VEC, sqliteMemoryDialect } from "./memory-dialect.js";
import { SQLITE_MIGRATIONS } from "./migrations.js";
import { requireBetterSqlite3, requireSqliteVec } from "./sqlite-packages.js";

/**
 * How long a writer waits for another process's write to finish. SQLite's own busy handler
 * waits first (blocking, fine-grained); if SQLite still answers SQLITE_BUSY without having
 * waited (it does in a few WAL cases), the transaction is tried again, until this is used up.
 */
const BUSY_TIMEOUT_MS = 5_000;

function errorCode(error: unknown): string {
  return error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : "";
}

function isBusy(error: unknown): boolean {
  const code = errorCode(error);
  return code === "SQLITE_BUSY" || code.startsWith("SQLITE_BUSY_");
}

function reasonOf(error: unknown): FailureReason {
  const code = errorCode(error);
  if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") return "duplicate";
  if (code === "SQLITE_CONSTRAINT_FOREIGNKEY") return "missing_reference";
  return "other";
}

function unavailable(path: string, error: unknown): ResonError {
  if (error instanceof ResonError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (isBusy(error)) {
    return new ResonError(
      "store_unavailable",
      `The database at ${path} stayed locked by another process for more than ${BUSY_TIMEOUT_MS / 1000} s.`,
      { hint: "Another reson process is holding a long write; try again.", cause: error },
    );
  }
  return new ResonError("store_unavailable", `The database at ${path} cannot be used: ${message}`, {
    hint: "Check that the file is a reson database and is readable and writable, or set RESON_HOME to use another folder.",
    details: { code: errorCode(error) || undefined },
    cause: error,
  });
}

/**
 * Runs `attempt`, trying again while the database is busy, within BUSY_TIMEOUT_MS; `location`
 * names the file whose open `transaction` (see OPEN) each attempt waits out first.
 */
async function whileBusy<T>(attempt: () => T, location?: string): Promise<T> {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    // No await between the last look and the attempt: nothing can open a transaction in between.
    for (let open = location && OPEN.get(location); open; open = location && OPEN.get(location)) await open;
    try {
      return attempt();
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      await sleep(5 + Math.floor(Math.random() * 20));
    }
  }
}

/**
 * The `transaction`s open in this process, by file. Their work awaits between statements while
 * holding the file's write lock; any other statement on that file from this process (on any
 * connection) waits here first. Else it would run inside that transaction (same connection), or
 * block the event loop in SQLite's busy wait while the transaction could never finish (another).
 */
const OPEN = new Map<string, Promise<void>>();

class SqliteDriver implements Driver {
  readonly kind = "sqlite";
  readonly location: string;
  readonly memory: MemoryDialect;
  readonly #db: BetterSqlite3.Database;
  readonly #statements = new Map<string, BetterSqlite3.Statement<SqlValue[]>>();
  readonly #nativeVectors: boolean;
  #vectorsLoaded: boolean | undefined;

  constructor(db: BetterSqlite3.Database, path: string, nativeVectors: boolean) {
    this.#db = db;
    this.location = path;
    this.#nativeVectors = nativeVectors;
    this.memory = sqliteMemoryDialect(() => (this.#vectors() ? SQLITE_VEC : undefined));
  }

  /**
   * sqlite-vec, loaded at the first vector write or search (or when features are asked for):
   * loading it costs a few milliseconds that a run touching no vector does not pay. Every
   * vector statement goes through this connection after the load.
   */
  #vectors(): boolean {
    this.#vectorsLoaded ??= this.#nativeVectors && loadSqliteVec(this.#db);
    return this.#vectorsLoaded;
  }

  get features(): StoreFeatures {
    const vectors = this.#vectors();
    return { vector: vectors, vectorSearch: vectors ? "sqlite-vec" : "in-process" };
  }

  #prepare(sql: string): BetterSqlite3.Statement<SqlValue[]> {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare<SqlValue[]>(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #run(sql: string, params: SqlValue[]): Row[] {
    const statement = this.#prepare(sql);
    if (statement.reader) return statement.all(...params) as Row[];
    statement.run(...params);
    return [];
  }

  async transaction<T>(work: (query: TxQuery) => Promise<T>): Promise<T> {
    // Waited out inline: between the last look and the set below nothing else may run.
    for (let open = OPEN.get(this.location); open; open = OPEN.get(this.location)) await open;
    let done = () => {};
    OPEN.set(
      this.location,
      new Promise<void>((resolve) => {
        done = resolve;
      }),
    );
    try {
      try {
        await whileBusy(() => this.#db.exec("BEGIN IMMEDIATE"));
      } catch (error) {
        throw unavailable(this.location, error);
      }
      let index = 0;
      const query: TxQuery = async (sql, params) => {
        const at = index++;
        try {
          return this.#run(sql, params);
        } catch (error) {
          throw new StatementFailed(at, reasonOf(error), error);
        }
      };
      try {
        const result = await work(query);
        this.#db.exec("COMMIT");
        return result;
      } catch (error) {
        if (this.#db.inTransaction) this.#db.exec("ROLLBACK");
        throw error;
      }
    } finally {
      OPEN.delete(this.location);
      done();
    }
  }

  async query(sql: string, params: SqlValue[]): Promise<Row[]> {
    try {
      return await whileBusy(() => this.#run(sql, params), this.location);
    } catch (error) {
      throw unavailable(this.location, error);
    }
  }

  async transact(statements: readonly Statement[]): Promise<number[]> {
    const body = this.#db.transaction(() =>
      statements.map((statement, index) => {
        let changes: number;
        try {
          changes = this.#prepare(statement.sql).run(...statement.params).changes;
        } catch (error) {
          if (isBusy(error)) throw error;
          throw new StatementFailed(index, reasonOf(error), error);
        }
        if (statement.mustChangeOne && changes !== 1) {
          throw new StatementFailed(index, "missing_row", new Error(`${changes} rows changed`));
        }
        return changes;
      }),
    );
    try {
      // BEGIN IMMEDIATE takes the write lock up front: a transaction that has begun never
      // fails halfway with SQLITE_BUSY, and a busy BEGIN is simply tried again.
      return await whileBusy(() => body.immediate(), this.location);
    } catch (error) {
      if (error instanceof StatementFailed) throw error;
      throw unavailable(this.location, error);
    }
  }

  async reclaim(): Promise<void> {
    try {
      await whileBusy(() => this.#db.pragma("incremental_vacuum"));
      // Let the file shrink now rather than at the next automatic checkpoint.
      this.#db.pragma("wal_checkpoint(TRUNCATE)");
    } catch (error) {
      throw unavailable(this.location, error);
    }
  }

  async sizeBytes(): Promise<number> {
    let total = 0;
    for (const suffix of ["", "-wal"]) {
      try {
        total += (await stat(this.location + suffix)).size;
      } catch (error) {
        if (errorCode(error) !== "ENOENT") throw unavailable(this.location, error);
      }
    }
    return total;
  }

  async close(options: CloseOptions): Promise<void> {
    this.#statements.clear();
    // Closing the last connection checkpoints; at exit the kernel releases the locks and
    // the next open reads the log, as after a crash (which WAL is made for).
    if (!options.processExiting) this.#db.close();
  }
}

function configure(db: BetterSqlite3.Database): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // Only takes effect on a new, empty file; lets gc give pages back (see reclaim).
  db.pragma("auto_vacuum = INCREMENTAL");
  db.pragma("journal_mode = WAL");
  // Under WAL, NORMAL writes every commit to the WAL file before COMMIT returns, so a
  // committed step survives the process being killed (the data is in the OS's hands); it
  // skips the fsync per commit, so a power loss or OS crash may lose the last few commits,
  // never the integrity of the file. FULL would cost an fsync on every loop step.
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  // Deleted rows are overwritten, so what `reson memory forget` or gc removed (text, vectors)
  // does not linger in free pages of the file. Deletes are rare; the cost is theirs alone.
  db.pragma("secure_delete = ON");
}

async function migrate(db: BetterSqlite3.Database, path: string): Promise<void> {
  const version = () => Number(db.pragma("user_version", { simple: true }));
  assertKnownVersion(version(), SQLITE_MIGRATIONS, path);
  if (pendingMigrations(SQLITE_MIGRATIONS, version()).length === 0) return;
  const record = `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`;
  const apply = db.transaction(() => {
    // Read again under the write lock: another process may have migrated meanwhile.
    const current = version();
    assertKnownVersion(current, SQLITE_MIGRATIONS, path);
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`);
    for (const migration of pendingMigrations(SQLITE_MIGRATIONS, current)) {
      db.exec(migration.sql);
      db.prepare(record).run(migration.version, migration.name, Date.now());
      db.pragma(`user_version = ${migration.version}`);
    }
  });
  await whileBusy(() => apply.immediate());
}

/**
 * Loads sqlite-vec into the connection. Its absence (a platform without a build, a blocked
 * extension) is not an error: vectors are then searched in process.
 */
function loadSqliteVec(db: BetterSqlite3.Database): boolean {
  try {
    requireSqliteVec().load(db);
    return true;
  } catch {
    return false;
  }
}

export interface SqliteStoreOptions extends SqlStoreOptions {
  /** Use sqlite-vec when it loads (default true). */
  nativeVectors?: boolean;
}

export async function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Promise<Store> {
  const Database = requireBetterSqlite3();
  let db: BetterSqlite3.Database | undefined;
  try {
    // Sessions hold prompts and tool output: the file (and its -wal, -shm, which SQLite
    // creates with the same mode) is for its owner only. Synchronous, like the open that
    // follows: two trips through the thread pool cost more than the calls themselves.
    closeSync(openSync(path, "a", 0o600));
    db = new Database(path);
    const opened = db;
    await whileBusy(() => configure(opened));
    await migrate(opened, path);
    return new SqlStore(new SqliteDriver(opened, path, options.nativeVectors !== false), options);
  } catch (error) {
    db?.close();
    throw unavailable(path, error);
  }
}
