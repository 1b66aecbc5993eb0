// reson on PostgreSQL, as a user runs it with RESON_DATABASE_URL: `reson doctor` says how
// memory vectors are searched (pgvector's HNSW index, or in process with the way to get
// pgvector), and a run with an embedding model remembers into pgvector and the next run
// recalls from it. In CI a missing PostgreSQL fails (postgres.test.ts says so); locally it skips.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { querySql as sql, startTestPostgres, type TestPostgres } from "../store/postgres-server.js";
import { cleanEnv, runCli } from "../support/cli.js";
import { type CliFixture, fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import type { RecordedRequest } from "../support/fake-model-server.js";
import { skipWithout } from "../support/requirements.js";

const skip = await skipWithout("postgres", "reson on PostgreSQL");
/** A role that may create tables but not extensions (pgvector is not a trusted extension). */
const PLAIN_ROLE = `reson_plain_${process.pid}`;

async function offersPgvector(url: string): Promise<boolean> {
  const [row] = await sql<{ offered: boolean }>(
    url,
    "SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS offered",
  );
  return row?.offered === true;
}

function isReflection(request: RecordedRequest): boolean {
  return JSON.stringify(request.body).includes("keep a short list of reusable rules");
}

describe.skipIf(skip)("reson on PostgreSQL", () => {
  const f: CliFixture = useCliFixture();
  let server: TestPostgres;
  let adminUrl: string;
  /** Databases the plain role made tables in: its objects there go before the role does. */
  const plainDatabases: string[] = [];

  beforeAll(async () => {
    server = await startTestPostgres();
    adminUrl = await server.createDatabase();
    await sql(adminUrl, `CREATE ROLE ${PLAIN_ROLE} LOGIN`);
  }, 60_000);
  afterAll(async () => {
    try {
      for (const url of plainDatabases) await sql(url, `DROP OWNED BY ${PLAIN_ROLE}`);
      await sql(adminUrl, `DROP ROLE ${PLAIN_ROLE}`);
    } finally {
      await server?.stop();
    }
  }, 60_000);

  const doctor = (databaseUrl: string) =>
    runCli(["doctor"], {
      cwd: f.ws.path,
      env: cleanEnv({ RESON_HOME: f.home.path, RESON_DATABASE_URL: databaseUrl }),
    });

  it("doctor says memory vectors are searched with pgvector's HNSW index", async (context) => {
    const databaseUrl = await server.createDatabase();
    if (!(await offersPgvector(databaseUrl)) && !process.env.CI) context.skip("the server has no pgvector");
    const result = await doctor(databaseUrl);
    expect(result.stdout).toMatch(/store:\n\s+ok\s+opens: PostgreSQL \(RESON_DATABASE_URL\)/);
    expect(result.stdout).toMatch(/ok\s+memory vector search: pgvector-hnsw/);
  });

  it("doctor warns that vectors are searched in process when pgvector cannot be enabled, and says how to get it", async () => {
    const owned = await server.createDatabase();
    plainDatabases.push(owned);
    await sql(owned, `GRANT CREATE ON SCHEMA public TO ${PLAIN_ROLE}`);
    const url = new URL(owned);
    url.username = PLAIN_ROLE;
    const result = await doctor(url.toString());
    expect(result.stdout).toMatch(/ok\s+opens: PostgreSQL/);
    expect(result.stdout).toMatch(/warn\s+memory vector search: in-process .*the server has no pgvector/);
    expect(result.stdout).toContain("postgresql-NN-pgvector");
    expect(result.stdout).toContain("pgvector/pgvector");
  });

  it("a run with an embedding model remembers into pgvector, and the next run recalls from it", async (context) => {
    const databaseUrl = await server.createDatabase();
    if (!(await offersPgvector(databaseUrl)) && !process.env.CI) context.skip("the server has no pgvector");
    const run = (task: string) =>
      runCli(["run", "--json", ...fakeModelArgs(f.server), task], {
        cwd: f.ws.path,
        env: cleanEnv({
          RESON_HOME: f.home.path,
          RESON_DATABASE_URL: databaseUrl,
          RESON_MEMORY_REFLECT: "always",
          RESON_EMBEDDINGS_PROVIDER: "openai-compatible",
          RESON_EMBEDDINGS_BASE_URL: f.server.openaiBaseUrl,
          RESON_EMBEDDINGS_MODEL: "fake-embed",
        }),
        timeoutMs: 60_000,
      });
    f.server.setResponder((request) =>
      isReflection(request)
        ? { text: "ADD: WHEN deploying to staging THEN connect the VPN first." }
        : undefined,
    );
    f.server.enqueue({ text: "The staging deploy script is scripts/deploy-staging.sh." });
    expect((await run("where is the staging deploy script?")).code).toBe(0);
    f.server.enqueue({ text: "ok" });
    expect((await run("how do I run the staging deploy?")).code).toBe(0);

    const chat = f.server.requests.filter((r) => r.protocol === "openai" && !isReflection(r)).at(-1)!;
    const messages = (chat.body as { messages: Array<{ role: string; content: unknown }> }).messages;
    expect(String(messages.find((m) => m.role === "system")?.content)).toContain("scripts/deploy-staging.sh");
    // The vectors are in pgvector's column, and the recall readied the model's HNSW index.
    const [stored] = await sql<{ vectors: number; missing: number }>(
      databaseUrl,
      `SELECT count(*)::int AS vectors, count(*) FILTER (WHERE embedding IS NULL)::int AS missing
       FROM embeddings WHERE model = 'openai-compatible/fake-embed'`,
    );
    expect(stored?.vectors).toBeGreaterThan(0);
    expect(stored?.missing).toBe(0);
    const indexes = await sql<{ definition: string; valid: boolean }>(
      databaseUrl,
      `SELECT pg_get_indexdef(c.oid) AS definition, i.indisvalid AS valid FROM pg_index i
       JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'hnsw'`,
    );
    expect(
      indexes.some((index) => index.valid && index.definition.includes("'openai-compatible/fake-embed'")),
    ).toBe(true);
  }, 120_000);
});
