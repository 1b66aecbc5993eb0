// A run's workspace changes over HTTP: GET /runs/{id}/diff shows what the run did, POST
// /runs/{id}/rewind shows (dryRun) and then puts the files back, refuses to overwrite a file
// changed since without "force", refuses while the run is still going, and undoes. On SQLite
// with serve executing the run, and on PostgreSQL with a `reson worker` on the same machine.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPostgres, type TestPostgres } from "../store/postgres-server.js";
import { cleanEnv } from "../support/cli.js";
import type { FakeReply, RecordedRequest } from "../support/fake-model-server.js";
import { skipWithout } from "../support/requirements.js";
import { type Served, startServed, useServedFixture } from "../support/served-run.js";
import { startReson } from "../support/service-process.js";

/** "change": one command that deletes and creates; "slow": answers after a while. */
function model(request: RecordedRequest): FakeReply {
  const messages = (request.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const task = JSON.stringify(messages.find((m) => m.role === "user")?.content ?? "");
  if (task.includes("slow")) return { text: "later", delayMs: 3000 };
  if (!messages.some((m) => m.role === "assistant"))
    return {
      toolCalls: [
        { id: "call_rm", name: "execute_command", arguments: { command: "rm -rf src && echo new > n.txt" } },
      ],
    };
  return { text: "Changed." };
}

function seed(ws: string): void {
  mkdirSync(join(ws, "src/lib"), { recursive: true });
  writeFileSync(join(ws, "src/a.ts"), "export const a = 1;\n");
  writeFileSync(join(ws, "src/lib/b.ts"), "export const b = 2;\n");
}

async function post(
  served: Served,
  path: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${served.url}${path}`, {
    method: "POST",
    headers: served.headers,
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function finished(served: Served, id: string): Promise<string> {
  for (let tries = 0; tries < 300; tries++) {
    const run = (await (await fetch(`${served.url}/runs/${id}`, { headers: served.headers })).json()) as {
      status: string;
    };
    if (run.status === "completed" || run.status === "failed") return run.status;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${id} did not end`);
}

async function startRun(served: Served, ws: string, task: string, baseUrl: string): Promise<string> {
  const { status, body } = await post(served, "/runs", {
    task,
    workspace: ws,
    provider: "openai-compatible",
    baseUrl,
    model: "fake-model",
    sandbox: "off",
    permissionMode: "bypass",
  });
  expect(status).toBe(202);
  return body.id as string;
}

/** The whole flow against a serve whose runs' workspaces are on this machine. */
async function diffAndRewind(served: Served, ws: string, baseUrl: string): Promise<void> {
  seed(ws);
  const id = await startRun(served, ws, "change things", baseUrl);
  expect(await finished(served, id)).toBe("completed");
  expect(existsSync(join(ws, "src"))).toBe(false);

  const diff = (await (await fetch(`${served.url}/runs/${id}/diff`, { headers: served.headers })).json()) as {
    changes: { path: string; change: string }[];
    patch: string;
  };
  expect(diff.changes.map((c) => `${c.change} ${c.path}`).sort()).toEqual([
    "added n.txt",
    "deleted src/a.ts",
    "deleted src/lib/b.ts",
  ]);
  expect(diff.patch).toContain("diff --git a/src/a.ts b/src/a.ts\ndeleted file mode 100644\n");
  const step = await fetch(`${served.url}/runs/${id}/diff?step=2`, { headers: served.headers });
  expect(((await step.json()) as { changes: unknown[] }).changes).toEqual([]);

  const dry = await post(served, `/runs/${id}/rewind`, { dryRun: true });
  expect(dry.status).toBe(200);
  expect(dry.body).toMatchObject({ applied: false, rewindId: null, conflicts: [], conversation: true });
  expect(existsSync(join(ws, "src/a.ts"))).toBe(false);

  // Someone edits a file the run made: not overwritten without "force".
  writeFileSync(join(ws, "n.txt"), "edited after the run\n");
  const refused = await post(served, `/runs/${id}/rewind`, { filesOnly: true });
  expect(refused.status).toBe(409);
  expect(refused.body).toMatchObject({ error: { code: "rewind_conflict" } });
  expect(String((refused.body.error as { message: string }).message)).toContain("n.txt");
  expect(readFileSync(join(ws, "n.txt"), "utf8")).toBe("edited after the run\n");

  const forced = await post(served, `/runs/${id}/rewind`, { filesOnly: true, force: true });
  expect(forced.status).toBe(200);
  expect(forced.body).toMatchObject({ applied: true, conflicts: ["n.txt"] });
  expect(readFileSync(join(ws, "src/lib/b.ts"), "utf8")).toBe("export const b = 2;\n");
  expect(existsSync(join(ws, "n.txt"))).toBe(false);

  const undo = await post(served, `/runs/${id}/rewind`, { undo: true });
  expect(undo.status).toBe(200);
  expect(readFileSync(join(ws, "n.txt"), "utf8")).toBe("edited after the run\n");
  expect(existsSync(join(ws, "src"))).toBe(false);
}

describe("rewind over HTTP, serve on SQLite", () => {
  const f = useServedFixture(model);

  it("shows a run's diff, rewinds it after a dry run, asks for force over a later edit, and undoes", async () => {
    const served = await startServed(f.ws.home, f.ws.path);
    await diffAndRewind(served, f.ws.path, f.model.openaiBaseUrl);
  }, 60_000);

  it("refuses while the run is still going, and says where a run has no snapshots", async () => {
    const served = await startServed(f.ws.home, f.ws.path);
    const id = await startRun(served, f.ws.path, "slow answer", f.model.openaiBaseUrl);
    // Held by serve's own worker from its claim on.
    let busy = { status: 0, body: {} as Record<string, unknown> };
    for (let tries = 0; tries < 50 && busy.status !== 409; tries++) {
      busy = await post(served, `/runs/${id}/rewind`, { dryRun: true });
      if (busy.status !== 409) await new Promise((r) => setTimeout(r, 100));
    }
    expect(busy.body).toMatchObject({ error: { code: "run_leased" } });
    expect(await finished(served, id)).toBe("completed");
    // It changed no file: no snapshots.
    const none = await post(served, `/runs/${id}/rewind`, { dryRun: true });
    expect(none.status).toBe(404);
    expect(none.body).toMatchObject({ error: { code: "snapshot_missing" } });
  }, 60_000);
});

describe.skipIf(await skipWithout("postgres", "rewind over HTTP on PostgreSQL"))(
  "rewind over HTTP, PostgreSQL with a worker on the same machine",
  () => {
    const f = useServedFixture(model);
    let pg: TestPostgres;
    beforeAll(async () => {
      pg = await startTestPostgres();
    }, 120_000);
    afterAll(async () => {
      await pg?.stop();
    });

    it("rewinds a run a worker executed, through serve's route", async () => {
      const url = await pg.createDatabase();
      const env = cleanEnv({ RESON_HOME: f.ws.home, RESON_DATABASE_URL: url });
      const worker = startReson(["worker", "--log-format", "json"], { env, cwd: f.ws.path });
      await worker.waitFor(/worker started/);
      const served = await startServed(f.ws.home, f.ws.path, ["--workers", "0"], { RESON_DATABASE_URL: url });
      await diffAndRewind(served, f.ws.path, f.model.openaiBaseUrl);
    }, 90_000);
  },
);
