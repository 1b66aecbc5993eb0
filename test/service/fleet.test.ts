// A fleet of `reson worker` processes on one PostgreSQL database: 60 queued runs of 5–20 steps,
// each step a command with a side effect that can be counted, while workers are SIGKILLed at
// random and restarted. Every run ends completed; a tool call whose result was committed ran
// exactly once, and none ran twice (one killed mid-command is reported as interrupted, never
// run again). A worker stopped (SIGSTOP), even inside a transaction, holds up no takeover and
// writes nothing once it wakes; one shut down (SIGTERM) leaves its run as a crash would. A
// serve without workers streams what workers run: committed events, and live text as it comes.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/index.js";
import { querySql, startTestPostgres, type TestPostgres } from "../store/postgres-server.js";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import {
  type FakeModelServer,
  type FakeReply,
  type RecordedRequest,
  startFakeModelServer,
} from "../support/fake-model-server.js";
import { queueRun, waitForStatus } from "../support/queued-run.js";
import { taskOf } from "../support/reply-by-task.js";
import { skipWithout } from "../support/requirements.js";
import { killAllReson, type ServiceProcess, startReson } from "../support/service-process.js";
import { readSse, type SseClientFrame } from "../support/sse-client.js";
import { waitForFile } from "../support/wait-for-file.js";
import { toolMessagesOf, waitingCommand } from "../support/waiting-command.js";

const RUNS = 60;
const WORKERS = 3;

/** Steps of job j: 5..20, spread. */
const stepsOf = (job: number) => 5 + ((job * 7) % 16);

/** The model, stateless: step k of job j runs `echo j-k >> log-j.txt`, then answers. */
function answer(request: RecordedRequest) {
  const match = /^fleet job (\d+) steps (\d+)/.exec(taskOf(request));
  if (!match) return { text: "unexpected task" };
  const [job, steps] = [Number(match[1]), Number(match[2])];
  const messages = (request.body as { messages?: Array<{ role: string }> }).messages ?? [];
  const done = messages.filter((m) => m.role === "assistant").length;
  if (done >= steps) return { text: `job ${job} done` };
  return {
    toolCalls: [
      {
        id: `call_${job}_${done}`,
        name: "execute_command",
        arguments: { command: `echo ${job}-${done} >> log-${job}.txt` },
      },
    ],
  };
}

/** 60 words, streamed one at a time with a pause between: a step that takes a while to say. */
const A_LOT = Array.from({ length: 60 }, (_, i) => `w${String(i).padStart(2, "0")}`).join(" ");

/** First a command that waits for `go` (so that clients can be following first), then A_LOT. */
function commandThenALot(request: RecordedRequest): FakeReply {
  const first = waitingCommand(request);
  return "toolCalls" in first ? first : { text: A_LOT, chunkDelayMs: 80 };
}

/** The text of the text_delta frames. */
const deltas = (frames: SseClientFrame[]) =>
  frames
    .filter((frame) => frame.event === "text_delta")
    .map((frame) => JSON.parse(frame.data).delta as string);

describe.skipIf(await skipWithout("postgres", "worker fleet"))("a worker fleet on PostgreSQL", () => {
  let pg: TestPostgres;
  let url: string;
  let server: FakeModelServer;
  let ws: TempDir;
  let store: Store;

  beforeAll(async () => {
    pg = await startTestPostgres();
  }, 120_000);
  afterAll(async () => {
    await pg?.stop();
  });
  afterEach(async () => {
    await killAllReson();
    await store?.close();
    await server?.close();
    ws?.remove();
  });

  /** A fresh database and workspace with one queued run whose command waits for the file `go`. */
  async function queueSlowCommand() {
    url = await pg.createDatabase();
    server = await startFakeModelServer({ respond: waitingCommand });
    ws = tempDir();
    store = await openStore({ home: ws.home, databaseUrl: url });
    const env = cleanEnv({ RESON_HOME: ws.home, RESON_DATABASE_URL: url, RESON_LEASE_TTL_MS: "1500" });
    const runId = await queueRun(store, ws.path, "slow command", {
      provider: "openai-compatible",
      baseUrl: server.openaiBaseUrl,
      model: "fake-model",
      sandbox: "off",
      allow: ["execute_command"],
    });
    return { env, runId };
  }

  /** Everything stored of the run: what a worker that lost it must not change. */
  async function stored(runId: string) {
    return {
      events: await store.events.list(runId),
      steps: await store.steps.list(runId),
      trace: await store.traces.get(runId),
      request: await store.queue.get(runId),
    };
  }

  /** Lines of a file the run's commands wrote in the workspace ([] when there is none). */
  function linesOf(name: string): string[] {
    const path = join(ws.path, name);
    return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : [];
  }

  it("runs every queued run to completion while workers are killed, and no committed tool call runs twice", async () => {
    url = await pg.createDatabase();
    server = await startFakeModelServer({ respond: answer });
    ws = tempDir();
    store = await openStore({ home: ws.home, databaseUrl: url });
    const env = cleanEnv({
      RESON_HOME: ws.home,
      RESON_DATABASE_URL: url,
      RESON_LEASE_TTL_MS: "2000",
    });
    for (let job = 0; job < RUNS; job++) {
      await queueRun(store, ws.path, `fleet job ${job} steps ${stepsOf(job)}`, {
        provider: "openai-compatible",
        baseUrl: server.openaiBaseUrl,
        model: "fake-model",
        maxIterations: 40,
        sandbox: "off",
        allow: ["execute_command"],
      });
    }
    const workers: ServiceProcess[] = [];
    const start = () =>
      startReson(["worker", "--concurrency", "2", "--log-format", "json"], { env, cwd: ws.path });
    for (let i = 0; i < WORKERS; i++) workers.push(start());
    await Promise.all(workers.map((w) => w.waitFor(/worker started/)));

    // Kill a random worker every 1–2.5 s, at most 10 times, while runs are left; restart it.
    let kills = 0;
    const deadline = Date.now() + 300_000;
    for (;;) {
      const depth = await store.queue.depth();
      if (depth.queued + depth.running === 0) break;
      if (Date.now() > deadline) throw new Error(`runs left after 300 s: ${JSON.stringify(depth)}`);
      await new Promise((r) => setTimeout(r, 1000 + Math.random() * 1500));
      if (kills < 10) {
        const index = Math.floor(Math.random() * workers.length);
        workers[index]!.kill("SIGKILL");
        await workers[index]!.exited();
        workers[index] = start();
        kills++;
      }
    }

    const requests = await store.queue.list({ limit: 1000 });
    expect(requests).toHaveLength(RUNS);
    expect(
      requests.filter((r) => r.status !== "completed").map((r) => [r.id, r.status, r.lastError]),
    ).toEqual([]);
    expect(kills).toBeGreaterThan(0);
    for (const request of requests) {
      const job = Number(/fleet job (\d+)/.exec(request.task)![1]);
      const logPath = join(ws.path, `log-${job}.txt`);
      const lines = existsSync(logPath) ? readFileSync(logPath, "utf8").split("\n").filter(Boolean) : [];
      // No step's command ran twice.
      expect(new Set(lines).size, `job ${job}: ${lines.join(",")}`).toBe(lines.length);
      const steps = await store.steps.list(request.id);
      const committed = steps.filter((s) => s.kind === "tool_call" && s.status === "done");
      // A call the process died in is reported to the model as interrupted (tool_interrupted).
      const interrupted = steps.filter(
        (s) =>
          s.kind === "tool_call" &&
          (s.status === "interrupted" ||
            (s.data as { result?: { error?: { code?: string } } }).result?.error?.code ===
              "tool_interrupted"),
      );
      // Every committed call left its line; only an interrupted one may have left one without.
      expect(lines.length).toBeGreaterThanOrEqual(committed.length);
      expect(lines.length).toBeLessThanOrEqual(committed.length + interrupted.length);
      const trace = await store.traces.get(request.id);
      expect(trace?.status).toBe("completed");
    }
    // The events of each run are numbered 1..N without a gap and end with run_end.
    for (const request of requests.slice(0, 10)) {
      const events = await store.events.list(request.id);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events.at(-1)?.type).toBe("run_end");
    }
  }, 420_000);

  it("a worker stopped past its lease commits nothing once another worker took the run over", async () => {
    const { env, runId } = await queueSlowCommand();
    const first = startReson(["worker", "--log-format", "json"], { env, cwd: ws.path });
    const started = join(ws.path, "started.txt");
    await waitForFile(started);
    first.kill("SIGSTOP");
    // Past the lease: the second worker takes the run over and finishes it.
    await new Promise((r) => setTimeout(r, 2500));
    const second = startReson(["worker", "--log-format", "json"], { env, cwd: ws.path });
    expect((await waitForStatus(store, runId, ["completed", "failed", "cancelled"])).status).toBe(
      "completed",
    );
    second.kill("SIGTERM");
    await second.exited();
    const before = await stored(runId);
    // The first worker wakes inside its command, which now ends: it must write nothing.
    writeFileSync(join(ws.path, "go"), "");
    first.kill("SIGCONT");
    await first.waitFor(/run lost|lease/, 20_000);
    expect(await stored(runId)).toEqual(before);
    expect(before.trace?.status).toBe("completed");
    expect(before.events.at(-1)?.type).toBe("run_end");
  }, 120_000);

  /**
   * A fresh database and workspace, `reson serve --workers 0` over them, and a run of `task`
   * posted to it (queued: no worker runs it yet), answered by `respond`.
   */
  async function postToServeWithoutWorkers(task: string, respond: (request: RecordedRequest) => FakeReply) {
    url = await pg.createDatabase();
    server = await startFakeModelServer({ respond });
    ws = tempDir();
    store = await openStore({ home: ws.home, databaseUrl: url });
    const env = cleanEnv({ RESON_HOME: ws.home, RESON_DATABASE_URL: url });
    const serve = startReson(
      ["serve", "--port", "0", "--workers", "0", "--log-format", "json", "--workspace-root", ws.path],
      { env, cwd: ws.path },
    );
    const [, base] = await serve.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
    const headers = { authorization: `Bearer ${readFileSync(join(ws.home, "serve-token"), "utf8").trim()}` };
    const response = await fetch(`${base}/runs`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({
        task,
        workspace: ws.path,
        provider: "openai-compatible",
        baseUrl: server.openaiBaseUrl,
        model: "fake-model",
        sandbox: "off",
        allow: ["execute_command"],
      }),
    });
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };
    return { env, serve, headers, events: `${base}/runs/${id}/events`, id };
  }

  it("serve without workers queues runs that a worker elsewhere executes, and streams their events live", async () => {
    const posted = await postToServeWithoutWorkers("fleet job 7 steps 6", answer);
    const { env, serve, id } = posted;
    // The client is following before any worker runs it: the events arrive as they commit.
    const frames = readSse(posted.events, posted.headers, { timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 300));
    expect((await store.queue.get(id))?.status).toBe("queued");
    const worker = startReson(["worker", "--log-format", "json"], { env, cwd: ws.path });
    const events = (await frames).filter((f) => f.id !== undefined);
    expect(events.map((f) => Number(f.id))).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)?.event).toBe("run_end");
    expect(events.filter((f) => f.event === "tool_result")).toHaveLength(6);
    expect((await store.queue.get(id))?.status).toBe("completed");
    await stopsCleanly(worker, serve);
  }, 120_000);

  it("serve without workers streams a worker's text as it comes, before the step ends, and gives a client joining mid-step the text so far", async () => {
    const { env, serve, headers, events } = await postToServeWithoutWorkers("say a lot", commandThenALot);
    const worker = startReson(["worker", "--log-format", "json"], { env, cwd: ws.path });
    // The first client follows from the start: once step 1's command runs, the text step may
    // begin (the command waits for `go`); after its third word a second client joins.
    let late: Promise<SseClientFrame[]> | undefined;
    let seenDeltas = 0;
    const early = await readSse(events, headers, {
      timeoutMs: 60_000,
      onFrame: (frame) => {
        if (frame.event === "tool_call") writeFileSync(join(ws.path, "go"), "");
        if (!late && deltas([frame]).length > 0 && ++seenDeltas === 3)
          late = readSse(events, headers, { timeoutMs: 60_000 });
      },
    });
    expect(late).toBeDefined();
    const joined = await late!;

    // Live, before the step's end, without an id; all of it, once.
    const kinds = early.map((frame) => frame.event);
    expect(kinds.indexOf("text_delta")).toBeGreaterThan(-1);
    expect(kinds.indexOf("text_delta")).toBeLessThan(kinds.lastIndexOf("step_end"));
    const live = early.filter((frame) => frame.event === "text_delta");
    expect(live.every((frame) => frame.id === undefined)).toBe(true);
    expect(deltas(early).join("")).toBe(A_LOT);
    expect(kinds.at(-1)).toBe("run_end");
    // The late client's first delta is the text so far (three words at least), then the rest.
    // (Where a delta ends depends on the masking's hold-back: the worker masks serve's token.)
    expect(deltas(joined)[0]).toMatch(/^w00 w01 w02/);
    expect(deltas(joined).join("")).toBe(A_LOT);
    expect(joined.at(-1)?.event).toBe("run_end");

    await stopsCleanly(worker, serve);
  }, 120_000);

  it("a worker shut down past its grace leaves its run as a crash would: another resumes it, tells the model the call was interrupted, and the run ends once", async () => {
    const { env, runId } = await queueSlowCommand();
    const first = startReson(["worker", "--grace", "1s", "--log-format", "json"], { env, cwd: ws.path });
    await waitForFile(join(ws.path, "started.txt"));
    const second = startReson(["worker", "--log-format", "json"], { env, cwd: ws.path });
    await second.waitFor(/worker started/);
    first.kill("SIGTERM");
    expect((await first.exited()).code).toBe(0);
    expect(first.stderr()).toContain("put back in the queue");
    const done = await waitForStatus(store, runId, ["completed", "failed", "cancelled"]);
    // A graceful stop is not held against the run: the second worker's claim is its only one.
    expect(done).toMatchObject({ status: "completed", attempts: 1 });
    second.kill("SIGTERM");
    await second.exited();

    const { events, steps } = await stored(runId);
    const types = events.map((event) => event.type);
    const data = (i: number) => events[i]!.data as Record<string, unknown>;
    // One end, the real one, and learning once, after the run resumed: none from the stop.
    expect(types.filter((type) => type === "run_end")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "run_end", data: { status: "completed" } });
    const resumedAt = types.findIndex((type, i) => type === "run_start" && data(i).resumed === true);
    expect(resumedAt).toBeGreaterThan(0);
    expect(types.filter((type) => type === "learning")).toHaveLength(1);
    expect(types.indexOf("learning")).toBeGreaterThan(resumedAt);
    expect(steps.filter((step) => step.kind === "learning")).toHaveLength(1);
    // The call the first worker was inside: killed with it, not run again, reported interrupted.
    const results = events.filter((event) => event.type === "tool_result");
    expect(results.map((event) => event.data)).toEqual([
      expect.objectContaining({ ok: false, error: expect.objectContaining({ code: "tool_interrupted" }) }),
    ]);
    const chats = server.requests.filter((request) => request.protocol === "openai");
    expect(chats).toHaveLength(2);
    expect(toolMessagesOf(chats[1]!)).toEqual([expect.stringContaining("tool_interrupted")]);
    writeFileSync(join(ws.path, "go"), "");
    expect(linesOf("started.txt")).toEqual(["started"]);
    expect(linesOf("count.txt")).toEqual([]);
  }, 120_000);

  it("a worker frozen inside a transaction holds up no takeover: the run is taken over and completes, and the frozen worker writes nothing when it wakes", async () => {
    const { env, runId } = await queueSlowCommand();
    const first = startReson(["worker", "--log-format", "json"], { env, cwd: ws.path });
    await waitForFile(join(ws.path, "started.txt"));
    // Holding the run's lease row, the test makes the worker's next commit (the command's
    // result) wait inside its transaction; frozen there, the worker holds the row once the
    // test lets it go, in a transaction it cannot end.
    const blocker = new postgres.Client({ connectionString: url });
    await blocker.connect();
    const inFence = (state: string) =>
      querySql<{ pid: number }>(
        url,
        `SELECT pid FROM pg_stat_activity WHERE application_name = 'reson' AND state = '${state}'
           AND query LIKE 'UPDATE run_leases SET epoch = epoch %'`,
      );
    try {
      await blocker.query("BEGIN");
      await blocker.query("SELECT 1 FROM run_leases WHERE trace_id = $1 FOR UPDATE", [runId]);
      writeFileSync(join(ws.path, "go"), "");
      await until(async () => (await inFence("active")).length > 0);
      first.kill("SIGSTOP");
      await blocker.query("COMMIT");
    } finally {
      await blocker.end();
    }
    await until(async () => (await inFence("idle in transaction")).length > 0);
    const frozenAt = Date.now();
    // PostgreSQL ends the frozen transaction at the lease TTL (1.5 s here), not at a fixed 10 s:
    // its backend is gone well before 10 s (the server's own timer, not this test's load).
    await until(async () => (await inFence("idle in transaction")).length === 0);
    expect(Date.now() - frozenAt).toBeLessThan(8_000);

    const second = startReson(["worker", "--log-format", "json"], { env, cwd: ws.path });
    try {
      expect((await waitForStatus(store, runId, ["completed", "failed", "cancelled"])).status).toBe(
        "completed",
      );
    } finally {
      first.kill("SIGCONT");
    }
    second.kill("SIGTERM");
    await second.exited();
    // Its result was never committed: the model is told the call was interrupted.
    const chats = server.requests.filter((request) => request.protocol === "openai");
    expect(toolMessagesOf(chats.at(-1)!)).toEqual([expect.stringContaining("tool_interrupted")]);
    const before = await stored(runId);
    expect(before.events.at(-1)).toMatchObject({ type: "run_end", data: { status: "completed" } });
    await first.waitFor(/run lost/, 20_000);
    expect(await stored(runId)).toEqual(before);
  }, 120_000);
});

/** Resolves once `check` holds; fails after 20 s of asking (every 50 ms). */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 400; tries++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the awaited state never came");
}

/** SIGTERM to each process; each exits 0. */
async function stopsCleanly(...processes: ServiceProcess[]): Promise<void> {
  for (const process of processes) process.kill("SIGTERM");
  for (const process of processes) expect((await process.exited()).code).toBe(0);
}
