// Sub-agents: the subagent tool starts runs of their own (own traces under the parent, in the
// parent's session), explore branches run in parallel on a read-only workspace, every child
// has a hard budget that also counts against its parent's, the parent's hooks apply inside
// children, aborting the parent aborts them, and children cannot start children.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Agent, createAgent, type ResonEvent } from "../../src/index.js";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import {
  type FakeModelServer,
  type FakeReply,
  type RecordedRequest,
  startFakeModelServer,
} from "../support/fake-model-server.js";
import { replyByTask, taskOf } from "../support/reply-by-task.js";
import { skipWithout } from "../support/requirements.js";

const noSandbox = await skipWithout("sandbox", "sub-agents");

interface Body {
  messages: Array<{ role: string; content: unknown }>;
  tools?: Array<{ function: { name: string } }>;
}

const body = (request: RecordedRequest) => request.body as Body;
const offered = (request: RecordedRequest) => (body(request).tools ?? []).map((t) => t.function.name);

interface StepData {
  name: string;
  arguments: Record<string, unknown>;
  result?: { ok: boolean; content: string; error?: { code: string; message: string } };
}

describe("sub-agents", () => {
  let server: FakeModelServer;
  let ws: TempDir;
  let script: Record<string, FakeReply[]>;
  beforeEach(async () => {
    script = {};
    server = await startFakeModelServer({ respond: replyByTask(() => script) });
    ws = tempDir();
  });
  afterEach(async () => {
    await server.close();
    ws.remove();
  });

  const agentFor = (extra: Parameters<typeof createAgent>[0] = {}) =>
    createAgent({
      workspace: ws.path,
      provider: "openai-compatible",
      baseUrl: server.openaiBaseUrl,
      model: "fake-model",
      env: cleanEnv({ RESON_HOME: ws.home }),
      ...extra,
    });

  const toolSteps = async (agent: Agent, runId: string): Promise<StepData[]> =>
    (await agent.store!.steps.list(runId))
      .filter((s) => s.kind === "tool_call")
      .map((s) => s.data as StepData);

  const requestsOf = (prefix: string) =>
    server.requests.filter((r) => r.method === "POST" && taskOf(r).startsWith(prefix));

  it.skipIf(noSandbox)(
    "explore runs its branches at the same time, read-only, each as a trace under the parent's goal",
    async () => {
      const branch = (name: string): FakeReply[] => [
        {
          delayMs: 400,
          toolCalls: [
            { name: "write_file", arguments: { path: `x-${name}.txt`, content: "x" } },
            { name: "execute_command", arguments: { command: `touch made-${name}.txt` } },
          ],
        },
        { text: `found ${name}` },
      ];
      script = {
        PARENT: [
          {
            toolCalls: [
              {
                name: "subagent",
                arguments: {
                  mode: "explore",
                  branches: ["BRANCH-A where", "BRANCH-B what", "BRANCH-C who"],
                  background: "the project is small",
                },
              },
            ],
          },
          { text: "all explored" },
        ],
        "BRANCH-A": branch("A"),
        "BRANCH-B": branch("B"),
        "BRANCH-C": branch("C"),
      };
      const agent = await agentFor();
      const events: ResonEvent[] = [];
      const result = await agent.run("PARENT explore the project", { onEvent: (e) => events.push(e) });
      expect(result).toMatchObject({ status: "completed", finalText: "all explored" });

      // Overlap: every branch's first request arrived before any of them was answered.
      const firsts = ["BRANCH-A", "BRANCH-B", "BRANCH-C"].map((name) => requestsOf(name)[0]!);
      const lastArrival = Math.max(...firsts.map((r) => r.receivedAt));
      const firstAnswer = Math.min(...firsts.map((r) => r.completedAt ?? Number.POSITIVE_INFINITY));
      expect(lastArrival).toBeLessThan(firstAnswer);

      // Read-only: no write tools offered or registered, commands see a read-only workspace.
      for (const request of firsts) {
        expect(offered(request)).toContain("read_file");
        for (const name of ["write_file", "edit_file", "subagent"])
          expect(offered(request)).not.toContain(name);
        expect(taskOf(request)).toContain("the project is small");
      }
      for (const name of ["A", "B", "C"]) {
        expect(existsSync(join(ws.path, `x-${name}.txt`))).toBe(false);
        expect(existsSync(join(ws.path, `made-${name}.txt`))).toBe(false);
      }

      // Each child is a trace of its own under the parent, in the parent's session.
      const children = await agent.store!.traces.children(result.runId);
      expect(children).toHaveLength(3);
      for (const child of children) {
        expect(child).toMatchObject({
          parentTraceId: result.runId,
          sessionId: result.sessionId,
          status: "completed",
        });
        expect(child.preset).toBe("explore");
        const [write, command] = await toolSteps(agent, child.id);
        expect(write!.result).toMatchObject({ ok: false, error: { code: "tool_not_found" } });
        expect(command!.result!.ok).toBe(false);
        expect(JSON.stringify(command!.result)).toContain("Read-only file system");
      }

      // The parent's stream: one start and one end per child, and none of the children's own events.
      expect(events.every((e) => e.runId === result.runId)).toBe(true);
      const started = events.filter((e) => e.type === "sub_trace_started");
      const completed = events.filter((e) => e.type === "sub_trace_completed");
      expect(started).toHaveLength(3);
      expect(completed.map((e) => (e as { status: string }).status)).toEqual([
        "completed",
        "completed",
        "completed",
      ]);
      expect(started[0]).toMatchObject({
        mode: "explore",
        preset: "explore",
        limits: { maxSteps: 20, maxWallMs: 600_000 },
      });

      // The parent model gets every branch's answer, in order.
      const answer = JSON.stringify(body(requestsOf("PARENT")[1]!));
      expect(answer.indexOf("found A")).toBeGreaterThan(0);
      expect(answer.indexOf("found A")).toBeLessThan(answer.indexOf("found B"));
      expect(answer.indexOf("found B")).toBeLessThan(answer.indexOf("found C"));

      // The goal focused when the call ran records the children.
      const checkpoint = await agent.store!.checkpoints.get(result.runId);
      const goals = (checkpoint!.state as { goals: { goals: Array<{ subTraceIds?: string[] }> } }).goals
        .goals;
      expect(new Set(goals[0]!.subTraceIds)).toEqual(new Set(children.map((c) => c.id)));

      // The children's turns are in the store, but not in what the session's next run sees.
      const turns = await agent.store!.turns.list(result.sessionId);
      expect(turns.some((t) => t.traceId === children[0]!.id)).toBe(true);
      await agent.run("NEXT task", { session: result.sessionId });
      const next = JSON.stringify(body(server.requests.at(-1)!));
      expect(next).toContain("NEXT task");
      expect(next).toContain("all explored");
      expect(next).not.toContain("made-A.txt");
      expect(next).not.toContain("Read-only file system");
      await agent.close();
    },
  );

  it("a child's turns stay out of the session's history, also after gc removed its trace", async () => {
    script = {
      PARENT: [
        { toolCalls: [{ name: "subagent", arguments: { mode: "delegate", task: "CHILD look" } }] },
        { text: "parent done" },
      ],
      CHILD: [
        { toolCalls: [{ name: "glob", arguments: { pattern: "CHILD-ONLY-MARK*" } }] },
        { text: "child done" },
      ],
      LATER: [{ text: "later done" }],
    };
    const agent = await agentFor();
    const first = await agent.run("PARENT delegate");
    const cutoff = Date.now() + 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await agent.run("LATER one", { session: first.sessionId });
    expect(JSON.stringify(body(server.requests.at(-1)!))).not.toContain("CHILD-ONLY-MARK");

    // The dry run counts the child's turns as gc then removes them, deleting nothing itself.
    const preview = await agent.store!.gcPreview(cutoff);
    const removed = await agent.store!.gc(cutoff);
    expect(removed).toMatchObject({ traces: 2, sessions: 0 });
    expect(removed.turns).toBeGreaterThan(0);
    expect(preview).toEqual(removed);
    await agent.run("LATER two", { session: first.sessionId });
    const request = JSON.stringify(body(server.requests.at(-1)!));
    expect(request).toContain("parent done");
    expect(request).not.toContain("CHILD-ONLY-MARK");
    await agent.close();
  });

  it("a child over its token limit stops with budget_exceeded, and the parent reads why and goes on", async () => {
    script = {
      PARENT: [
        {
          toolCalls: [
            { name: "subagent", arguments: { mode: "delegate", task: "CHILD count files", max_tokens: 10 } },
          ],
        },
        { text: "parent finished" },
      ],
      CHILD: [{ toolCalls: [{ name: "list_files", arguments: { path: "." } }] }],
    };
    const agent = await agentFor();
    const events: ResonEvent[] = [];
    const result = await agent.run("PARENT delegate", { onEvent: (e) => events.push(e) });
    expect(result).toMatchObject({ status: "completed", finalText: "parent finished" });
    const [child] = await agent.store!.traces.children(result.runId);
    expect(child).toMatchObject({ status: "failed", steps: 1, error: { code: "budget_exceeded" } });
    expect(child!.error!.message).toContain("This sub-agent has used 19 tokens of its 10-token budget.");
    expect(events.find((e) => e.type === "sub_trace_completed")).toMatchObject({
      status: "failed",
      error: { code: "budget_exceeded" },
    });
    const told = JSON.stringify(body(requestsOf("PARENT")[1]!));
    expect(told).toContain("budget_exceeded");
    expect(told).toContain("of its 10-token budget");
    // The child's usage is part of the parent's.
    expect(result.usage.totalTokens).toBe(19 * 3);
    await agent.close();
  });

  it("the parent's token limit covers its children: their use stops the parent", async () => {
    script = {
      PARENT: [
        { toolCalls: [{ name: "subagent", arguments: { mode: "delegate", task: "CHILD keep going" } }] },
      ],
      CHILD: [{ toolCalls: [{ name: "list_files", arguments: { path: "." } }] }],
    };
    const agent = await agentFor({ limits: { maxTokens: 50 } });
    const events: ResonEvent[] = [];
    const result = await agent.run("PARENT spend", { onEvent: (e) => events.push(e) });
    expect(events[0]).toMatchObject({ type: "run_start", limits: { maxTokens: 50 } });
    // The child was given what the parent had left (50 - 19) and stopped at it.
    expect(events.find((e) => e.type === "sub_trace_started")).toMatchObject({ limits: { maxTokens: 31 } });
    const [child] = await agent.store!.traces.children(result.runId);
    expect(child).toMatchObject({ status: "failed", steps: 2, error: { code: "budget_exceeded" } });
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({ code: "budget_exceeded" });
    expect(result.error!.message).toBe("The run has used 57 tokens of its 50-token budget.");
    expect(result.error!.hint).toContain("--max-tokens");
    expect(result.usage.totalTokens).toBe(57);
    expect(requestsOf("PARENT")).toHaveLength(1);
    await agent.close();
  });

  it("a run over its wall time is stopped in the middle of a model call", async () => {
    script = { SLOW: [{ text: "too late", delayMs: 5_000 }] };
    const agent = await agentFor({ limits: { maxWallMs: 300 } });
    const result = await agent.run("SLOW task");
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({ code: "budget_exceeded", details: { limit: "time", max: 300 } });
    expect(result.durationMs).toBeLessThan(5_000);
    await agent.close();
  });

  it("a beforeToolCall hook that denies a tool denies it inside a child too", async () => {
    script = {
      PARENT: [
        { toolCalls: [{ name: "subagent", arguments: { mode: "delegate", task: "CHILD run a command" } }] },
        { text: "parent done" },
      ],
      CHILD: [
        { toolCalls: [{ name: "execute_command", arguments: { command: "touch hooked.txt" } }] },
        { text: "child done" },
      ],
    };
    const seen: string[] = [];
    const agent = await agentFor({
      hooks: {
        beforeToolCall: (call, info) => {
          seen.push(`${call.name}@${info.runId}`);
          return call.name === "execute_command"
            ? { action: "deny", reason: "no commands today" }
            : undefined;
        },
      },
    });
    const result = await agent.run("PARENT delegate");
    expect(result.status).toBe("completed");
    const [child] = await agent.store!.traces.children(result.runId);
    expect(seen).toEqual([`subagent@${result.runId}`, `execute_command@${child!.id}`]);
    const [command] = await toolSteps(agent, child!.id);
    expect(command!.result).toMatchObject({
      ok: false,
      error: { code: "tool_denied", message: "no commands today" },
    });
    expect(existsSync(join(ws.path, "hooked.txt"))).toBe(false);
    await agent.close();
  });

  it("a host's event for a child run (an approval, a plugin hook's failure) goes into that run", async () => {
    script = {
      PARENT: [
        { toolCalls: [{ name: "subagent", arguments: { mode: "delegate", task: "CHILD list" } }] },
        { text: "parent done" },
      ],
      CHILD: [{ toolCalls: [{ name: "list_files", arguments: {} }] }, { text: "child done" }],
    };
    let emitted: boolean | undefined;
    const agent: Agent = await agentFor({
      hooks: {
        beforeToolCall: (call, info) => {
          if (call.name === "list_files")
            emitted = agent.emitInRun(info.runId, { type: "warning", message: "said by the host" });
          return undefined;
        },
      },
    });
    const result = await agent.run("PARENT delegate");
    expect(result.status).toBe("completed");
    expect(emitted).toBe(true);
    const [child] = await agent.store!.traces.children(result.runId);
    const events = await agent.store!.events.list(child!.id);
    expect(events.map((e) => e.data)).toContainEqual(
      expect.objectContaining({ type: "warning", message: "said by the host" }),
    );
    // Once the child has ended, it is no longer in flight.
    expect(agent.emitInRun(child!.id, { type: "warning", message: "too late" })).toBe(false);
    await agent.close();
  });

  it("aborting the parent aborts its children", async () => {
    script = {
      PARENT: [
        {
          toolCalls: [
            { name: "subagent", arguments: { mode: "explore", branches: ["HANG one", "HANG two"] } },
          ],
        },
      ],
      HANG: [{ fault: "hang" }],
    };
    const agent = await agentFor();
    const controller = new AbortController();
    let started = 0;
    const result = await agent.run("PARENT wait", {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === "sub_trace_started" && ++started === 2) setTimeout(() => controller.abort(), 100);
      },
    });
    expect(result.status).toBe("aborted");
    const children = await agent.store!.traces.children(result.runId);
    expect(children.map((c) => c.status)).toEqual(["aborted", "aborted"]);
    await agent.close();
  });

  it("a child cannot start children: subagent is not its tool", async () => {
    script = {
      PARENT: [
        { toolCalls: [{ name: "subagent", arguments: { mode: "delegate", task: "CHILD nest" } }] },
        { text: "parent done" },
      ],
      CHILD: [
        { toolCalls: [{ name: "subagent", arguments: { mode: "delegate", task: "GRANDCHILD" } }] },
        { text: "child done" },
      ],
    };
    const agent = await agentFor();
    const result = await agent.run("PARENT nest");
    expect(result.status).toBe("completed");
    expect(offered(requestsOf("PARENT")[0]!)).toContain("subagent");
    expect(offered(requestsOf("CHILD")[0]!)).not.toContain("subagent");
    const [child] = await agent.store!.traces.children(result.runId);
    const [call] = await toolSteps(agent, child!.id);
    expect(call!.result).toMatchObject({ ok: false, error: { code: "tool_not_found" } });
    expect(await agent.store!.traces.children(child!.id)).toEqual([]);
    expect(requestsOf("GRANDCHILD")).toHaveLength(0);
    await agent.close();
  });

  it("an unknown preset or a call without its task is a tool error the model can read", async () => {
    script = {
      PARENT: [
        {
          toolCalls: [
            { name: "subagent", arguments: { mode: "delegate", task: "CHILD x", preset: "nope" } },
            { name: "subagent", arguments: { mode: "explore" } },
          ],
        },
        { text: "parent done" },
      ],
    };
    const agent = await agentFor({ persist: false });
    const results: Array<{ ok: boolean; error?: { code: string; message: string } }> = [];
    await agent.run("PARENT wrong", { onEvent: (e) => e.type === "tool_result" && results.push(e) });
    expect(results[0]).toMatchObject({ ok: false, error: { code: "usage_error" } });
    expect(results[0]!.error!.message).toContain('no preset named "nope"');
    expect(results[1]).toMatchObject({ ok: false, error: { code: "tool_invalid_arguments" } });
    expect(requestsOf("CHILD")).toHaveLength(0);
    await agent.close();
  });

  it("a read-only agent gets no subagent tool, and a child over its wall time stops with the reason", async () => {
    const readOnly = await agentFor({ preset: "plan", persist: false });
    expect(readOnly.tools.has("subagent")).toBe(false);
    await readOnly.close();

    script = {
      PARENT: [
        { toolCalls: [{ name: "subagent", arguments: { mode: "evaluate", task: "CHILD check it" } }] },
        { text: "parent done" },
      ],
      CHILD: [{ text: "VERDICT: pass", delayMs: 5_000 }],
    };
    const agent = await agentFor({ config: { subagents: { maxWallMs: 300 } } });
    const result = await agent.run("PARENT evaluate");
    expect(result.status).toBe("completed");
    const [child] = await agent.store!.traces.children(result.runId);
    expect(child).toMatchObject({ preset: "evaluate", status: "failed", error: { code: "budget_exceeded" } });
    expect(child!.error!.message).toContain("This sub-agent has run for");
    expect(JSON.stringify(body(requestsOf("PARENT")[1]!))).toContain("time budget");
    await agent.close();
  });
});
