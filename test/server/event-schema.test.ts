// The one event schema: what a real run emits (the events `reson run --json` prints and the
// server streams) is valid against ResonEventSchema, and the schema refuses what is not an event.
import { Compile } from "typebox/compile";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ResonEventSchema } from "../../src/core/events.js";
import { createAgent, type ResonEvent } from "../../src/index.js";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";

const validator = Compile(ResonEventSchema);

describe("ResonEventSchema", () => {
  let server: FakeModelServer;
  let ws: TempDir;
  beforeEach(async () => {
    server = await startFakeModelServer();
    ws = tempDir();
  });
  afterEach(async () => {
    await server.close();
    ws.remove();
  });

  it("accepts every event of a run with tool calls, a failed call, goals and text", async () => {
    server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "A" } }] },
      { toolCalls: [{ name: "read_file", arguments: { path: "missing.txt" } }] },
      { text: "wrote a.txt" },
    );
    const agent = await createAgent({
      workspace: ws.path,
      provider: "openai-compatible",
      baseUrl: server.openaiBaseUrl,
      model: "fake-model",
      env: cleanEnv({ RESON_HOME: ws.home }),
    });
    const events: ResonEvent[] = [];
    const result = await agent.run("write a.txt", { onEvent: (e) => events.push(e) });
    await agent.close();
    expect(result.status).toBe("completed");
    const types = new Set(events.map((e) => e.type));
    for (const type of ["run_start", "step_start", "tool_call", "tool_result", "goal_changed", "run_end"]) {
      expect(types).toContain(type);
    }
    // Through JSON, as --json and SSE carry them.
    const invalid = events
      .map((event) => JSON.parse(JSON.stringify(event)) as unknown)
      .filter((event) => !validator.Check(event))
      .map((event) => ({
        event,
        errors: validator.Errors(event).map((e) => `${e.instancePath} ${e.message}`),
      }));
    expect(invalid).toEqual([]);
    // What the side panel shows: the step's text and goal, the result's long-term line.
    const ends = events.filter((e) => e.type === "step_end");
    expect(ends.at(-1)).toMatchObject({ text: "wrote a.txt" });
    expect(ends[0]?.text).toBeUndefined();
    const added = events.flatMap((e) =>
      e.type === "goal_changed" && e.change.type === "goal_added"
        ? [(e.change.goal as { id: string }).id]
        : [],
    );
    expect(added.length).toBeGreaterThan(0);
    expect(added).toContain(ends[0]?.goalId);
    const write = events.find((e) => e.type === "tool_result" && e.name === "write_file");
    expect(write).toMatchObject({ ok: true, longTermMemory: expect.stringContaining("wrote a.txt") });
    expect(write && "outputOnce" in write).toBe(false);
  });

  it("bounds a step's text to 4,000 characters", async () => {
    server.enqueue({ text: "x".repeat(5000) });
    const agent = await createAgent({
      workspace: ws.path,
      provider: "openai-compatible",
      baseUrl: server.openaiBaseUrl,
      model: "fake-model",
      env: cleanEnv({ RESON_HOME: ws.home }),
    });
    const events: ResonEvent[] = [];
    await agent.run("say a lot", { onEvent: (e) => events.push(e) });
    await agent.close();
    const end = events.find((e) => e.type === "step_end");
    expect(end?.text).toBe(`${"x".repeat(4000)}…`);
  });

  it("accepts the approval and question events the service emits", () => {
    const base = { runId: "r1", step: 2, ts: Date.now() };
    const events: ResonEvent[] = [
      {
        ...base,
        type: "permission_request",
        toolCallId: "c1",
        tool: "execute_command",
        arguments: { command: "rm -rf build" },
        reason: "mode default: commands ask",
        promptId: "p1",
        expiresAt: Date.now() + 60_000,
      },
      {
        ...base,
        type: "permission_decision",
        promptId: "p1",
        toolCallId: "c1",
        decision: "deny",
        by: "timeout",
      },
      {
        ...base,
        type: "human_question",
        toolCallId: "c2",
        question: "Which branch?",
        choices: ["main", "dev"],
        promptId: "p2",
        expiresAt: Date.now() + 60_000,
      },
      { ...base, type: "human_answer", promptId: "p2", toolCallId: "c2", answer: "main", by: "user" },
    ];
    for (const event of events) expect(validator.Check(event)).toBe(true);
  });

  it("refuses an unknown type, a missing field and a decision that is not one of the three", () => {
    const base = { runId: "r1", step: 0, ts: 1 };
    expect(validator.Check({ ...base, type: "nope" })).toBe(false);
    expect(validator.Check({ ...base, type: "warning" })).toBe(false);
    expect(
      validator.Check({
        ...base,
        type: "permission_decision",
        promptId: "p",
        toolCallId: "c",
        decision: "maybe",
        by: "user",
      }),
    ).toBe(false);
  });
});
