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

export interface Driver {
  readonly kind: "sqlite" | "postgres";
  readonly location: string;
  readonly features: StoreFeatures;
  /** How this backend indexes and searches memory. */
  readonly memory: MemoryDialect;
  query(sql: string, params: SqlValue[]): Promise<Row[]>;
  /** All statements or none; returns the rows changed by each. */
  transact(statements: readonly Statement[], options?: TransactOptions): Promise<number[]>;
  /** Gives freed space back after a gc, where the backend needs to be asked. */
  reclaim(): Promise<void>;
  sizeBytes(): Promise<number>;
  close(options: CloseOptions): Promise<void>;
}
