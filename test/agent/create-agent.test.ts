// The library: createAgent runs the same loop as the CLI, with the same events, and its
// hooks can allow, deny or change tool calls and see what goes to the model.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgent, type ResonEvent } from "../../src/index.js";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";

describe("createAgent", () => {
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

  const agentFor = (extra: Parameters<typeof createAgent>[0] = {}) =>
    createAgent({
      workspace: ws.path,
      provider: "openai-compatible",
      baseUrl: server.openaiBaseUrl,
      model: "fake-model",
      env: cleanEnv({ RESON_HOME: ws.home }),
      ...extra,
    });

  it("refuses / and, untrusted, a folder holding $RESON_HOME; trustWorkspace lets the latter run", async () => {
    await expect(agentFor({ workspace: "/", trustWorkspace: true })).rejects.toMatchObject({
      code: "workspace_refused",
      message: "reson will not work in /: it is the whole file system.",
    });
    const env = cleanEnv({ RESON_HOME: join(ws.path, ".reson-home") });
    await expect(agentFor({ env })).rejects.toMatchObject({
      code: "workspace_untrusted",
      hint: expect.stringContaining("trustWorkspace: true"),
    });
    server.enqueue(
      {
        toolCalls: [{ name: "write_file", arguments: { path: ".reson-home/settings.json", content: "{}" } }],
      },
      { text: "ok" },
    );
    const agent = await agentFor({ env, trustWorkspace: true, persist: false });
    const events: ResonEvent[] = [];
    expect((await agent.run("try", { onEvent: (e) => events.push(e) })).status).toBe("completed");
    expect(events.find((e) => e.type === "tool_result")).toMatchObject({
      ok: false,
      error: { code: "path_protected" },
    });
    expect(existsSync(join(ws.path, ".reson-home", "settings.json"))).toBe(false);
  });

  it("runs a task and reports the result and events", async () => {
    server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "A" } }] },
      { text: "wrote a.txt" },
    );
    const agent = await agentFor();
    const events: ResonEvent[] = [];
    const result = await agent.run("write a.txt", { onEvent: (e) => events.push(e) });
    expect(result).toMatchObject({ status: "completed", finalText: "wrote a.txt", steps: 2 });
    expect(readFileSync(join(ws.path, "a.txt"), "utf8")).toBe("A");
    expect(events[0]).toMatchObject({ type: "run_start", runId: result.runId, model: "fake-model" });
    expect(events.at(-1)).toMatchObject({ type: "run_end", status: "completed" });
    // The model acted before planning: the task became the focused root goal.
    expect(events.find((e) => e.type === "goal_changed")).toMatchObject({
      change: { type: "goal_added", goal: { id: "g1", title: "write a.txt" } },
    });
    expect(JSON.stringify(server.requests[1]!.body)).toContain("→ [ ] g1 write a.txt");
    const phases = events.filter((e) => e.type === "phase").map((e) => (e as { phase: string }).phase);
    expect(phases).toEqual([
      "prepare",
      "call_provider",
      "dispatch_tools",
      "finalize",
      "prepare",
      "call_provider",
      "finalize",
    ]);
  });

  it("beforeToolCall can deny a call and the model sees the reason", async () => {
    server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "x.txt", content: "x" } }] },
      { text: "ok" },
    );
    const agent = await agentFor({
      hooks: {
        beforeToolCall: (call) =>
          call.name === "write_file" ? { action: "deny", reason: "writes are off today" } : undefined,
      },
    });
    const result = await agent.run("write x");
    expect(result.status).toBe("completed");
    expect(existsSync(join(ws.path, "x.txt"))).toBe(false);
    expect(JSON.stringify(server.requests[1]!.body)).toContain("writes are off today");
  });

  it("beforeToolCall can change the arguments and afterToolCall the result", async () => {
    server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "x.txt", content: "x" } }] },
      { text: "ok" },
    );
    const agent = await agentFor({
      hooks: {
        beforeToolCall: (call) => ({ action: "modify", arguments: { ...call.arguments, path: "y.txt" } }),
        afterToolCall: (_call, result) => ({ ...result, content: `${result.content} [audited]` }),
      },
    });
    await agent.run("write x");
    expect(existsSync(join(ws.path, "x.txt"))).toBe(false);
    expect(readFileSync(join(ws.path, "y.txt"), "utf8")).toBe("x");
    expect(JSON.stringify(server.requests[1]!.body)).toContain("[audited]");
  });

  it("transformContext sees and can change what is sent", async () => {
    server.enqueue({ text: "ok" });
    const seen: string[] = [];
    const agent = await agentFor({
      hooks: {
        transformContext: (request) => {
          seen.push(request.systemPrompt);
          return { ...request, systemPrompt: `${request.systemPrompt}\nALWAYS BE BRIEF` };
        },
      },
    });
    await agent.run("hi");
    expect(seen[0]).toContain("Workspace root:");
    expect(JSON.stringify(server.requests[0]!.body)).toContain("ALWAYS BE BRIEF");
  });

  it("stream() yields the events of a run in order and then ends", async () => {
    server.enqueue({ text: "streamed answer" });
    const agent = await agentFor();
    const stream = agent.stream("hi");
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types[0]).toBe("run_start");
    expect(types.at(-1)).toBe("run_end");
    expect(types).toContain("text_delta");
    expect((await stream.result).finalText).toBe("streamed answer");
  });

  it("an AbortSignal ends the run as aborted", async () => {
    server.enqueue({ text: "one two three four five six seven", chunkDelayMs: 300 });
    const agent = await agentFor();
    const controller = new AbortController();
    const result = await agent.run("talk", {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === "text_delta") controller.abort();
      },
    });
    expect(result.status).toBe("aborted");
    expect(result.error?.code).toBe("aborted");
  });

  it("read-only calls of one step run in parallel and results keep the model's order", async () => {
    server.enqueue(
      {
        toolCalls: [
          { name: "execute_command", arguments: { command: "echo one > one.txt" } },
          { name: "read_file", arguments: { path: "one.txt" } },
          { name: "list_files", arguments: { path: "." } },
        ],
      },
      { text: "done" },
    );
    const agent = await agentFor();
    const order: string[] = [];
    await agent.run("go", { onEvent: (e) => e.type === "tool_result" && order.push(e.name) });
    const body = server.requests[1]!.body as { messages: Array<{ role: string; content: unknown }> };
    const toolMessages = body.messages.filter((m) => m.role === "tool");
    expect(toolMessages).toHaveLength(3);
    // The read ran after the command that wrote the file (no reordering across a write).
    expect(JSON.stringify(toolMessages[1]!.content)).toContain("one");
    expect(order[0]).toBe("execute_command");
  });
});

describe("parallel read-only tools", () => {
  it("two read-only calls in one step run at the same time", async () => {
    const { Type } = await import("typebox");
    const server = await startFakeModelServer({
      replies: [
        {
          toolCalls: [
            { name: "meet_a", arguments: {} },
            { name: "meet_b", arguments: {} },
          ],
        },
        { text: "met" },
      ],
    });
    const ws = tempDir();
    let arrived = 0;
    let release: () => void = () => {};
    const both = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Each call waits for the other: run one after the other, they would time out.
    const meeting = (name: string) => ({
      name,
      description: "waits for the other meeting tool",
      parameters: Type.Object({}),
      readOnly: true,
      execute: async () => {
        arrived++;
        if (arrived === 2) release();
        const timeout = new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error("ran alone")), 3000),
        );
        await Promise.race([both, timeout]);
        return { content: `${name} met` };
      },
    });
    try {
      const agent = await createAgent({
        workspace: ws.path,
        provider: "openai-compatible",
        baseUrl: server.openaiBaseUrl,
        env: cleanEnv({ RESON_HOME: ws.home }),
        tools: [meeting("meet_a"), meeting("meet_b")],
      });
      const results: Array<{ name: string; ok: boolean }> = [];
      const result = await agent.run("meet", {
        onEvent: (e) => e.type === "tool_result" && results.push({ name: e.name, ok: e.ok }),
      });
      expect(result.status).toBe("completed");
      expect(results.every((r) => r.ok)).toBe(true);
      const body = JSON.stringify(server.requests[1]!.body);
      expect(body.indexOf("meet_a met")).toBeLessThan(body.indexOf("meet_b met"));
    } finally {
      await server.close();
      ws.remove();
    }
  });
});

describe("two-layer tool results", () => {
  it("an output marked includeOutputOnlyOnce is shown in full once, then only as its long-term line", async () => {
    const { Type } = await import("typebox");
    const server = await startFakeModelServer({
      replies: [
        { toolCalls: [{ name: "fetch_page", arguments: {} }] },
        { toolCalls: [{ name: "list_files", arguments: { path: "." } }] },
        { text: "done" },
      ],
    });
    const ws = tempDir();
    try {
      const agent = await createAgent({
        workspace: ws.path,
        provider: "openai-compatible",
        baseUrl: server.openaiBaseUrl,
        env: cleanEnv({ RESON_HOME: ws.home }),
        tools: [
          {
            name: "fetch_page",
            description: "returns a long page",
            parameters: Type.Object({}),
            readOnly: true,
            execute: async () => ({
              content: "FULL PAGE BODY ".repeat(50),
              longTermMemory: "fetched the page (750 chars)",
              includeOutputOnlyOnce: true,
            }),
          },
        ],
      });
      expect((await agent.run("read the page")).status).toBe("completed");
      const second = JSON.stringify(server.requests[1]!.body);
      const third = JSON.stringify(server.requests[2]!.body);
      expect(second).toContain("FULL PAGE BODY");
      expect(third).not.toContain("FULL PAGE BODY");
      expect(third).toContain("fetched the page (750 chars)");
    } finally {
      await server.close();
      ws.remove();
    }
  });
});

describe("prompt caching", () => {
  it("for Anthropic, the stable system prompt carries the cache mark and the goal tree stays out of it", async () => {
    const server = await startFakeModelServer({
      replies: [{ toolCalls: [{ name: "list_files", arguments: { path: "." } }] }, { text: "done" }],
    });
    const ws = tempDir();
    try {
      const agent = await createAgent({
        workspace: ws.path,
        provider: "anthropic",
        baseUrl: server.anthropicBaseUrl,
        apiKey: "sk-ant-test",
        env: cleanEnv({ RESON_HOME: ws.home }),
        persist: false,
      });
      expect((await agent.run("look around")).status).toBe("completed");
      const first = server.requests[0]!.body as { system: Array<{ text: string; cache_control?: unknown }> };
      const second = server.requests[1]!.body as { system: Array<{ text: string; cache_control?: unknown }> };
      expect(first.system.at(-1)!.cache_control).toEqual({ type: "ephemeral" });
      // Byte-identical system prompt on both calls, although the goal tree appeared in between.
      expect(JSON.stringify(second.system)).toBe(JSON.stringify(first.system));
      expect(JSON.stringify(second.system)).not.toContain("g1");
      expect(JSON.stringify(server.requests[1]!.body)).toContain("→ [ ] g1 look around");
    } finally {
      await server.close();
      ws.remove();
    }
  });
});

describe("instruction files in the request", () => {
  it("sends baseline, AGENTS.md, SOUL.md and USER.md in order, an oversized file cut with a marker and a warning", async () => {
    const server = await startFakeModelServer({ replies: [{ text: "ok" }] });
    const ws = tempDir();
    try {
      const { mkdirSync, writeFileSync } = await import("node:fs");
      mkdirSync(join(ws.path, ".git"));
      writeFileSync(
        join(ws.path, "AGENTS.md"),
        `RULE-ONE: run the tests.\n${"filler line of project rules\n".repeat(1500)}RULE-LAST\n`,
      );
      writeFileSync(join(ws.path, "SOUL.md"), "SOUL-TEXT: be terse.\n");
      writeFileSync(join(ws.path, "USER.md"), "USER-TEXT: prefers TypeScript.\n");
      const agent = await createAgent({
        workspace: ws.path,
        provider: "openai-compatible",
        baseUrl: server.openaiBaseUrl,
        env: cleanEnv({ RESON_HOME: ws.home }),
        persist: false,
      });
      const warnings: string[] = [];
      await agent.run("hi", { onEvent: (e) => e.type === "warning" && warnings.push(e.message) });
      const body = server.requests[0]!.body as { messages: Array<{ role: string; content: string }> };
      const system = body.messages.find((m) => m.role === "system")!.content;
      const order = [
        "You are reson",
        "RULE-ONE",
        "characters cut from",
        "RULE-LAST",
        "SOUL-TEXT",
        "USER-TEXT",
      ].map((s) => system.indexOf(s));
      expect(order.every((index) => index >= 0)).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      expect(warnings.join("\n")).toContain("AGENTS.md");
    } finally {
      await server.close();
      ws.remove();
    }
  });
});
