// The store module: sessions, turns, traces, steps, checkpoints, artifacts, tool statistics, run leases,
// long-term memory and experiences, and for the service each run's numbered events, the run queue,
// prompts and idempotency keys, behind one contract (types.ts), kept in one SQLite file by default or in PostgreSQL when a
// database URL is given. Drivers load only when a store is opened, so importing this module
// costs nothing.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ResonError } from "../core/errors.js";
import type { Store } from "./types.js";

export { bytesToVector, contentHash, vectorToBytes } from "../core/vector-bytes.js";
export { type CjkSegmenterState, cjkSegmenter } from "./cjk-words.js";
export { parseDuration } from "./duration.js";
export { stemEnglish } from "./english-stem.js";
export { successRate } from "./experience-repository.js";
export { CHANNEL_DEDUPE_WINDOW_MS } from "./gc-plan.js";
export { MIN_PREFIX_CHARS } from "./id-prefix.js";
export { describeHolder, holderAlive, leaseHolder, leaseLostError, leaseSince } from "./lease.js";
export { lessonTextScore, ONE_WORD_SCORE } from "./lesson-text-score.js";
export { MemoryIndex, type MemoryIndexOptions, type VectorHit } from "./memory-index.js";
export { projectKey } from "./project-key.js";
export { DEFAULT_MAX_ATTEMPTS } from "./run-queue.js";
export {
  coverageScore,
  GENERIC_WORD_WEIGHT,
  matchedWords,
  searchTerms,
  type WeightedTerm,
  weightedTerms,
  weightOf,
} from "./search-terms.js";
export { textTokens } from "./text-terms.js";
export { percentile, TOOL_DURATION_SAMPLES, UNKNOWN_ERROR_CODE } from "./tool-stats.js";
export type * from "./types.js";
export { englishFrequencies } from "./word-rarity.js";
export { workspaceNameTaken, workspaceNotFound, workspacePathTaken } from "./workspace-repository.js";

export interface OpenStoreOptions {
  /** reson's own folder (~/.reson): the SQLite file is `${home}/reson.db`. */
  home: string;
  /** RESON_DATABASE_URL: a postgres:// URL switches to PostgreSQL. */
  databaseUrl?: string;
  /**
   * Masks secrets in every memory and experience text before it is stored, indexed, hashed
   * or embedded from the store (the secrets masker).
   */
  redact?: (text: string) => string;
  /**
   * Use the database's vector extension (sqlite-vec, pgvector) when there is one (default
   * true); false searches vectors in process, as without one.
   */
  nativeVectors?: boolean;
  /**
   * How long the run leases this process takes last unrenewed (a worker's --lease-ttl). On
   * PostgreSQL, a transaction this process leaves idle (frozen by SIGSTOP, swap, a debugger) is
   * then ended by the server after about as long, so its row locks never hold up another
   * worker's takeover of a run much past the lease.
   */
  leaseTtlMs?: number;
}

/** Opens (creating and migrating where needed) the store the options name. */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const databaseUrl = options.databaseUrl?.trim();
  if (databaseUrl) {
    const { openPostgresStore } = await import("./postgres/postgres-driver.js");
    return openPostgresStore(databaseUrl, storeOptions(options));
  }
  try {
    // Synchronous, as the open that follows: a trip through the thread pool costs more.
    mkdirSync(options.home, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ResonError("store_unavailable", `reson cannot create its folder ${options.home}.`, {
      hint: "Check the permissions there, or set RESON_HOME to a folder you can write.",
      cause: error,
    });
  }
  const { openSqliteStore } = await import("./sqlite/sqlite-driver.js");
  return openSqliteStore(join(options.home, "reson.db"), storeOptions(options));
}

function storeOptions(options: OpenStoreOptions) {
  return {
    ...(options.redact ? { redact: options.redact } : {}),
    ...(options.nativeVectors !== undefined ? { nativeVectors: options.nativeVectors } : {}),
    ...(options.leaseTtlMs !== undefined ? { leaseTtlMs: options.leaseTtlMs } : {}),
  };
}
