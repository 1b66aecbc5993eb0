// A long scripted run (200 steps, 20 KB tool outputs, ten goals) through the real loop and
// the fake model server: every request stays within budget, requests shrink when a goal
// completes, and after compaction every request still carries the task, the focused goal
// and the reason an abandoned approach failed.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent, type ResonEvent, type RunResult } from "../../src/index.js";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import {
  type FakeModelServer,
  type FakeReply,
  type RecordedRequest,
  startFakeModelServer,
} from "../support/fake-model-server.js";

const TASK = "LONG-TASK-7731: read every note in batches, one goal per batch, then say FINISHED.";
const ABANDON_REASON = "REASON-4242: grepping the notes missed half of them";
const WINDOW = 64_000;

const bodyText = (r: RecordedRequest) => JSON.stringify(r.body);
const isSummary = (r: RecordedRequest) => bodyText(r).includes("compact the working memory");
const tokensOf = (r: RecordedRequest) => Math.ceil(bodyText(r).length / 4);

/** The "model": ten goals of twenty steps; goal 3 is abandoned with a reason. */
function script(): (request: RecordedRequest) => FakeReply {
  let n = 0;
  return (request) => {
    const usage = { input: tokensOf(request), output: 30 };
    if (isSummary(request))
      return { text: "## Goal\nRead all notes.\n## Progress\nBatches so far read.", usage };
    const step = n++;
    const goal = Math.floor(step / 20) + 1;
    const inGoal = step % 20;
    const id = `call_${step}`;
    if (goal > 10) return { text: "FINISHED", usage };
    if (inGoal === 0) {
      return {
        toolCalls: [{ id, name: "goal", arguments: { action: "add", title: `BATCH-${goal} of notes` } }],
        usage,
      };
    }
    if (inGoal === 19) {
      const args =
        goal === 3
          ? { action: "abandon", id: `g${goal}`, reason: ABANDON_REASON }
          : { action: "done", id: `g${goal}`, summary: `batch ${goal}: read 18 notes, each the same 20 KB` };
      return { toolCalls: [{ id, name: "goal", arguments: args }], usage };
    }
    return {
      text: `Reading note ${inGoal} of batch ${goal}.`,
      toolCalls: [{ id, name: "read_file", arguments: { path: `notes/${inGoal}.txt` } }],
      usage,
    };
  };
}

describe("a long run within budget", () => {
  let server: FakeModelServer;
  let ws: TempDir;
  let result: RunResult;
  const events: ResonEvent[] = [];

  beforeAll(async () => {
    ws = tempDir();
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(ws.path, "notes"));
    for (let i = 1; i <= 18; i++) {
      writeFileSync(
        join(ws.path, `notes/${i}.txt`),
        `note ${i} ${"lorem ipsum dolor sit amet ".repeat(2)}\n`.repeat(335),
      );
    }
    server = await startFakeModelServer({ respond: script() });
    const agent = await createAgent({
      workspace: ws.path,
      provider: "openai-compatible",
      baseUrl: server.openaiBaseUrl,
      model: "long-model",
      env: cleanEnv({ RESON_HOME: ws.home }),
      persist: false,
      config: { contextWindow: WINDOW, maxIterations: 260 },
    });
    result = await agent.run(TASK, { onEvent: (e) => events.push(e) });
  }, 120_000);
  afterAll(async () => {
    await server.close();
    ws.remove();
  });

  const work = () => server.requests.filter((r) => r.protocol === "openai" && !isSummary(r));

  it("completes all 200 steps", () => {
    expect(result.error).toBeUndefined();
    expect(result).toMatchObject({ status: "completed", finalText: "FINISHED", steps: 201 });
  });

  it("keeps every request under 85% of the window", () => {
    for (const request of work()) expect(tokensOf(request)).toBeLessThan(WINDOW * 0.85 * 1.05);
  });

  it("shrinks the request after each goal completes", () => {
    const requests = work();
    for (let goal = 1; goal <= 10; goal++) {
      const closing = goal * 20 - 1; // the request answered with goal done/abandon
      expect(tokensOf(requests[closing + 1]!)).toBeLessThan(tokensOf(requests[closing]!));
    }
  });

  it("compacts or trims, and keeps the task, the focused goal and the abandoned reason in view", () => {
    const types = new Set(events.map((e) => e.type));
    expect(types.has("context_trimmed") || types.has("context_compacted")).toBe(true);
    const requests = work();
    const firstCut = requests.findIndex(
      (r) =>
        bodyText(r).includes("trimmed from context") || bodyText(r).includes("Summary of the earlier part"),
    );
    expect(firstCut).toBeGreaterThan(0);
    for (const [i, request] of requests.entries()) {
      if (i < firstCut) continue;
      const text = bodyText(request);
      expect(text).toContain("LONG-TASK-7731");
      if (i >= 60 && i < 200) expect(text).toContain("REASON-4242");
      const goal = Math.floor(i / 20) + 1;
      if (i % 20 !== 0 && goal <= 10) expect(text).toContain(`BATCH-${goal} of notes`);
    }
  });
});
