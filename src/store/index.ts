// The store module: sessions, turns, traces, steps, checkpoints, artifacts and tool statistics
// behind one contract (types.ts), kept in one SQLite file by default or in PostgreSQL when a
// database URL is given. Drivers load only when a store is opened, so importing this module
// costs nothing.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { ResonError } from "../core/errors.js";
import type { Store } from "./types.js";

export { parseDuration } from "./duration.js";
export { MIN_PREFIX_CHARS } from "./id-prefix.js";
export { projectKey } from "./project-key.js";
export { percentile, TOOL_DURATION_SAMPLES, UNKNOWN_ERROR_CODE } from "./tool-stats.js";
export type * from "./types.js";

export interface OpenStoreOptions {
  /** reson's own folder (~/.reson): the SQLite file is `${home}/reson.db`. */
  home: string;
  /** RESON_DATABASE_URL: a postgres:// URL switches to PostgreSQL. */
  databaseUrl?: string;
}

/** Opens (creating and migrating where needed) the store the options name. */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const databaseUrl = options.databaseUrl?.trim();
  if (databaseUrl) {
    const { openPostgresStore } = await import("./postgres/postgres-driver.js");
    return openPostgresStore(databaseUrl);
  }
  try {
    await mkdir(options.home, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ResonError("store_unavailable", `reson cannot create its folder ${options.home}.`, {
      hint: "Check the permissions there, or set RESON_HOME to a folder you can write.",
      cause: error,
    });
  }
  const { openSqliteStore } = await import("./sqlite/sqlite-driver.js");
  return openSqliteStore(join(options.home, "reson.db"));
}
