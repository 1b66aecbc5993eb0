// A skill loaded with the skill tool stays in view for the rest of the run: trimming leaves
// it whole, a compaction re-attaches it beside the summary, and a run resumed from a
// checkpoint taken after the compaction still shows it. The system prompt never carries it.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Agent, createAgent, type ResonEvent } from "../../src/index.js";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import {
  type FakeModelServer,
  type RecordedRequest,
  startFakeModelServer,
} from "../support/fake-model-server.js";

type Body = { messages: Array<{ role: string; content: unknown }> };

const MARKER = "FORM-RULE-7: always list the fields with scripts/list_fields.py before filling any";
const SUMMARY = "## Goal\nRead the notes.\n## Progress\nLoaded the form skill; read several notes.";
const THINKING = `Reading the next note. ${"The notes are long and I keep my reasoning visible. ".repeat(25)}`;

const bodyOf = (request: RecordedRequest) => request.body as Body;
const isSummaryRequest = (request: RecordedRequest) =>
  JSON.stringify(bodyOf(request).messages[0]?.content ?? "").includes("compact the working memory");
const sent = (request: RecordedRequest) => JSON.stringify(request.body);
const isCompacted = (request: RecordedRequest) => sent(request).includes("Summary of the earlier part");
const systemPrompt = (request: RecordedRequest) => bodyOf(request).messages.find((m) => m.role === "system");
/** The roles of the messages that carry the skill's body. */
const markerRoles = (request: RecordedRequest) =>
  bodyOf(request)
    .messages.filter((m) => JSON.stringify(m.content).includes("FORM-RULE-7"))
    .map((m) => m.role);

describe("loaded skills and compaction", () => {
  let server: FakeModelServer;
  let ws: TempDir;
  let calls: number;
  let finishNow: boolean;
  const agents: Agent[] = [];

  beforeEach(async () => {
    ws = tempDir();
    mkdirSync(join(ws.path, ".git"));
    mkdirSync(join(ws.path, ".claude/skills/pdf-forms"), { recursive: true });
    writeFileSync(
      join(ws.path, ".claude/skills/pdf-forms/SKILL.md"),
      `---\nname: pdf-forms\ndescription: Fill PDF forms. Use when a task involves a PDF form.\n---\n# Filling forms\n\n${MARKER}.\n${"Then fill one field at a time and check the output after each.\n".repeat(6)}`,
    );
    for (let i = 1; i <= 40; i++)
      writeFileSync(join(ws.path, `note${i}.txt`), `note ${i}: ${"x".repeat(1_200)}\n`);
    calls = 0;
    finishNow = false;
    server = await startFakeModelServer({
      respond: (request) => {
        if (isSummaryRequest(request)) return { text: SUMMARY };
        calls++;
        if (calls === 1)
          return { toolCalls: [{ name: "skill", arguments: { name: "pdf-forms" }, id: "load" }] };
        if (finishNow) return { text: "FINISHED" };
        return {
          text: THINKING,
          toolCalls: [{ name: "read_file", arguments: { path: `note${calls}.txt` }, id: `read_${calls}` }],
        };
      },
    });
  });
  afterEach(async () => {
    for (const agent of agents.splice(0)) await agent.close();
    await server.close();
    ws.remove();
  });

  const agentWith = async (maxIterations: number) => {
    const agent = await createAgent({
      workspace: ws.path,
      provider: "openai-compatible",
      baseUrl: server.openaiBaseUrl,
      model: "main-model",
      env: cleanEnv({ RESON_HOME: ws.home }),
      maxIterations,
      config: { contextWindow: 9_000 },
    });
    agents.push(agent);
    return agent;
  };
  const workRequests = () => server.requests.filter((r) => r.protocol === "openai" && !isSummaryRequest(r));

  it("the request after a compaction still carries the skill's body, and so does a resumed run", async () => {
    const events: ResonEvent[] = [];
    const first = await agentWith(24);
    const result = await first.run("Fill the form: read note2.txt onwards first.", {
      onEvent: (event) => events.push(event),
    });
    // The run stops at its iteration limit, after at least one compaction.
    expect(result).toMatchObject({ status: "failed", error: { code: "max_iterations" } });
    expect(events.some((e) => e.type === "context_compacted")).toBe(true);
    expect(events.some((e) => e.type === "context_trimmed")).toBe(true);

    const work = workRequests();
    const before = work.filter((r) => !isCompacted(r)).slice(1);
    const after = work.filter(isCompacted);
    expect(after.length).toBeGreaterThan(0);
    // Before the compaction it is the skill tool's result, whole even after trimming ...
    for (const request of before) expect(markerRoles(request)).toEqual(["tool"]);
    // ... and afterwards it rides with the summary, once.
    for (const request of after) expect(markerRoles(request)).toEqual(["user"]);
    // The system prompt is the same bytes on every call and never holds the skill.
    const system = JSON.stringify(systemPrompt(work[0]!));
    for (const request of work) expect(JSON.stringify(systemPrompt(request))).toBe(system);
    expect(system).not.toContain("FORM-RULE-7");

    // Resume from the checkpoint taken after the compaction: the first call shows it too.
    const seen = server.requests.length;
    finishNow = true;
    const resumed = await (await agentWith(40)).resume(result.runId);
    expect(resumed.status).toBe("completed");
    const next = server.requests.slice(seen).filter((r) => !isSummaryRequest(r));
    expect(next.length).toBeGreaterThan(0);
    expect(isCompacted(next[0]!)).toBe(true);
    expect(markerRoles(next[0]!)).toEqual(["user"]);
  });

  it("a session compacted with /compact keeps the skill for its next task", async () => {
    finishNow = true;
    const agent = await agentWith(10);
    const first = await agent.run("Fill the form.");
    expect(first.status).toBe("completed");
    const session = first.sessionId;
    expect((await agent.run("Check the first page.", { session })).status).toBe("completed");
    // The first task (which loaded the skill) is summarised; the newest stays whole.
    await agent.compactSession(session);
    const seen = server.requests.length;
    const third = await agent.run("And now the second page.", { session });
    expect(third.status).toBe("completed");
    const [request] = server.requests.slice(seen);
    expect(isCompacted(request!)).toBe(true);
    expect(markerRoles(request!)).toEqual(["user"]);
  });
});
