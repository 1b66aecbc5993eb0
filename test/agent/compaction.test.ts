// Context budget through the real loop and the fake model server: trimming, compaction with
// the summary model, one compaction and one retry on a provider overflow, and a clear stop
// when compaction cannot help.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgent, type ResonEvent } from "../../src/index.js";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import {
  type FakeModelServer,
  type FakeReply,
  type RecordedRequest,
  startFakeModelServer,
} from "../support/fake-model-server.js";

type Body = { model: string; messages: Array<{ role: string; content: unknown }> };

const bodyOf = (request: RecordedRequest) => request.body as Body;
const isSummaryRequest = (request: RecordedRequest) =>
  JSON.stringify(bodyOf(request).messages[0]?.content ?? "").includes("compact the working memory");
const toolResults = (request: RecordedRequest) =>
  bodyOf(request).messages.filter((m) => m.role === "tool").length;
/** Like a real server: input tokens in proportion to what was sent. */
const usageFor = (request: RecordedRequest) => ({
  input: Math.ceil(JSON.stringify(request.body).length / 4),
  output: 20,
});

const SUMMARY = "## Goal\nRead the notes.\n## Progress\nRead several notes; each repeats the same line.";

describe("context budget", () => {
  let server: FakeModelServer;
  let ws: TempDir;
  let steps: number;
  let thinking: string;
  let planning = false;

  beforeEach(() => {
    ws = tempDir();
    steps = 12;
    thinking = "Reading the next note.";
    planning = false;
    for (let i = 1; i <= 63; i++)
      writeFileSync(join(ws.path, `note${i}.txt`), `${`note ${i}: `.padEnd(60, "x")}\n`.repeat(300));
  });
  afterEach(async () => {
    await server?.close();
    ws.remove();
  });

  async function start(respondExtra?: (request: RecordedRequest) => FakeReply | undefined) {
    // The "model" keeps its own count of reads: after a compaction the results it has seen
    // are no longer all in the request, as with a real model continuing from a summary.
    let done = 0;
    server = await startFakeModelServer({
      respond: (request) => {
        const extra = respondExtra?.(request);
        if (extra) return extra;
        if (isSummaryRequest(request)) return { text: SUMMARY, usage: usageFor(request) };
        const seen = toolResults(request);
        if (seen > 0) done++;
        // Plan first: an approach that fails (abandoned with its reason), then the real goal.
        if (planning && seen === 0) {
          return {
            toolCalls: [{ name: "goal", arguments: { action: "add", title: "APPROACH-GREP" }, id: "p1" }],
            usage: usageFor(request),
          };
        }
        if (planning && done === 1) {
          const args = { action: "abandon", id: "g1", reason: "REASON-GREP-MISSES-FILES" };
          return { toolCalls: [{ name: "goal", arguments: args, id: "p2" }], usage: usageFor(request) };
        }
        if (planning && done === 2) {
          return {
            toolCalls: [{ name: "goal", arguments: { action: "add", title: "READ-EVERY-NOTE" }, id: "p3" }],
            usage: usageFor(request),
          };
        }
        if (done >= steps) return { text: "FINISHED", usage: usageFor(request) };
        return {
          text: thinking,
          toolCalls: [{ name: "read_file", arguments: { path: `note${done + 1}.txt` }, id: `call_${done}` }],
          usage: usageFor(request),
        };
      },
    });
  }

  const agentWith = (config: Record<string, unknown>) =>
    createAgent({
      workspace: ws.path,
      provider: "openai-compatible",
      baseUrl: server.openaiBaseUrl,
      model: "main-model",
      env: cleanEnv({ RESON_HOME: ws.home }),
      persist: false,
      config,
    });

  it("trims old outputs, then compacts with the summary model, and keeps every request under budget", async () => {
    planning = true;
    await start();
    steps = 63;
    // The model thinks aloud at every step: text that trimming does not remove.
    thinking = `Planning the next read. ${"The notes repeat themselves but I must read each one. ".repeat(30)}`;
    const agent = await agentWith({
      contextWindow: 30_000,
      summaryModel: "summary-model",
      maxIterations: 80,
    });
    const events: ResonEvent[] = [];
    const result = await agent.run("Read note1.txt to note60.txt one by one, then say FINISHED.", {
      onEvent: (e) => events.push(e),
    });
    expect(result.error).toBeUndefined();
    expect(result.status).toBe("completed");
    const types = events.map((e) => e.type);
    expect(types).toContain("context_trimmed");
    expect(types).toContain("context_compacted");
    const summaries = server.requests.filter(isSummaryRequest);
    expect(summaries.length).toBeGreaterThan(0);
    expect(summaries.every((r) => bodyOf(r).model === "summary-model")).toBe(true);
    const work = server.requests.filter((r) => r.protocol === "openai" && !isSummaryRequest(r));
    expect(work.every((r) => bodyOf(r).model === "main-model")).toBe(true);
    // Budget: 85% of 30k tokens; the server counts 4 characters a token.
    for (const request of work) expect(usageFor(request).input).toBeLessThan(30_000 * 0.85 * 1.1);
    // The task is in every request, also after compaction.
    for (const request of work)
      expect(JSON.stringify(request.body)).toContain("Read note1.txt to note60.txt");
    const after = work.filter((r) => JSON.stringify(r.body).includes("Summary of the earlier part"));
    expect(after.length).toBeGreaterThan(0);
    // After compaction, the focused goal and the reason the first approach failed stay in view.
    for (const request of after) {
      expect(JSON.stringify(request.body)).toContain("→ [ ] g2 READ-EVERY-NOTE");
      expect(JSON.stringify(request.body)).toContain("REASON-GREP-MISSES-FILES");
    }
  });

  it("a provider overflow leads to exactly one compaction and a successful retry", async () => {
    let overflowed = false;
    await start((request) => {
      if (!isSummaryRequest(request) && toolResults(request) === 6 && !overflowed) {
        overflowed = true;
        return { fault: "overflow" };
      }
      return undefined;
    });
    const agent = await agentWith({ maxIterations: 30 });
    const events: ResonEvent[] = [];
    const result = await agent.run("read the notes", { onEvent: (e) => events.push(e) });
    expect(result.error).toBeUndefined();
    expect(result.status).toBe("completed");
    const compactions = events.filter((e) => e.type === "context_compacted");
    expect(compactions).toHaveLength(1);
    expect(compactions[0]).toMatchObject({ reason: "overflow" });
    expect(server.requests.filter(isSummaryRequest)).toHaveLength(1);
  });

  it("a second overflow in a row fails the run with provider_context_overflow", async () => {
    let overflows = 0;
    await start((request) => {
      if (isSummaryRequest(request)) return undefined;
      if (overflows > 0 || toolResults(request) === 6) {
        overflows++;
        return { fault: "overflow" };
      }
      return undefined;
    });
    const agent = await agentWith({ maxIterations: 30 });
    const result = await agent.run("read the notes");
    expect(result).toMatchObject({ status: "failed", error: { code: "provider_context_overflow" } });
    expect(server.requests.filter(isSummaryRequest)).toHaveLength(1);
  });

  it("stops with context_exhausted instead of looping when nothing can be compacted", async () => {
    await start();
    // A window so small that the system prompt and one output alone exceed it.
    const agent = await agentWith({ contextWindow: 1_500, maxIterations: 30 });
    const result = await agent.run("read the notes");
    expect(result).toMatchObject({ status: "failed", error: { code: "context_exhausted" } });
    expect(server.requests.filter(isSummaryRequest).length).toBeLessThanOrEqual(1);
  });
});
