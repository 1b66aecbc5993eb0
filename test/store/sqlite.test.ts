// The store contract on a real SQLite file, and what only the embedded store promises: a
// private file, WAL, and commits that survive the writing process being killed.
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { SQLITE_MIGRATIONS } from "../../src/store/sqlite/migrations.js";
import { type BuiltStore, buildStore } from "./built-store.js";
import { channelContract } from "./channel-contract.js";
import { expectUpgraded, rejection, runWorker, type StoreTarget, storeContract } from "./contract.js";
import { PROJECT, session } from "./fixtures.js";
import { memoryContract } from "./memory-contract.js";
import { serviceContract } from "./service-contract.js";
import { workspaceContract } from "./workspace-contract.js";

async function sqliteTarget(): Promise<StoreTarget> {
  const base = await mkdtemp(join(tmpdir(), "reson-store-"));
  const home = join(base, "home");
  const file = join(home, "reson.db");
  const raw = <T>(use: (db: Database.Database) => T): T => {
    const db = new Database(file);
    try {
      return use(db);
    } finally {
      db.close();
    }
  };
  return {
    open: (options = {}) => openStore({ home, ...options }),
    sql: async (text, params = []) =>
      raw((db) => {
        const statement = db.prepare(text);
        if (statement.reader) return statement.all(...params) as Record<string, unknown>[];
        statement.run(...params);
        return [];
      }),
    files: [file, `${file}-wal`],
    openOptions: { home },
    schemaVersions: async () =>
      raw(
        (db) =>
          db.prepare("SELECT version FROM schema_migrations ORDER BY version").pluck().all() as number[],
      ),
    pretendNewerSchema: async () => raw((db) => void db.pragma("user_version = 999")),
    rewindSchema: async (version) =>
      raw((db) => {
        db.prepare("DELETE FROM schema_migrations WHERE version > ?").run(version);
        db.pragma(`user_version = ${Number(version)}`);
      }),
    integrity: async () => raw((db) => String(db.pragma("integrity_check", { simple: true }))),
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

describe("SQLite store", () => {
  storeContract(sqliteTarget);
});

describe("SQLite service store", () => {
  serviceContract(sqliteTarget);
});

describe("SQLite workspace registry", () => {
  workspaceContract(sqliteTarget);
});

describe("SQLite chat channels", () => {
  channelContract(sqliteTarget);
});

describe("SQLite memory, vectors by sqlite-vec", () => {
  memoryContract(sqliteTarget);
});

describe("SQLite memory, vectors in process", () => {
  memoryContract(sqliteTarget, { nativeVectors: false });
});

describe("SQLite file", () => {
  it("is created in a private home, readable by its owner only, in WAL mode", async () => {
    const base = await mkdtemp(join(tmpdir(), "reson-store-"));
    try {
      const home = join(base, "nested", "home");
      const store = await openStore({ home, databaseUrl: "  " });
      expect(store.kind).toBe("sqlite");
      expect(store.location).toBe(join(home, "reson.db"));
      // sqlite-vec ships for linux, macOS and Windows on x64 and arm64 (npm optional packages).
      expect(store.features).toEqual({ vector: true, vectorSearch: "sqlite-vec" });
      await store.close();
      expect((await stat(home)).mode & 0o777).toBe(0o700);
      expect((await stat(join(home, "reson.db"))).mode & 0o777).toBe(0o600);
      const db = new Database(join(home, "reson.db"));
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(db.pragma("auto_vacuum", { simple: true })).toBe(2);
      db.close();
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it("a database of schema 1 (before artifacts) is migrated on open and keeps its data", async () => {
    const base = await mkdtemp(join(tmpdir(), "reson-store-"));
    try {
      const s = session();
      const db = new Database(join(base, "reson.db"));
      const v1 = SQLITE_MIGRATIONS.find((m) => m.version === 1)!;
      db.exec(v1.sql);
      db.exec(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT",
      );
      db.prepare("INSERT INTO schema_migrations VALUES (1, ?, 0)").run(v1.name);
      db.pragma("user_version = 1");
      db.prepare("INSERT INTO sessions VALUES (?, ?, ?, ?, 'active', '{}', '{}', NULL, 0, 0)").run(
        s.id,
        s.projectKey,
        s.workspace,
        s.title,
      );
      db.close();
      const store = await openStore({ home: base });
      try {
        await expectUpgraded(store, s.id, s.title);
      } finally {
        await store.close();
      }
      const after = new Database(join(base, "reson.db"));
      expect(after.prepare("SELECT version FROM schema_migrations ORDER BY version").pluck().all()).toEqual(
        SQLITE_MIGRATIONS.map((m) => m.version),
      );
      after.close();
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it("tool statistics of schema 2 keep their counters after the upgrade, and gain codes and percentiles", async () => {
    const base = await mkdtemp(join(tmpdir(), "reson-store-"));
    try {
      const db = new Database(join(base, "reson.db"));
      db.exec(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT",
      );
      for (const m of SQLITE_MIGRATIONS.filter((m) => m.version <= 2)) {
        db.exec(m.sql);
        db.prepare("INSERT INTO schema_migrations VALUES (?, ?, 0)").run(m.version, m.name);
      }
      db.pragma("user_version = 2");
      db.prepare("INSERT INTO tool_stats VALUES (?, 'grep', 4, 3, 1, 40, 1000)").run(PROJECT);
      db.close();
      const store = await openStore({ home: base });
      try {
        expect(await store.toolStats.list(PROJECT)).toEqual([
          {
            projectKey: PROJECT,
            tool: "grep",
            calls: 4,
            successes: 3,
            failures: 1,
            failuresByCode: {},
            totalDurationMs: 40,
            p50Ms: null,
            p95Ms: null,
            lastCallAt: 1000,
          },
        ]);
        await store.apply([
          {
            op: "recordToolCall",
            projectKey: PROJECT,
            tool: "grep",
            ok: false,
            durationMs: 9,
            at: 2000,
            errorCode: "tool_failed",
          },
        ]);
        expect(await store.toolStats.list(PROJECT)).toEqual([
          expect.objectContaining({ calls: 5, failures: 2, failuresByCode: { tool_failed: 1 }, p50Ms: 9 }),
        ]);
      } finally {
        await store.close();
      }
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it("refuses a file that is not a database, saying which file", async () => {
    const base = await mkdtemp(join(tmpdir(), "reson-store-"));
    try {
      await writeFile(join(base, "reson.db"), "this is not a database, just text ".repeat(200));
      const error = await rejection(openStore({ home: base }));
      expect(error.code).toBe("store_unavailable");
      expect(error.message).toContain(join(base, "reson.db"));
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it("says so when its home cannot be made", async () => {
    const base = await mkdtemp(join(tmpdir(), "reson-store-"));
    try {
      await writeFile(join(base, "a-file"), "");
      const error = await rejection(openStore({ home: join(base, "a-file", "home") }));
      expect(error.code).toBe("store_unavailable");
      expect(error.hint).toContain("RESON_HOME");
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  describe("a writer killed with SIGKILL", () => {
    let built: BuiltStore;
    beforeAll(async () => {
      built = await buildStore();
    });
    afterAll(() => built.cleanup());

    it("loses no batch it had committed, and leaves a sound file", async () => {
      const target = await sqliteTarget();
      try {
        let lastCommitted = -1;
        const result = await runWorker(
          built,
          { ...target.openOptions, worker: 0, batches: 1_000_000, projectKey: PROJECT },
          {
            announce: true,
            onStdout: (stdout, child) => {
              lastCommitted = Number([...stdout.matchAll(/committed (\d+)\n/g)].at(-1)?.[1] ?? -1);
              if (lastCommitted >= 300) child.kill("SIGKILL");
            },
          },
        );
        expect(result.signal).toBe("SIGKILL");
        const output = result.stdout;
        const [, sessionId = "", traceId = ""] = /session (\S+) (\S+)/.exec(output) ?? [];
        const store = await target.open();
        try {
          const seqs = (await store.turns.list(sessionId)).map((t) => t.seq);
          // Everything announced is there; at most the batch in flight may be there too.
          expect(seqs.length).toBeGreaterThanOrEqual(lastCommitted + 1);
          expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i));
          expect(await store.steps.list(traceId)).toHaveLength(seqs.length);
          expect((await store.checkpoints.get(traceId))?.step).toBe(seqs.length - 1);
          expect(await store.turns.nextSeq(sessionId)).toBe(seqs.length);
        } finally {
          await store.close();
        }
        expect(await target.integrity()).toBe("ok");
      } finally {
        await target.cleanup();
      }
    }, 60_000);
  });
});
