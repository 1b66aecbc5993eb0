// Learning over a real SQLite store: the read-only recall tool (the model's own words, e.g. an
// error message the task did not mention, find a lesson by its keys, and what it returns counts
// as shown in the run), and what happens to rules after a run (expiry, retirement by uplift).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Learning } from "../../src/agent/learning.js";
import { ulid } from "../../src/core/ids.js";
import { recallTool } from "../../src/memory/index.js";
import { createProvider } from "../../src/providers/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import type { ToolContext } from "../../src/tools/index.js";
import { experience, PROJECT } from "../store/fixtures.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";

let home: string;
let store: Store;
let server: FakeModelServer;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "reson-recall-"));
  store = await openStore({ home });
  server = await startFakeModelServer();
});
afterEach(async () => {
  await store.close();
  await server.close();
  await rm(home, { recursive: true, force: true });
});

async function learning(): Promise<Learning> {
  const reflector = await createProvider({
    provider: "openai-compatible",
    baseUrl: server.openaiBaseUrl,
    model: "fake",
    apiKey: "test",
  });
  return new Learning({
    store,
    projectKey: PROJECT,
    reflector,
    redact: (text) => text,
    settings: { reflect: "off", minEvidence: 1, maxExperiences: 4, maxMemories: 3, holdout: 0 },
  });
}

describe("the recall tool", () => {
  it("finds a lesson by the error message the model saw, and counts it as shown in the run", async () => {
    const rule = experience({
      status: "active",
      condition: "several processes write to the SQLite database at once",
      rule: "set PRAGMA busy_timeout before writing, and retry on SQLITE_BUSY.",
      keys: ["database is locked", "SQLITE_BUSY"],
    });
    await store.experiences.insert(rule);
    const tool = recallTool(await learning());
    expect(tool.readOnly).toBe(true);
    const runId = ulid();
    const ctx = { runId, signal: new AbortController().signal, toolCallId: "c1" } as ToolContext;

    const found = await tool.execute({ query: "sqlite3.OperationalError: database is locked" }, ctx);
    expect(found.content).toContain("Lessons from earlier runs in this project");
    expect(found.content).toContain("set PRAGMA busy_timeout");
    expect(await store.experiences.usesIn(runId)).toEqual([
      expect.objectContaining({ experienceId: rule.id, withheld: false }),
    ]);
    expect(await store.experiences.recordOutcome(runId, "success")).toBe(1);
    expect(await store.experiences.get(rule.id)).toMatchObject({ usageCount: 1, successCount: 1 });

    const nothing = await tool.execute({ query: "write a poem about the sea" }, ctx);
    expect(nothing.content).toBe('Nothing learnt matches "write a poem about the sea".');
    expect(server.requests).toEqual([]);
  });
});

describe("a rule's life after runs", () => {
  it("a candidate no run backed in memory.candidateRuns runs expires; a rule credibly not helping retires", async () => {
    const t0 = Date.now() - 100_000;
    const stale = experience({ status: "candidate", createdAt: t0, evidence: [] });
    const fresh = experience({ status: "candidate", createdAt: Date.now() });
    // Shown 12 times (half succeeded), withheld 10 times (all succeeded): it does not help.
    const unhelpful = experience({
      status: "active",
      successCount: 6,
      failureCount: 6,
      holdoutSuccessCount: 10,
      holdoutFailureCount: 0,
    });
    for (const e of [stale, fresh, unhelpful]) await store.experiences.insert(e);
    // Three runs since the stale candidate was made (remembered tasks), none backing it.
    for (let i = 0; i < 3; i++) {
      await store.memory.appendItems([
        {
          id: ulid(),
          projectKey: PROJECT,
          sessionId: null,
          traceId: ulid(),
          kind: "turn",
          role: "user",
          text: `task ${i}`,
          provenance: "user",
          createdAt: t0 + 1000 * (i + 1),
        },
      ]);
    }
    const reflector = await createProvider({
      provider: "openai-compatible",
      baseUrl: server.openaiBaseUrl,
      model: "fake",
      apiKey: "test",
    });
    const lifecycle = new Learning({
      store,
      projectKey: PROJECT,
      reflector,
      redact: (text) => text,
      settings: { reflect: "off", minEvidence: 2, maxExperiences: 4, maxMemories: 3, candidateRuns: 3 },
    });
    const traceId = ulid();
    await store.experiences.recordUse(unhelpful.id, traceId);
    const report = await lifecycle.afterRun({
      traceId,
      sessionId: ulid(),
      task: "another task",
      status: "completed",
      finalText: "done",
      steps: 1,
    });
    expect(report.retired.sort()).toEqual([stale.id, unhelpful.id].sort());
    expect((await store.experiences.get(fresh.id))?.status).toBe("candidate");
    expect((await store.experiences.get(stale.id))?.status).toBe("retired");
    expect((await store.experiences.get(unhelpful.id))?.status).toBe("retired");
  });
});
