// Versioned schema migrations: each backend keeps its own ordered list (the DDL differs) and
// applies the missing ones on open, in one transaction, recording each in schema_migrations.
// Adding a table (FTS, vectors, memory) is a new entry at the end; entries never change.
import { ResonError } from "../core/errors.js";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Experience terms cut again by the current rules (search-terms.ts): NULL terms are indexed at
 * the next searches, a batch at a time (experience-repository.ts). SQL both backends accept:
 * the entry for a change of how terms are cut, in each backend's list.
 */
export function recutExperienceTerms(version: number, why: string): Migration {
  return {
    version,
    name: `experience terms cut again: ${why}`,
    sql: "UPDATE experiences SET terms = NULL WHERE terms IS NOT NULL;",
  };
}

export function latestVersion(migrations: readonly Migration[]): number {
  return migrations.reduce((latest, m) => Math.max(latest, m.version), 0);
}

/** The migrations a database at `current` still needs, in order. */
export function pendingMigrations(migrations: readonly Migration[], current: number): Migration[] {
  return migrations.filter((m) => m.version > current).sort((a, b) => a.version - b.version);
}

/** Refuses a database written by a newer reson: its tables may mean things this code does not know. */
export function assertKnownVersion(
  current: number,
  migrations: readonly Migration[],
  location: string,
): void {
  const known = latestVersion(migrations);
  if (current <= known) return;
  throw new ResonError(
    "store_unavailable",
    `The database at ${location} has schema version ${current}, newer than this reson knows (${known}).`,
    {
      hint: "Upgrade reson to the version that wrote it, or point reson at another database (RESON_HOME or RESON_DATABASE_URL).",
      details: { schemaVersion: current, knownVersion: known },
    },
  );
}
