// The store contract, one suite for every backend: each backend's test file calls
// storeContract with a way to get a fresh, empty database, and must pass all of it.
import { type ChildProcess, spawn } from "node:child_process";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ResonError } from "../../src/core/errors.js";
import { ulid } from "../../src/core/ids.js";
import {
  type LeaseHolder,
  leaseHolder,
  type OpenStoreOptions,
  type Store,
  type WriteOp,
} from "../../src/store/index.js";
import { type BuiltStore, buildStore } from "./built-store.js";
import { artifact, OTHER_PROJECT, PROJECT, session, step, T0, trace, turn } from "./fixtures.js";

export interface StoreTarget {
  /** Opens a store on this database (each call a new connection to the same data). */
  open(options?: Pick<OpenStoreOptions, "redact" | "nativeVectors">): Promise<Store>;
  /** Runs SQL on the database directly, bypassing the store (`?` placeholders). */
  sql(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** The files the database lives in (SQLite), to scan their bytes; empty for a server. */
  files: string[];
  /** What a worker process passes to openStore to reach the same database. */
  openOptions: { home: string; databaseUrl?: string };
  /** The versions recorded in schema_migrations. */
  schemaVersions(): Promise<number[]>;
  /** Marks the database as written by a newer reson than this one. */
  pretendNewerSchema(): Promise<void>;
  /** Marks the database as written by an older reson, at `version`: later migrations run again. */
  rewindSchema(version: number): Promise<void>;
  /** "ok" when the database is sound. */
  integrity(): Promise<string>;
  cleanup(): Promise<void>;
}

export async function rejection(promise: Promise<unknown>): Promise<ResonError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ResonError);
    return error as ResonError;
  }
  throw new Error("expected a rejection");
}

export interface WorkerResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs append-worker.mjs; `onStdout` sees the output so far and the child (to kill it). */
export function runWorker(
  built: BuiltStore,
  job: Record<string, unknown>,
  options: { announce?: boolean; onStdout?: (stdout: string, child: ChildProcess) => void } = {},
): Promise<WorkerResult> {
  const args = [
    join(import.meta.dirname, "append-worker.mjs"),
    JSON.stringify({ storeModule: built.indexUrl, fixturesModule: built.fixturesUrl, ...job }),
    ...(options.announce ? ["--announce"] : []),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      options.onStdout?.(stdout, child);
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A store opened on a schema-1 database: its session is there and artifacts can be stored. */
export async function expectUpgraded(store: Store, sessionId: string, title: string): Promise<void> {
  expect((await store.sessions.get(sessionId))?.title).toBe(title);
  const t = trace(sessionId);
  const a = artifact(t.id, { content: "nul \u0000 survives" });
  await store.apply([
    { op: "insertTrace", trace: t },
    { op: "putArtifact", artifact: a },
  ]);
  expect(await store.artifacts.get(a.id)).toEqual(a);
}

const TRICKY_JSON = {
  zeta: "last key first",
  alpha: ["中文", "日本語", "한국어", "emoji 👩‍👩‍👧‍👦 🎉", "rtl עברית العربية"],
  nul: "before\u0000after",
  lone: "half a pair \ud800 here",
  control: 'tab\tnewline\nquote"backslash\\',
  numbers: [0, 1, -1, 0.1, 1e-7, 123456.789, 2 ** 53 - 1, -(2 ** 31)],
  nested: { deeper: { deepest: [null, true, false, {}, []] } },
  empty: "",
};

export function storeContract(fresh: () => Promise<StoreTarget>): void {
  let target: StoreTarget;
  let store: Store;

  beforeEach(async () => {
    target = await fresh();
    store = await target.open();
  });
  afterEach(async () => {
    await store.close();
    await target.cleanup();
  });

  /** A session and a trace of it in the store; the trace's id. */
  async function traceStored(): Promise<string> {
    const s = session();
    const t = trace(s.id);
    await store.apply([
      { op: "insertSession", session: s },
      { op: "insertTrace", trace: t },
    ]);
    return t.id;
  }

  describe("sessions", () => {
    it("a session reads back exactly as it was written; an unknown id is undefined", async () => {
      const s = session({
        settings: { provider: "ollama", model: "qwen3", baseUrl: "http://127.0.0.1:11434/v1" },
      });
      await store.apply([{ op: "insertSession", session: s }]);
      expect(await store.sessions.get(s.id)).toEqual(s);
      expect(await store.sessions.get(ulid())).toBeUndefined();
    });

    it("lists the most recently updated first, of one project or all, up to a limit", async () => {
      const a = session({ updatedAt: T0 + 1 });
      const b = session({ updatedAt: T0 + 3 });
      const c = session({ updatedAt: T0 + 2 });
      const other = session({ projectKey: OTHER_PROJECT, updatedAt: T0 + 4 });
      await store.apply([a, b, c, other].map((s): WriteOp => ({ op: "insertSession", session: s })));
      expect((await store.sessions.list()).map((s) => s.id)).toEqual([other.id, b.id, c.id, a.id]);
      expect((await store.sessions.list({ projectKey: PROJECT })).map((s) => s.id)).toEqual([
        b.id,
        c.id,
        a.id,
      ]);
      expect((await store.sessions.list({ projectKey: PROJECT, limit: 2 })).map((s) => s.id)).toEqual([
        b.id,
        c.id,
      ]);
      expect(await store.sessions.list({ projectKey: "c".repeat(64) })).toEqual([]);
      expect((await rejection(store.sessions.list({ limit: -1 }))).code).toBe("usage_error");
      expect((await rejection(store.turns.list(a.id, { limit: 1.5 }))).code).toBe("usage_error");
    });

    it("latest is the most recently updated session of the project", async () => {
      const older = session({ updatedAt: T0 });
      const newer = session({ updatedAt: T0 + 5 });
      await store.apply([
        { op: "insertSession", session: older },
        { op: "insertSession", session: newer },
        { op: "insertSession", session: session({ projectKey: OTHER_PROJECT, updatedAt: T0 + 9 }) },
      ]);
      expect((await store.sessions.latest(PROJECT))?.id).toBe(newer.id);
      await store.apply([{ op: "updateSession", id: older.id, patch: { updatedAt: T0 + 10 } }]);
      expect((await store.sessions.latest(PROJECT))?.id).toBe(older.id);
      expect(await store.sessions.latest("d".repeat(64))).toBeUndefined();
    });

    it("updateSession changes the patched fields and nothing else", async () => {
      const s = session();
      await store.apply([{ op: "insertSession", session: s }]);
      const usage = { input: 10, output: 5, cacheRead: 1, cacheWrite: 2, totalTokens: 18, costUsd: 0.00123 };
      const lastTraceId = ulid();
      await store.apply([
        {
          op: "updateSession",
          id: s.id,
          patch: { title: "renamed", status: "completed", usage, lastTraceId, updatedAt: T0 + 7 },
        },
      ]);
      expect(await store.sessions.get(s.id)).toEqual({
        ...s,
        title: "renamed",
        status: "completed",
        usage,
        lastTraceId,
        updatedAt: T0 + 7,
      });
    });

    it("updating a session that does not exist fails with not_found and stores nothing of the batch", async () => {
      const s = session();
      const error = await rejection(
        store.apply([
          { op: "insertSession", session: s },
          { op: "updateSession", id: ulid(), patch: { title: "x" } },
        ]),
      );
      expect(error.code).toBe("not_found");
      expect(error.message).toContain("updateSession (operation 2 of 2)");
      expect(await store.sessions.get(s.id)).toBeUndefined();
    });
  });

  describe("turns", () => {
    it("come back in seq order, after a given seq and up to a limit", async () => {
      const s = session();
      await store.apply([{ op: "insertSession", session: s }]);
      for (const seq of [0, 2, 1]) await store.apply([{ op: "appendTurn", turn: turn(s.id, seq) }]);
      await store.apply([
        { op: "appendTurn", turn: turn(s.id, 4) },
        { op: "appendTurn", turn: turn(s.id, 3) },
      ]);
      const seqs = async (options?: { afterSeq?: number; limit?: number }) =>
        (await store.turns.list(s.id, options)).map((t) => t.seq);
      expect(await seqs()).toEqual([0, 1, 2, 3, 4]);
      expect(await seqs({ afterSeq: 1 })).toEqual([2, 3, 4]);
      expect(await seqs({ limit: 2 })).toEqual([0, 1]);
      expect(await seqs({ afterSeq: 2, limit: 1 })).toEqual([3]);
      expect(await store.turns.list(ulid())).toEqual([]);
    });

    it("nextSeq is 0 for a session without turns and one past the last turn", async () => {
      const s = session();
      await store.apply([{ op: "insertSession", session: s }]);
      expect(await store.turns.nextSeq(s.id)).toBe(0);
      await store.apply([{ op: "appendTurn", turn: turn(s.id, 0) }]);
      await store.apply([{ op: "appendTurn", turn: turn(s.id, 1) }]);
      expect(await store.turns.nextSeq(s.id)).toBe(2);
    });

    it("a turn is never stored twice: a second turn with the same seq is refused", async () => {
      const s = session();
      const first = turn(s.id, 0, { content: { role: "user", content: "the original" } });
      await store.apply([
        { op: "insertSession", session: s },
        { op: "appendTurn", turn: first },
      ]);
      const error = await rejection(store.apply([{ op: "appendTurn", turn: turn(s.id, 0) }]));
      expect(error.code).toBe("store_conflict");
      expect(error.message).toContain(`turn 0 of session ${s.id} is already stored`);
      expect(error.details).toMatchObject({ op: "appendTurn", index: 0 });
      expect(await store.turns.list(s.id)).toEqual([first]);
    });

    it("keeps the envelope as metadata and gives it back as it was; null stays null", async () => {
      const s = session();
      const envelope = {
        receivedAt: T0 + 42,
        channel: "telegram",
        chatType: "group" as const,
        chatId: "-100123",
        messageId: "m-7",
        senderId: "u-1",
        senderName: "Zoë 🚀",
        roleLabel: "owner",
      };
      const withEnvelope = turn(s.id, 0, { role: "user", envelope });
      const without = turn(s.id, 1, { role: "assistant", envelope: null });
      await store.apply([
        { op: "insertSession", session: s },
        { op: "appendTurn", turn: withEnvelope },
        { op: "appendTurn", turn: without },
      ]);
      expect(await store.turns.list(s.id)).toEqual([withEnvelope, without]);
    });

    it("a turn of a session that does not exist is refused with not_found", async () => {
      const error = await rejection(store.apply([{ op: "appendTurn", turn: turn(ulid(), 0) }]));
      expect(error.code).toBe("not_found");
    });
  });

  describe("traces, steps and checkpoints", () => {
    it("traces read back; a session's are listed oldest first; children are its sub-agent runs", async () => {
      const s = session();
      const first = trace(s.id, { startedAt: T0 });
      const second = trace(s.id, {
        startedAt: T0 + 10,
        preset: "explore",
        baseUrl: "http://127.0.0.1:8080/v1",
      });
      const child = trace(s.id, { parentTraceId: first.id, startedAt: T0 + 5, task: "explore the tests" });
      await store.apply([
        { op: "insertSession", session: s },
        { op: "insertTrace", trace: second },
        { op: "insertTrace", trace: first },
        { op: "insertTrace", trace: child },
      ]);
      expect(await store.traces.get(second.id)).toEqual(second);
      expect(await store.traces.get(ulid())).toBeUndefined();
      expect((await store.traces.listBySession(s.id)).map((t) => t.id)).toEqual([
        first.id,
        child.id,
        second.id,
      ]);
      expect(await store.traces.children(first.id)).toEqual([child]);
      expect(await store.traces.children(second.id)).toEqual([]);
    });

    it("updateTrace records how a run ended", async () => {
      const s = session();
      const t = trace(s.id);
      await store.apply([
        { op: "insertSession", session: s },
        { op: "insertTrace", trace: t },
      ]);
      const error = {
        code: "provider_timeout" as const,
        message: "no answer in 60 s",
        hint: "retry",
        details: { attempt: 3 },
      };
      const usage = {
        input: 1200,
        output: 300,
        cacheRead: 800,
        cacheWrite: 0,
        totalTokens: 1500,
        costUsd: 0.0042,
      };
      await store.apply([
        {
          op: "updateTrace",
          id: t.id,
          patch: { status: "failed", error, usage, steps: 4, endedAt: T0 + 99, updatedAt: T0 + 99 },
        },
      ]);
      expect(await store.traces.get(t.id)).toEqual({
        ...t,
        status: "failed",
        error,
        usage,
        steps: 4,
        endedAt: T0 + 99,
        updatedAt: T0 + 99,
      });
    });

    it("steps come back in seq order; updateStep changes status and data", async () => {
      const s = session();
      const t = trace(s.id);
      const call = step(t.id, 0);
      const tool = step(t.id, 1, {
        kind: "tool_call",
        parentId: call.id,
        status: "running",
        data: { tool: "grep" },
      });
      const next = step(t.id, 2);
      await store.apply([
        { op: "insertSession", session: s },
        { op: "insertTrace", trace: t },
        { op: "insertStep", step: next },
        { op: "insertStep", step: call },
        { op: "insertStep", step: tool },
      ]);
      await store.apply([
        {
          op: "updateStep",
          id: tool.id,
          patch: { status: "done", data: { tool: "grep", result: "3 matches" }, updatedAt: T0 + 8 },
        },
      ]);
      expect(await store.steps.list(t.id)).toEqual([
        call,
        { ...tool, status: "done", data: { tool: "grep", result: "3 matches" }, updatedAt: T0 + 8 },
        next,
      ]);
      expect(await store.steps.list(ulid())).toEqual([]);
    });

    it("steps, checkpoints and traces that point at nothing are refused; updates of missing records too", async () => {
      const s = session();
      await store.apply([{ op: "insertSession", session: s }]);
      expect((await rejection(store.apply([{ op: "insertStep", step: step(ulid(), 0) }]))).code).toBe(
        "not_found",
      );
      expect(
        (
          await rejection(
            store.apply([
              { op: "putCheckpoint", checkpoint: { traceId: ulid(), step: 0, state: {}, updatedAt: T0 } },
            ]),
          )
        ).code,
      ).toBe("not_found");
      expect((await rejection(store.apply([{ op: "insertTrace", trace: trace(ulid()) }]))).code).toBe(
        "not_found",
      );
      expect(
        (await rejection(store.apply([{ op: "insertTrace", trace: trace(s.id, { parentTraceId: ulid() }) }])))
          .code,
      ).toBe("not_found");
      expect(
        (await rejection(store.apply([{ op: "updateTrace", id: ulid(), patch: { steps: 1 } }]))).code,
      ).toBe("not_found");
      expect(
        (await rejection(store.apply([{ op: "updateStep", id: ulid(), patch: { status: "done" } }]))).code,
      ).toBe("not_found");
    });

    it("putCheckpoint keeps one checkpoint per trace, the latest", async () => {
      const s = session();
      const t = trace(s.id);
      await store.apply([
        { op: "insertSession", session: s },
        { op: "insertTrace", trace: t },
        {
          op: "putCheckpoint",
          checkpoint: { traceId: t.id, step: 1, state: { messages: 3 }, updatedAt: T0 + 1 },
        },
      ]);
      const latest = {
        traceId: t.id,
        step: 2,
        state: { messages: 5, goal: "tests pass" },
        updatedAt: T0 + 2,
      };
      await store.apply([{ op: "putCheckpoint", checkpoint: latest }]);
      expect(await store.checkpoints.get(t.id)).toEqual(latest);
      expect(await store.checkpoints.get(ulid())).toBeUndefined();
    });
  });

  describe("artifacts", () => {
    it("an artifact reads back exactly, odd characters and all; an unknown id is undefined", async () => {
      const traceId = await traceStored();
      const content = `${JSON.stringify(TRICKY_JSON)}\nnul \u0000 here\n中文 😀 \ud800 lone\r\n`;
      const a = artifact(traceId, { content, toolCallId: "call-9", name: "grep", createdAt: T0 + 3 });
      await store.apply([{ op: "putArtifact", artifact: a }]);
      expect(await store.artifacts.get(a.id)).toEqual(a);
      expect(await store.artifacts.get(ulid())).toBeUndefined();
      expect(await store.artifacts.read(ulid(), 1, 10)).toBeUndefined();
    });

    it("read pages through the lines from a 1-based offset, with the total line count", async () => {
      const traceId = await traceStored();
      const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
      const a = artifact(traceId, { content: `${lines.join("\n")}\n` });
      await store.apply([{ op: "putArtifact", artifact: a }]);
      expect(await store.artifacts.read(a.id, 1, 3)).toEqual({
        text: "line 1\nline 2\nline 3",
        totalLines: 10,
      });
      expect(await store.artifacts.read(a.id, 9, 5)).toEqual({ text: "line 9\nline 10", totalLines: 10 });
      expect(await store.artifacts.read(a.id, 11, 5)).toEqual({ text: "", totalLines: 10 });
      expect((await rejection(store.artifacts.read(a.id, 0, 5))).code).toBe("usage_error");
      expect((await rejection(store.artifacts.read(a.id, 1, 1.5))).code).toBe("usage_error");

      const blank = artifact(traceId, { content: "a\n\nb\n\n" });
      const empty = artifact(traceId, { content: "" });
      await store.apply([
        { op: "putArtifact", artifact: blank },
        { op: "putArtifact", artifact: empty },
      ]);
      expect(await store.artifacts.read(blank.id, 1, 2)).toEqual({ text: "a\n", totalLines: 4 });
      expect(await store.artifacts.read(blank.id, 4, 1)).toEqual({ text: "", totalLines: 4 });
      expect(await store.artifacts.read(empty.id, 1, 1)).toEqual({ text: "", totalLines: 0 });
    });

    it("putArtifact of the same id replaces it; of a missing trace or a wrong size is refused", async () => {
      const traceId = await traceStored();
      const first = artifact(traceId);
      await store.apply([{ op: "putArtifact", artifact: first }]);
      const again = artifact(traceId, { id: first.id, content: "replaced" });
      await store.apply([{ op: "putArtifact", artifact: again }]);
      expect(await store.artifacts.get(first.id)).toEqual(again);

      const orphan = await rejection(store.apply([{ op: "putArtifact", artifact: artifact(ulid()) }]));
      expect(orphan.code).toBe("not_found");
      expect(orphan.message).toContain("putArtifact (operation 1 of 1)");
      const wrong = artifact(traceId, { content: "four", chars: 5 });
      const error = await rejection(store.apply([{ op: "putArtifact", artifact: wrong }]));
      expect(error.code).toBe("internal_error");
      expect(await store.artifacts.get(wrong.id)).toBeUndefined();
    });

    it("a 2 MB artifact round-trips and its last page reads", async () => {
      const traceId = await traceStored();
      const line = 'output with 中文, 😀, "quotes" and \\ backslashes';
      const count = Math.ceil(2_000_000 / (line.length + 1));
      const a = artifact(traceId, {
        content: Array.from({ length: count }, (_, i) => `${i + 1} ${line}`).join("\n"),
      });
      await store.apply([{ op: "putArtifact", artifact: a }]);
      expect((await store.artifacts.get(a.id))?.content).toBe(a.content);
      expect(await store.artifacts.read(a.id, count, 10)).toEqual({
        text: `${count} ${line}`,
        totalLines: count,
      });
    });
  });

  describe("tool statistics", () => {
    it("add up calls, successes, failures and time per project and tool", async () => {
      const call = (
        tool: string,
        ok: boolean,
        durationMs: number,
        at: number,
        projectKey = PROJECT,
      ): WriteOp => ({
        op: "recordToolCall",
        projectKey,
        tool,
        ok,
        durationMs,
        at,
      });
      await store.apply([call("read_file", true, 12.4, T0 + 1), call("grep", false, 30, T0 + 2)]);
      await store.apply([call("read_file", false, 7.6, T0 + 5), call("read_file", true, 5, T0 + 3)]);
      await store.apply([call("read_file", true, 1, T0 + 9, OTHER_PROJECT)]);
      expect(await store.toolStats.list(PROJECT)).toEqual([
        {
          projectKey: PROJECT,
          tool: "grep",
          calls: 1,
          successes: 0,
          failures: 1,
          failuresByCode: { unknown: 1 },
          totalDurationMs: 30,
          p50Ms: 30,
          p95Ms: 30,
          lastCallAt: T0 + 2,
        },
        {
          projectKey: PROJECT,
          tool: "read_file",
          calls: 3,
          successes: 2,
          failures: 1,
          failuresByCode: { unknown: 1 },
          totalDurationMs: 12 + 8 + 5,
          p50Ms: 8,
          p95Ms: 12,
          lastCallAt: T0 + 5,
        },
      ]);
      expect(await store.toolStats.list(OTHER_PROJECT)).toHaveLength(1);
      expect(await store.toolStats.list("e".repeat(64))).toEqual([]);
    });

    const recorded = (
      tool: string,
      ok: boolean,
      durationMs: number,
      errorCode?: string,
      projectKey = PROJECT,
    ): WriteOp => ({
      op: "recordToolCall",
      projectKey,
      tool,
      ok,
      durationMs,
      at: T0,
      ...(errorCode === undefined ? {} : { errorCode }),
    });

    it("count failures by error code, per project and tool; a success's code is ignored", async () => {
      await store.apply([
        recorded("execute_command", false, 5, "tool_failed"),
        recorded("execute_command", false, 5, "timeout"),
        recorded("execute_command", true, 5, "tool_failed"),
        recorded("grep", false, 5, "invalid_arguments"),
      ]);
      await store.apply([
        recorded("execute_command", false, 5, "tool_failed"),
        recorded("execute_command", false, 5),
        recorded("execute_command", false, 5, "tool_failed", OTHER_PROJECT),
      ]);
      const stats = await store.toolStats.list(PROJECT);
      expect(stats.map((s) => [s.tool, s.calls, s.failures, s.failuresByCode])).toEqual([
        ["execute_command", 5, 4, { tool_failed: 2, timeout: 1, unknown: 1 }],
        ["grep", 1, 1, { invalid_arguments: 1 }],
      ]);
      expect((await store.toolStats.list(OTHER_PROJECT))[0]?.failuresByCode).toEqual({ tool_failed: 1 });
    });

    it("give p50 and p95 by nearest rank over a known distribution, in any recording order", async () => {
      // 1..100 ms, shuffled deterministically, over several batches.
      const durations = Array.from({ length: 100 }, (_, i) => ((i * 37) % 100) + 1);
      for (let i = 0; i < durations.length; i += 25) {
        await store.apply(durations.slice(i, i + 25).map((d) => recorded("grep", true, d)));
      }
      await store.apply([recorded("glob", true, 7), recorded("grep", true, 1, undefined, OTHER_PROJECT)]);
      const [glob, grep] = await store.toolStats.list(PROJECT);
      expect(grep).toMatchObject({ calls: 100, totalDurationMs: 5050, p50Ms: 50, p95Ms: 95 });
      expect(glob).toMatchObject({ calls: 1, p50Ms: 7, p95Ms: 7 });
    });

    it("compute percentiles over the last 200 calls only, while the counters keep everything", async () => {
      // 50 slow calls first, then 200 of 1..200 ms: the slow ones fall out of the window.
      await store.apply(Array.from({ length: 50 }, () => recorded("execute_command", true, 60_000)));
      for (let i = 0; i < 200; i += 50) {
        await store.apply(Array.from({ length: 50 }, (_, j) => recorded("execute_command", true, i + j + 1)));
      }
      const [stats] = await store.toolStats.list(PROJECT);
      expect(stats).toMatchObject({
        calls: 250,
        totalDurationMs: 50 * 60_000 + 20_100,
        p50Ms: 100,
        p95Ms: 190,
      });
    });
  });

  describe("batches", () => {
    it("are all or nothing: when one operation fails, nothing of the batch is stored", async () => {
      const s = session();
      const t = trace(s.id);
      const error = await rejection(
        store.apply([
          { op: "insertSession", session: s },
          { op: "appendTurn", turn: turn(s.id, 0) },
          { op: "insertTrace", trace: t },
          { op: "insertStep", step: step(t.id, 0) },
          { op: "putCheckpoint", checkpoint: { traceId: t.id, step: 0, state: {}, updatedAt: T0 } },
          { op: "recordToolCall", projectKey: PROJECT, tool: "grep", ok: true, durationMs: 1, at: T0 },
          { op: "putArtifact", artifact: artifact(t.id, { id: "01ARTIFACT00000000000000000" }) },
          { op: "appendTurn", turn: turn(s.id, 0) },
        ]),
      );
      expect(error.code).toBe("store_conflict");
      expect(error.message).toContain("appendTurn (operation 8 of 8)");
      expect(error.hint).toContain("Nothing of this batch was stored");
      expect(await store.sessions.get(s.id)).toBeUndefined();
      expect(await store.turns.list(s.id)).toEqual([]);
      expect(await store.traces.get(t.id)).toBeUndefined();
      expect(await store.steps.list(t.id)).toEqual([]);
      expect(await store.checkpoints.get(t.id)).toBeUndefined();
      expect(await store.toolStats.list(PROJECT)).toEqual([]);
      expect(await store.artifacts.get("01ARTIFACT00000000000000000")).toBeUndefined();
    });

    it("an empty batch and an empty patch change nothing", async () => {
      const s = session();
      await store.apply([{ op: "insertSession", session: s }]);
      await store.apply([]);
      await store.apply([{ op: "updateSession", id: s.id, patch: {} }]);
      expect(await store.sessions.get(s.id)).toEqual(s);
    });

    it("a record that does not fit its type is refused before anything is written", async () => {
      const s = session();
      const error = await rejection(
        store.apply([
          { op: "insertSession", session: s },
          { op: "appendTurn", turn: turn(s.id, 1.5) },
        ]),
      );
      expect(error.code).toBe("internal_error");
      expect(error.message).toContain("turns.seq");
      expect(await store.sessions.get(s.id)).toBeUndefined();
    });
  });

  describe("JSON columns", () => {
    it("content, data and state come back with the same text: key order, unicode, \\u0000, lone surrogates", async () => {
      const s = session({ title: "标题 with emoji 🧪" });
      const t = trace(s.id, { task: "überprüfe die Tests — 检查测试" });
      const tu = turn(s.id, 0, { content: TRICKY_JSON });
      const st = step(t.id, 0, { data: { ...TRICKY_JSON, list: [TRICKY_JSON] } });
      const checkpoint = { traceId: t.id, step: 0, state: { b: TRICKY_JSON, a: 1 }, updatedAt: T0 };
      await store.apply([
        { op: "insertSession", session: s },
        { op: "insertTrace", trace: t },
        { op: "appendTurn", turn: tu },
        { op: "insertStep", step: st },
        { op: "putCheckpoint", checkpoint },
      ]);
      const [readTurn] = await store.turns.list(s.id);
      const [readStep] = await store.steps.list(t.id);
      const readCheckpoint = await store.checkpoints.get(t.id);
      expect(JSON.stringify(readTurn?.content)).toBe(JSON.stringify(tu.content));
      expect(JSON.stringify(readStep?.data)).toBe(JSON.stringify(st.data));
      expect(JSON.stringify(readCheckpoint?.state)).toBe(JSON.stringify(checkpoint.state));
      expect(readTurn).toEqual(tu);
      expect((await store.sessions.get(s.id))?.title).toBe(s.title);
      expect((await store.traces.get(t.id))?.task).toBe(t.task);
    });

    it("usage, error, settings and envelope round-trip; scalars and arrays are JSON too", async () => {
      const s = session({
        settings: {
          provider: "anthropic",
          model: "claude-test",
          baseUrl: "https://example.invalid/v1?x=1&y=ü",
        },
        usage: {
          input: 123456789,
          output: 1,
          cacheRead: 0,
          cacheWrite: 7,
          totalTokens: 123456797,
          costUsd: 12.3456789,
        },
      });
      const t = trace(s.id, {
        status: "failed",
        error: {
          code: "tool_failed",
          message: "💥 exploded",
          details: { stack: ["a", "b"], nested: { x: null } },
        },
        endedAt: T0 + 1,
      });
      const turns = [null, true, 42, "just a string", [1, "two", { three: 3 }]].map((content, seq) =>
        turn(s.id, seq, { content }),
      );
      await store.apply([
        { op: "insertSession", session: s },
        { op: "insertTrace", trace: t },
        ...turns.map((tu): WriteOp => ({ op: "appendTurn", turn: tu })),
      ]);
      expect(await store.sessions.get(s.id)).toEqual(s);
      expect(await store.traces.get(t.id)).toEqual(t);
      expect(await store.turns.list(s.id)).toEqual(turns);
    });

    it("a large content (2 MB of mixed text) round-trips", async () => {
      const s = session();
      const chunk = 'line with 中文 and 😀 and "quotes" and \\ backslashes\n';
      const big = {
        role: "toolResult",
        content: [{ type: "text", text: chunk.repeat(Math.ceil(2_000_000 / chunk.length)) }],
      };
      const tu = turn(s.id, 0, { role: "toolResult", content: big });
      await store.apply([
        { op: "insertSession", session: s },
        { op: "appendTurn", turn: tu },
      ]);
      const [read] = await store.turns.list(s.id);
      expect(JSON.stringify(read?.content)).toBe(JSON.stringify(big));
    });
  });

  describe("ids", () => {
    async function sessionAndTraceSharingTime() {
      const time = T0 + 123_456;
      const s = session({ id: ulid(time), title: "the session" });
      const t = trace(s.id, { id: ulid(time), task: "the trace" });
      await store.apply([
        { op: "insertSession", session: s },
        { op: "insertTrace", trace: t },
      ]);
      return { s, t };
    }

    it("a unique prefix names a session or a trace, in any case", async () => {
      const { s, t } = await sessionAndTraceSharingTime();
      expect(await store.resolveId(s.id.slice(0, 16))).toEqual({ kind: "session", session: s });
      expect(await store.resolveId(t.id.slice(0, 16).toLowerCase())).toEqual({ kind: "trace", trace: t });
      expect(await store.resolveId(t.id)).toEqual({ kind: "trace", trace: t });
      expect(await store.resolveId(` ${s.id.toLowerCase()} `)).toEqual({ kind: "session", session: s });
    });

    it("reads O as 0 and I or L as 1, as Crockford's base32 does", async () => {
      const { s, t } = await sessionAndTraceSharingTime();
      // At least 12 characters, and one past what the two ids share (their random parts may
      // start alike), so the prefix names the session alone.
      let shared = 0;
      while (s.id[shared] === t.id[shared]) shared++;
      const typed = s.id
        .slice(0, Math.max(12, shared + 1))
        .replace(/0/g, "o")
        .replace(/1/g, "l");
      expect(await store.resolveId(typed)).toEqual({ kind: "session", session: s });
    });

    it("an ambiguous prefix is refused with every candidate listed", async () => {
      const { s, t } = await sessionAndTraceSharingTime();
      const error = await rejection(store.resolveId(s.id.slice(0, 10)));
      expect(error.code).toBe("ambiguous_id");
      expect(error.message).toContain(`session ${s.id}`);
      expect(error.message).toContain(`trace ${t.id}`);
      expect(error.hint).toMatch(/more characters/);
      expect(error.details?.candidates).toEqual([
        { kind: "session", id: s.id, label: "the session" },
        { kind: "trace", id: t.id, label: "the trace" },
      ]);
    });

    it("a prefix nothing starts with is not_found; a short or foreign one is a usage error", async () => {
      const { s } = await sessionAndTraceSharingTime();
      const missing = s.id.startsWith("7") ? "6ZZZZZ" : "7ZZZZZ";
      expect((await rejection(store.resolveId(missing))).code).toBe("not_found");
      expect((await rejection(store.resolveId(s.id.slice(0, 3)))).code).toBe("usage_error");
      expect((await rejection(store.resolveId("01K-Z!"))).code).toBe("usage_error");
      expect((await rejection(store.resolveId(`${s.id}0`))).code).toBe("usage_error");
    });
  });

  describe("gc", () => {
    it("deletes old finished traces with their steps and checkpoints, and old sessions left empty", async () => {
      const cutoff = T0 + 1_000;
      const old = session({ updatedAt: T0 + 10 });
      const oldTrace = trace(old.id, { status: "completed", endedAt: T0 + 10 });
      const mixed = session({ updatedAt: T0 + 5_000 });
      const mixedOld = trace(mixed.id, { status: "failed", endedAt: T0 + 20, startedAt: T0 });
      const mixedChild = trace(mixed.id, {
        parentTraceId: mixedOld.id,
        status: "completed",
        startedAt: T0 + 1,
        endedAt: T0 + 2_000,
      });
      const mixedNew = trace(mixed.id, { status: "completed", startedAt: T0 + 3_000, endedAt: T0 + 4_000 });
      const running = session({ updatedAt: T0 });
      const runningTrace = trace(running.id, { status: "running", startedAt: T0, endedAt: null });
      const empty = session({ updatedAt: T0 });
      const recentEmpty = session({ updatedAt: T0 + 2_000 });
      // Two of the old trace, one of the old failed one: gone; of running and recent traces: kept.
      const artifacts = [oldTrace, oldTrace, mixedOld, runningTrace, mixedNew].map((t) => artifact(t.id));
      await store.apply([
        ...[old, mixed, running, empty, recentEmpty].map(
          (s): WriteOp => ({ op: "insertSession", session: s }),
        ),
        ...[oldTrace, mixedOld, mixedChild, mixedNew, runningTrace].map(
          (t): WriteOp => ({ op: "insertTrace", trace: t }),
        ),
        { op: "updateSession", id: mixed.id, patch: { lastTraceId: mixedOld.id } },
        ...[0, 1, 2].map((seq): WriteOp => ({ op: "insertStep", step: step(oldTrace.id, seq) })),
        ...[0, 1].map((seq): WriteOp => ({ op: "insertStep", step: step(mixedOld.id, seq) })),
        ...[0, 1].map((seq): WriteOp => ({ op: "insertStep", step: step(runningTrace.id, seq) })),
        { op: "insertStep", step: step(mixedNew.id, 0) },
        ...[oldTrace, mixedOld, runningTrace, mixedNew].map(
          (t): WriteOp => ({
            op: "putCheckpoint",
            checkpoint: { traceId: t.id, step: 1, state: {}, updatedAt: T0 },
          }),
        ),
        ...[0, 1].map((seq): WriteOp => ({ op: "appendTurn", turn: turn(old.id, seq) })),
        ...[0, 1, 2].map((seq): WriteOp => ({ op: "appendTurn", turn: turn(mixed.id, seq) })),
        { op: "appendTurn", turn: turn(empty.id, 0) },
        { op: "appendTurn", turn: turn(running.id, 0) },
        ...artifacts.map((a): WriteOp => ({ op: "putArtifact", artifact: a })),
      ]);

      const removed = {
        sessions: 2,
        traces: 2,
        steps: 5,
        checkpoints: 2,
        artifacts: 3,
        turns: 3,
        channelMessages: 0,
      };
      // The preview counts exactly what gc then removes, and removes nothing itself.
      expect(await store.gcPreview(cutoff)).toEqual(removed);
      expect(await store.sessions.get(old.id)).toEqual(old);
      expect(await store.steps.list(oldTrace.id)).toHaveLength(3);
      expect(await store.gc(cutoff)).toEqual(removed);

      expect(await store.sessions.get(old.id)).toBeUndefined();
      expect(await store.sessions.get(empty.id)).toBeUndefined();
      expect(await store.turns.list(old.id)).toEqual([]);
      expect(await store.traces.get(oldTrace.id)).toBeUndefined();
      expect(await store.steps.list(oldTrace.id)).toEqual([]);
      expect(await store.checkpoints.get(oldTrace.id)).toBeUndefined();

      expect((await store.traces.listBySession(mixed.id)).map((t) => t.id)).toEqual([
        mixedChild.id,
        mixedNew.id,
      ]);
      expect((await store.traces.get(mixedChild.id))?.parentTraceId).toBeNull();
      expect((await store.sessions.get(mixed.id))?.lastTraceId).toBe(mixedNew.id);
      expect(await store.turns.list(mixed.id)).toHaveLength(3);
      expect(await store.steps.list(mixedNew.id)).toHaveLength(1);

      expect(await store.traces.get(runningTrace.id)).toEqual(runningTrace);
      expect(await store.steps.list(runningTrace.id)).toHaveLength(2);
      expect(await store.checkpoints.get(runningTrace.id)).toBeDefined();
      expect(await store.turns.list(running.id)).toHaveLength(1);
      expect(await store.sessions.get(recentEmpty.id)).toEqual(recentEmpty);
      for (const [index, a] of artifacts.entries()) {
        expect(await store.artifacts.get(a.id)).toEqual(index < 3 ? undefined : a);
      }

      const nothing = {
        sessions: 0,
        traces: 0,
        steps: 0,
        checkpoints: 0,
        artifacts: 0,
        turns: 0,
        channelMessages: 0,
      };
      expect(await store.gcPreview(cutoff)).toEqual(nothing);
      expect(await store.gc(cutoff)).toEqual(nothing);
    });
  });

  describe("the database", () => {
    it("has a size in bytes", async () => {
      const s = session();
      await store.apply([
        { op: "insertSession", session: s },
        { op: "appendTurn", turn: turn(s.id, 0) },
      ]);
      expect(await store.sizeBytes()).toBeGreaterThan(0);
    });

    it("keeps its data across a reopen, and two stores on it see each other's writes", async () => {
      const s = session();
      await store.apply([
        { op: "insertSession", session: s },
        { op: "appendTurn", turn: turn(s.id, 0) },
      ]);
      const second = await target.open();
      try {
        expect(await second.sessions.get(s.id)).toEqual(s);
        await second.apply([{ op: "appendTurn", turn: turn(s.id, 1) }]);
        expect(await store.turns.nextSeq(s.id)).toBe(2);
      } finally {
        await second.close();
      }
      await store.close();
      store = await target.open();
      expect(await store.turns.list(s.id)).toHaveLength(2);
    });

    it("opening an up-to-date database again applies no migration", async () => {
      const versions = await target.schemaVersions();
      expect(versions.length).toBeGreaterThan(0);
      const s = session();
      await store.apply([{ op: "insertSession", session: s }]);
      const again = await target.open();
      await again.close();
      expect(await target.schemaVersions()).toEqual(versions);
      expect(await store.sessions.get(s.id)).toEqual(s);
    });

    it("a database written by a newer reson is refused with a clear error", async () => {
      await target.pretendNewerSchema();
      const error = await rejection(target.open());
      expect(error.code).toBe("store_unavailable");
      expect(error.message).toMatch(/schema version 999, newer than this reson knows/);
      expect(error.hint).toMatch(/Upgrade reson/);
    });

    it("says whether it can store vectors, and refuses use once closed", async () => {
      expect(typeof store.features?.vector).toBe("boolean");
      await store.close();
      expect((await rejection(store.sessions.list())).code).toBe("store_unavailable");
      expect((await rejection(store.apply([{ op: "insertSession", session: session() }]))).code).toBe(
        "store_unavailable",
      );
      await store.close();
    });
  });

  describe("run leases", () => {
    const other = (role = "worker", host = "elsewhere.invalid"): LeaseHolder => ({
      id: `${host}:4242:${ulid().slice(-6)}`,
      host,
      pid: 4242,
      role,
    });
    const LONG = { ttlMs: 60_000 };
    const expire = () => new Promise((r) => setTimeout(r, 30));
    /** The pid of a process of this host that has exited. */
    async function deadPid(): Promise<number> {
      const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
      await new Promise((r) => child.once("exit", r));
      return child.pid!;
    }

    it("a run's first acquire gets epoch 1 for its holder, and reads back as held", async () => {
      const traceId = ulid();
      expect(await store.leases.get(traceId)).toBeUndefined();
      const holder = leaseHolder("reson run");
      expect(holder).toMatchObject({ host: hostname(), pid: process.pid, role: "reson run" });
      const lease = await store.leases.acquire(traceId, holder, LONG);
      expect(lease).toMatchObject({ traceId, epoch: 1, holder, state: "held", releasedAt: null });
      expect(lease.expiresAt - lease.acquiredAt).toBe(60_000);
      expect(lease.renewedAt).toBe(lease.acquiredAt);
      expect(await store.leases.get(traceId)).toEqual(lease);
      expect((await store.leases.listHeld()).map((l) => l.traceId)).toEqual([traceId]);
    });

    it("a held lease is refused to anyone else, naming its holder and since when; force does not take it", async () => {
      const traceId = ulid();
      const holder = other("reson resume");
      await store.leases.acquire(traceId, holder, LONG);
      const refused = await rejection(store.leases.acquire(traceId, leaseHolder("reson resume"), LONG));
      expect(refused.code).toBe("run_leased");
      expect(refused.message).toContain(
        `Run ${traceId} is held by reson resume (pid 4242 on elsewhere.invalid) since`,
      );
      expect(refused.message).toMatch(/ago/);
      expect(refused.hint).toMatch(/--force/);
      expect(refused.details).toMatchObject({ traceId, epoch: 1, holder, state: "held" });
      const forced = await rejection(
        store.leases.acquire(traceId, leaseHolder("x"), { ...LONG, force: true }),
      );
      expect(forced.code).toBe("run_leased");
      expect(forced.message).toContain("--force only takes over a lease that has expired");
      // Another holder in this very process is alive too.
      const mine = ulid();
      await store.leases.acquire(mine, leaseHolder("reson run"), LONG);
      expect((await rejection(store.leases.acquire(mine, leaseHolder("reson run"), LONG))).code).toBe(
        "run_leased",
      );
      expect((await store.leases.get(traceId))?.epoch).toBe(1);
    });

    it("renew extends the lease; after a release the next acquire bumps the epoch, and the old epoch does nothing", async () => {
      const traceId = ulid();
      const first = await store.leases.acquire(traceId, leaseHolder("reson run"), { ttlMs: 1_000 });
      const fence = { traceId, epoch: first.epoch };
      const renewed = await store.leases.renew(fence, 60_000);
      expect(renewed).toMatchObject({ epoch: 1, state: "held" });
      expect(renewed!.expiresAt).toBeGreaterThan(first.expiresAt);
      expect(await store.leases.release(fence)).toBe(true);
      expect(await store.leases.get(traceId)).toMatchObject({ epoch: 1, state: "released" });
      expect(await store.leases.listHeld()).toEqual([]);
      expect(await store.leases.release(fence)).toBe(false);
      const second = await store.leases.acquire(traceId, leaseHolder("reson resume"), LONG);
      expect(second).toMatchObject({ epoch: 2, state: "held", releasedAt: null });
      expect(await store.leases.renew(fence, 60_000)).toBeUndefined();
      expect(await store.leases.release(fence)).toBe(false);
      expect(await store.leases.get(traceId)).toMatchObject({ epoch: 2, state: "held" });
      expect((await rejection(store.leases.acquire(traceId, other(), { ttlMs: 0 }))).code).toBe(
        "usage_error",
      );
    });

    it("an expired lease is taken over by the next acquirer, and its old holder can renew no more", async () => {
      const traceId = ulid();
      const old = await store.leases.acquire(traceId, other(), { ttlMs: 1 });
      await expire();
      expect((await store.leases.get(traceId))?.state).toBe("expired");
      const taken = await store.leases.acquire(traceId, leaseHolder("reson resume"), LONG);
      expect(taken).toMatchObject({ epoch: 2, state: "held", holder: { role: "reson resume" } });
      expect(await store.leases.renew({ traceId, epoch: old.epoch }, 60_000)).toBeUndefined();
      // An expired lease that no one took is still its holder's: a late renewal keeps it.
      const late = ulid();
      const slow = await store.leases.acquire(late, other(), { ttlMs: 1 });
      await expire();
      expect(await store.leases.renew({ traceId: late, epoch: slow.epoch }, 60_000)).toMatchObject({
        epoch: 1,
        state: "held",
      });
    });

    it("a lease whose holder was a process on this host that is gone is taken at once, expired or not", async () => {
      const traceId = ulid();
      const pid = await deadPid();
      await store.leases.acquire(
        traceId,
        { id: `${hostname()}:${pid}:dead01`, host: hostname(), pid, role: "reson run" },
        LONG,
      );
      const taken = await store.leases.acquire(traceId, leaseHolder("reson resume"), LONG);
      expect(taken).toMatchObject({ epoch: 2, holder: { pid: process.pid } });
    });

    it("an expired lease whose holder still runs on this host is taken only with force", async () => {
      const traceId = ulid();
      // A stopped process: alive, but it renews nothing.
      await store.leases.acquire(traceId, leaseHolder("reson resume"), { ttlMs: 1 });
      await expire();
      const refused = await rejection(store.leases.acquire(traceId, leaseHolder("reson resume"), LONG));
      expect(refused.code).toBe("run_leased");
      expect(refused.message).toMatch(/expired .* ago, but that process is still alive/);
      expect(refused.hint).toContain(`reson resume ${traceId} --force`);
      const forced = await store.leases.acquire(traceId, leaseHolder("reson resume"), {
        ...LONG,
        force: true,
      });
      expect(forced).toMatchObject({ epoch: 2, state: "held" });
      // A holder elsewhere cannot be asked: its expired lease is free to take.
      const far = ulid();
      await store.leases.acquire(far, other(), { ttlMs: 1 });
      await expire();
      expect(await store.leases.acquire(far, leaseHolder("worker"), LONG)).toMatchObject({ epoch: 2 });
    });

    it("a fenced batch is written while its epoch is current; once taken over it fails with lease_lost and writes nothing", async () => {
      const traceId = await traceStored();
      const mine = await store.leases.acquire(traceId, other("reson run"), { ttlMs: 1 });
      const fence = { traceId, epoch: mine.epoch };
      await store.apply([{ op: "insertStep", step: step(traceId, 0) }], { fence });
      await expire();
      // Expired but not taken: the writer still owns the run.
      await store.apply([{ op: "insertStep", step: step(traceId, 1) }], { fence });
      const taker = await store.leases.acquire(traceId, leaseHolder("reson resume"), LONG);
      const late = step(traceId, 2);
      const lost = await rejection(
        store.apply(
          [
            { op: "insertStep", step: late },
            { op: "putCheckpoint", checkpoint: { traceId, step: 2, state: { late: true }, updatedAt: T0 } },
          ],
          { fence },
        ),
      );
      expect(lost.code).toBe("lease_lost");
      expect(lost.message).toContain(`lost the lease of run ${traceId} (epoch 1)`);
      expect(lost.message).toContain("now held by reson resume");
      expect((await store.steps.list(traceId)).map((s) => s.seq)).toEqual([0, 1]);
      expect(await store.checkpoints.get(traceId)).toBeUndefined();
      await store.apply([{ op: "insertStep", step: late }], { fence: { traceId, epoch: taker.epoch } });
      expect(await store.steps.list(traceId)).toHaveLength(3);
    });

    it("a released lease fences out its old holder, and a run that never had one is refused", async () => {
      const traceId = await traceStored();
      const lease = await store.leases.acquire(traceId, leaseHolder("reson run"), LONG);
      const fence = { traceId, epoch: lease.epoch };
      await store.leases.release(fence);
      const lost = await rejection(store.apply([{ op: "insertStep", step: step(traceId, 0) }], { fence }));
      expect(lost.code).toBe("lease_lost");
      expect(lost.message).toContain("released");
      const never = await rejection(
        store.apply([{ op: "insertStep", step: step(traceId, 0) }], { fence: { traceId: ulid(), epoch: 1 } }),
      );
      expect(never.code).toBe("lease_lost");
      expect(await store.steps.list(traceId)).toEqual([]);
    });

    it("of several connections acquiring a free lease at once, exactly one wins", async () => {
      const traceId = ulid();
      const stores = await Promise.all(Array.from({ length: 4 }, () => target.open()));
      try {
        const outcomes = await Promise.allSettled(
          stores.map((s, i) => s.leases.acquire(traceId, leaseHolder(`worker ${i}`), LONG)),
        );
        const won = outcomes.filter((o) => o.status === "fulfilled");
        expect(won).toHaveLength(1);
        for (const o of outcomes.filter((o) => o.status === "rejected"))
          expect((o as PromiseRejectedResult).reason).toMatchObject({ code: "run_leased" });
        expect((await store.leases.get(traceId))?.epoch).toBe(1);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });

    it("gc removes the leases of runs that are gone, never a held one", async () => {
      const held = ulid();
      await store.leases.acquire(held, leaseHolder("reson run"), LONG);
      const released = ulid();
      await store.leases.release(await store.leases.acquire(released, leaseHolder("reson run"), LONG));
      const kept = await traceStored();
      await store.leases.release(await store.leases.acquire(kept, leaseHolder("reson run"), LONG));
      await store.gc(Date.now() + 1_000);
      expect(await store.leases.get(held)).toMatchObject({ state: "held" });
      expect(await store.leases.get(released)).toBeUndefined();
      expect(await store.leases.get(kept)).toMatchObject({ state: "released" });
    });
  });

  describe("several processes at once", () => {
    let built: BuiltStore;
    beforeAll(async () => {
      built = await buildStore();
    });
    afterAll(() => built.cleanup());

    it("8 processes committing 200 loop steps each all succeed, with every row stored", async () => {
      const workers = 8;
      const batches = 200;
      const results = await Promise.all(
        Array.from({ length: workers }, (_, worker) =>
          runWorker(built, { ...target.openOptions, worker, batches, projectKey: PROJECT }),
        ),
      );
      for (const result of results) {
        expect(result.stderr).toBe("");
        expect(result.code).toBe(0);
      }
      const done = results.map((r) => JSON.parse(r.stdout.trim()) as { sessionId: string; traceId: string });
      for (const { sessionId, traceId } of done) {
        expect((await store.turns.list(sessionId)).map((t) => t.seq)).toEqual(
          Array.from({ length: batches }, (_, i) => i),
        );
        expect(await store.steps.list(traceId)).toHaveLength(batches);
        expect((await store.checkpoints.get(traceId))?.step).toBe(batches - 1);
        expect((await store.traces.get(traceId))?.steps).toBe(batches);
      }
      expect(await store.toolStats.list(PROJECT)).toEqual([
        expect.objectContaining({
          tool: "read_file",
          calls: workers * batches,
          successes: (workers * batches * 3) / 4,
          failures: (workers * batches) / 4,
          failuresByCode: { unknown: (workers * batches) / 4 },
          totalDurationMs: workers * batches * 2,
          p50Ms: 2,
          p95Ms: 2,
        }),
      ]);
      expect(await target.integrity()).toBe("ok");
    }, 120_000);

    it("8 processes racing for an expired lease: exactly one takes it, the rest are refused naming it", async () => {
      const traceId = await traceStored();
      const gone = { id: "elsewhere.invalid:1:gone01", host: "elsewhere.invalid", pid: 1, role: "worker" };
      await store.leases.acquire(traceId, gone, { ttlMs: 1 });
      await new Promise((r) => setTimeout(r, 30));
      const racers = Array.from({ length: 8 }, (_, worker) => {
        const job = {
          storeModule: built.indexUrl,
          fixturesModule: built.fixturesUrl,
          ...target.openOptions,
          worker,
          traceId: traceId,
          ttlMs: 60_000,
        };
        const child = spawn(
          process.execPath,
          [join(import.meta.dirname, "lease-worker.mjs"), JSON.stringify(job)],
          {
            stdio: ["pipe", "pipe", "pipe"],
          },
        );
        let stdout = "";
        let stderr = "";
        const lines: Array<() => void> = [];
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          stdout += chunk;
          for (const wake of lines.splice(0)) wake();
        });
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
          stderr += chunk;
        });
        const lineCount = (n: number) =>
          new Promise<void>((resolve, reject) => {
            const check = () => {
              if (stdout.split("\n").filter(Boolean).length >= n) return resolve();
              if (child.exitCode !== null) return reject(new Error(`worker ${worker} exited: ${stderr}`));
              lines.push(check);
            };
            check();
          });
        const closed = new Promise<number | null>((resolve) => child.once("close", resolve));
        return { child, lineCount, closed, out: () => stdout, err: () => stderr };
      });
      await Promise.all(racers.map((r) => r.lineCount(1)));
      for (const r of racers) r.child.stdin.write("go\n");
      await Promise.all(racers.map((r) => r.lineCount(2)));
      const outcomes = racers.map(
        (r) =>
          JSON.parse(r.out().split("\n").filter(Boolean)[1]!) as {
            worker: number;
            won: boolean;
            epoch?: number;
            code?: string;
            message?: string;
          },
      );
      for (const r of racers) r.child.stdin.end();
      const codes = await Promise.all(racers.map((r) => r.closed));
      for (const [i, r] of racers.entries()) {
        expect(r.err()).toBe("");
        expect(codes[i]).toBe(0);
      }
      const winners = outcomes.filter((o) => o.won);
      expect(winners).toEqual([expect.objectContaining({ epoch: 2 })]);
      const winner = winners[0]!.worker;
      for (const loser of outcomes.filter((o) => !o.won)) {
        expect(loser.code).toBe("run_leased");
        expect(loser.message).toContain(`held by worker ${winner} (pid`);
      }
      // Only the winner committed, under its epoch, and let the lease go.
      expect((await store.steps.list(traceId)).map((step) => step.seq)).toEqual([winner]);
      expect(await store.leases.get(traceId)).toMatchObject({ epoch: 2, state: "released" });
    }, 60_000);

    it("8 processes opening a brand-new database at once migrate it once and all write", async () => {
      const blank = await fresh();
      try {
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, worker) =>
            runWorker(built, { ...blank.openOptions, worker, batches: 5, projectKey: PROJECT }),
          ),
        );
        for (const result of results) {
          expect(result.stderr).toBe("");
          expect(result.code).toBe(0);
        }
        expect(await blank.schemaVersions()).toEqual(await target.schemaVersions());
        expect(await blank.integrity()).toBe("ok");
      } finally {
        await blank.cleanup();
      }
    }, 60_000);
  });
}
