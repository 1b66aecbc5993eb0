// `reson worker` on one machine's SQLite file: it stays up until told to stop (nothing but the
// worker itself holds the process there, no LISTEN connection as on PostgreSQL), takes a run
// queued after it started, and stops cleanly on SIGTERM.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/index.js";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";
import { queueRun, waitForStatus } from "../support/queued-run.js";
import { killAllReson, startReson } from "../support/service-process.js";

describe("reson worker on SQLite", () => {
  let server: FakeModelServer;
  let ws: TempDir;
  let store: Store;

  afterEach(async () => {
    await killAllReson();
    await store?.close();
    await server?.close();
    ws?.remove();
  });

  it("stays up until SIGTERM and executes a run queued after it started", async () => {
    server = await startFakeModelServer({ respond: () => ({ text: "queued and done" }) });
    ws = tempDir();
    store = await openStore({ home: ws.home });
    const worker = startReson(["worker", "--log-format", "json"], {
      env: cleanEnv({ RESON_HOME: ws.home }),
      cwd: ws.path,
    });
    await worker.waitFor(/worker started/);
    // Longer than the worker's poll: an idle worker must still be there to take the run.
    await new Promise((r) => setTimeout(r, 1500));
    expect(worker.child.exitCode).toBeNull();

    const runId = await queueRun(store, ws.path, "answer at once", {
      provider: "openai-compatible",
      baseUrl: server.openaiBaseUrl,
      model: "fake-model",
      sandbox: "off",
    });
    expect((await waitForStatus(store, runId, ["completed", "failed", "cancelled"], 20_000)).status).toBe(
      "completed",
    );
    expect((await store.events.list(runId)).at(-1)?.type).toBe("run_end");

    worker.kill("SIGTERM");
    expect((await worker.exited()).code).toBe(0);
    expect(worker.stderr()).toContain("worker stopped");
  }, 60_000);

  it("masks the token of the serve beside it in the runs it executes, as serve does", async () => {
    const token = "Tk8sQ2vN5xR7mW3pL9cF4hJ6bD1gZ0aYqEuIoPs";
    server = await startFakeModelServer({
      respond: (request) =>
        JSON.stringify(request.body).includes('"role":"tool"')
          ? { text: `The serve token is ${token}.` }
          : {
              toolCalls: [
                { id: "call_cat", name: "execute_command", arguments: { command: `echo ${token}` } },
              ],
            },
    });
    ws = tempDir();
    mkdirSync(ws.home, { recursive: true });
    writeFileSync(join(ws.home, "serve-token"), `${token}\n`, { mode: 0o600 });
    store = await openStore({ home: ws.home });
    const worker = startReson(["worker", "--log-format", "json"], {
      env: cleanEnv({ RESON_HOME: ws.home }),
      cwd: ws.path,
    });
    await worker.waitFor(/worker started/);
    const runId = await queueRun(store, ws.path, "show me the token", {
      provider: "openai-compatible",
      baseUrl: server.openaiBaseUrl,
      model: "fake-model",
      sandbox: "off",
      allow: ["execute_command"],
    });
    expect((await waitForStatus(store, runId, ["completed", "failed", "cancelled"], 20_000)).status).toBe(
      "completed",
    );
    const events = JSON.stringify(await store.events.list(runId));
    expect(events).toContain("The serve token is <secret>serve_token</secret>.");
    expect(events).not.toContain(token);
    // The command's output reached the model masked.
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain("<secret>serve_token</secret>");
  }, 60_000);
});
