// What a backend gives the shared store: run a query, run statements in one transaction,
// measure itself, close. SQL is written once with `?` placeholders and a dialect both
// SQLite and PostgreSQL accept; the PostgreSQL driver renumbers the placeholders.
import type { MemoryDialect } from "./memory-dialect.js";
import type { Row, SqlValue } from "./records.js";
import type { CloseOptions, StoreFeatures } from "./types.js";

export interface Statement {
  sql: string;
  params: SqlValue[];
  /** The statement must change exactly one row, or the transaction fails (an update of a missing record). */
  mustChangeOne?: boolean;
}

/** Why a statement of a transaction failed, as far as the caller can act on it. */
export type FailureReason = "duplicate" | "missing_reference" | "missing_row" | "other";

/** Thrown by `Driver.transact` after the rollback: which statement failed and why. */
export class StatementFailed extends Error {
  readonly index: number;
  readonly reason: FailureReason;

  constructor(index: number, reason: FailureReason, cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = "StatementFailed";
    this.index = index;
    this.reason = reason;
  }
}

export interface TransactOptions {
  /**
   * Every statement must see the same snapshot (gc reads what it deletes across several
   * statements). SQLite's write lock gives this anyway; PostgreSQL uses REPEATABLE READ.
   */
  consistent?: boolean;
}

/** A query inside `Driver.transaction`; a failing one throws StatementFailed (index: its rank). */
export type TxQuery = (sql: string, params: SqlValue[]) => Promise<Row[]>;

/**
 * Wake-ups sent to other processes: on PostgreSQL NOTIFY on one channel, delivered by a LISTEN
 * connection; SQLite has none (the store tells its own process's listeners after a commit).
 */
export interface NoticeTransport {
  /** The statement that sends `payload` when its transaction commits (and not before). */
  statement(payload: string): Statement;
  /**
   * Delivers every payload sent on the channel, from any process, until the returned function
   * is called. `onGap` runs after the listening connection was lost and is back: payloads sent
   * meanwhile are gone, so listeners must read again whatever they follow.
   */
  listen(onPayload: (payload: string) => void, onGap: () => void): Promise<() => Promise<void>>;
}

export interface Driver {
  readonly kind: "sqlite" | "postgres";
  readonly location: string;
  readonly features: StoreFeatures;
  /** How this backend indexes and searches memory. */
  readonly memory: MemoryDialect;
  query(sql: string, params: SqlValue[]): Promise<Row[]>;
  /** All statements or none; returns the rows changed by each. */
  transact(statements: readonly Statement[], options?: TransactOptions): Promise<number[]>;
  /**
   * Runs `work` in one write transaction whose next statement may depend on the last one's rows
   * (the queue's claim). SQLite: BEGIN IMMEDIATE, nothing else of this store runs meanwhile;
   * PostgreSQL: READ COMMITTED on one client, tried again whole after a deadlock. A throw rolls back.
   */
  transaction<T>(work: (query: TxQuery) => Promise<T>): Promise<T>;
  /** Cross-process wake-ups, where the backend has them. */
  readonly notices?: NoticeTransport;
  /** The live text of runs in flight across processes, on a channel apart from `notices`. */
  readonly liveText?: NoticeTransport;
  /** Gives freed space back after a gc, where the backend needs to be asked. */
  reclaim(): Promise<void>;
  sizeBytes(): Promise<number>;
  close(options: CloseOptions): Promise<void>;
}
