// `reson worker` on one machine's SQLite file: it stays up until told to stop (nothing but the
// worker itself holds the process there, no LISTEN connection as on PostgreSQL), takes a run
// queued after it started, and stops cleanly on SIGTERM.
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
});
