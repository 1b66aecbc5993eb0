// End to end: the built CLI, as a child process, runs a multi-step file-editing task
// against the fake model server in both wire protocols, in human and --json mode.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli, type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, type FakeReply, startFakeModelServer } from "../support/fake-model-server.js";

type Protocol = "openai-compatible" | "anthropic";

function editingScript(): FakeReply[] {
  return [
    {
      text: "I'll create the file.",
      toolCalls: [
        {
          name: "write_file",
          arguments: { path: "src/greet.ts", content: "export const greet = () => 'hello';\n" },
        },
      ],
    },
    {
      toolCalls: [
        {
          name: "edit_file",
          arguments: { path: "src/greet.ts", old_string: "'hello'", new_string: "'hello, world'" },
        },
      ],
    },
    {
      toolCalls: [
        { name: "read_file", arguments: { path: "src/greet.ts" } },
        { name: "list_files", arguments: { path: "src" } },
      ],
    },
    { text: "Done: src/greet.ts now greets the world." },
  ];
}

function providerArgs(protocol: Protocol, server: FakeModelServer): string[] {
  return protocol === "anthropic"
    ? ["--provider", "anthropic", "--base-url", server.anthropicBaseUrl, "--model", "claude-sonnet-4-5"]
    : ["--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "fake-model"];
}

describe.each<Protocol>(["openai-compatible", "anthropic"])("reson run against a %s server", (protocol) => {
  let server: FakeModelServer;
  let ws: TempDir;
  let home: TempDir;

  beforeEach(async () => {
    server = await startFakeModelServer({ replies: editingScript() });
    ws = tempDir();
    home = tempDir();
  });
  afterEach(async () => {
    await server.close();
    ws.remove();
    home.remove();
  });

  const env = () => cleanEnv({ RESON_HOME: home.path, ANTHROPIC_API_KEY: "sk-ant-test-key" });

  it("completes a multi-step file-editing task and streams text and tool lines", async () => {
    const result = await runCli(
      ["run", ...providerArgs(protocol, server), "make src/greet.ts greet the world"],
      {
        cwd: ws.path,
        env: env(),
      },
    );

    expect(result.stderr).not.toContain("failed");
    expect(result.code).toBe(0);
    expect(readFileSync(join(ws.path, "src/greet.ts"), "utf8")).toBe(
      "export const greet = () => 'hello, world';\n",
    );
    expect(result.stdout).toContain("I'll create the file.");
    expect(result.stdout).toContain("Done: src/greet.ts now greets the world.");
    expect(result.stderr).toMatch(/✓ write_file path="src\/greet.ts"/);
    expect(result.stderr).toMatch(/✓ edit_file path="src\/greet.ts"/);
    expect(result.stderr).toMatch(/✓ read_file/);
    expect(result.stderr).toMatch(/✓ done · 4 steps · \d+ tokens/);
    expect(server.remaining).toBe(0);
    // The native wire opens its connection when the run starts and keeps it for every step;
    // pi-ai's clients (the anthropic provider) open their own.
    if (protocol === "openai-compatible") expect(server.connections).toBe(1);

    // The model saw the results of the parallel read-only calls, in its own order.
    const last = server.requests.at(-1)!.body as Record<string, unknown>;
    const sent = JSON.stringify(last);
    expect(sent).toContain("hello, world");
    expect(sent.indexOf("greet.ts'")).toBeLessThan(sent.lastIndexOf("greet.ts"));
  });

  it("with --json prints only events, one per line, ending in run_end", async () => {
    const result = await runCli(
      ["run", "--json", ...providerArgs(protocol, server), "make src/greet.ts greet the world"],
      {
        cwd: ws.path,
        env: env(),
      },
    );

    expect(result.code).toBe(0);
    const events = parseEvents(result.stdout);
    const runId = events[0]!.runId;
    for (const event of events) {
      expect(event).toMatchObject({
        runId,
        type: expect.any(String),
        step: expect.any(Number),
        ts: expect.any(Number),
      });
    }
    const types = new Set(events.map((e) => e.type));
    for (const type of [
      "run_start",
      "step_start",
      "text_delta",
      "tool_call",
      "tool_result",
      "step_end",
      "run_end",
    ]) {
      expect(types).toContain(type);
    }
    expect(events.filter((e) => e.type === "step_start")).toHaveLength(4);
    expect(events.filter((e) => e.type === "tool_call").map((e) => e.name)).toEqual([
      "write_file",
      "edit_file",
      "read_file",
      "list_files",
    ]);
    const end = events.at(-1)!;
    expect(end).toMatchObject({
      type: "run_end",
      status: "completed",
      steps: 4,
      finalText: "Done: src/greet.ts now greets the world.",
    });
    expect((end.usage as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    expect(events.filter((e) => e.type === "tool_result").every((e) => e.ok === true)).toBe(true);
  });
});

describe("reson run, the key and the workspace", () => {
  it("sends the API key given explicitly and never the environment's OpenAI key to a custom server", async () => {
    const server = await startFakeModelServer({ replies: [{ text: "hi" }] });
    const ws = tempDir();
    try {
      const result = await runCli(
        [
          "run",
          "--provider",
          "openai-compatible",
          "--base-url",
          server.openaiBaseUrl,
          "--api-key",
          "sk-explicit",
          "say hi",
        ],
        { cwd: ws.path, env: cleanEnv({ OPENAI_API_KEY: "sk-from-env-must-not-leak", RESON_HOME: ws.home }) },
      );
      expect(result.code).toBe(0);
      expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-explicit");
      expect(JSON.stringify(server.requests)).not.toContain("sk-from-env-must-not-leak");
    } finally {
      await server.close();
      ws.remove();
    }
  });

  it("works in --workspace and reads the task from stdin with -", async () => {
    const server = await startFakeModelServer({
      replies: [
        { toolCalls: [{ name: "read_file", arguments: { path: "README.md" } }] },
        { text: "It says hi." },
      ],
    });
    const ws = tempDir();
    try {
      writeFileSync(join(ws.path, "README.md"), "hi\n");
      const result = await runCli(
        [
          "run",
          "--json",
          "-w",
          ws.path,
          "--provider",
          "openai-compatible",
          "--base-url",
          server.openaiBaseUrl,
          "-",
        ],
        { env: cleanEnv({ RESON_HOME: ws.home }), input: "what does the README say?\n" },
      );
      expect(result.code).toBe(0);
      const events = parseEvents(result.stdout);
      expect(events[0]).toMatchObject({
        type: "run_start",
        task: "what does the README say?",
        workspace: ws.path,
      });
      expect(events.find((e) => e.type === "tool_result")).toMatchObject({ ok: true, name: "read_file" });
    } finally {
      await server.close();
      ws.remove();
    }
  });
});

// OpenRouter ends some streams with the tool calls, usage and [DONE], but no finish_reason.
describe.each([
  { name: "openai-compatible (native wire)", provider: "openai-compatible", wire: "native" },
  { name: "openai-compatible (pi-ai wire)", provider: "openai-compatible", wire: "pi-ai" },
  { name: "openrouter", provider: "openrouter", wire: undefined },
])("a stream with tool calls and no finish reason, from $name", ({ provider, wire }) => {
  it("is a tool-use step: the tools run and the run goes on to its answer", async () => {
    const server = await startFakeModelServer({
      replies: [
        {
          toolCalls: [{ name: "write_file", arguments: { path: "out.txt", content: "written\n" } }],
          finish: "none",
        },
        { text: "Wrote out.txt.", finish: "none" },
      ],
    });
    const ws = tempDir();
    try {
      const result = await runCli(
        [
          "run",
          "--json",
          "--provider",
          provider,
          "--base-url",
          server.openaiBaseUrl,
          "--api-key",
          "k",
          "--model",
          "fake-model",
          "write out.txt",
        ],
        { cwd: ws.path, env: cleanEnv({ RESON_HOME: ws.home, ...(wire ? { RESON_WIRE: wire } : {}) }) },
      );
      const events = parseEvents(result.stdout);
      expect(result.code).toBe(0);
      expect(events.filter((e) => e.type === "step_end").map((e) => e.stopReason)).toEqual([
        "toolUse",
        "stop",
      ]);
      expect(events.find((e) => e.type === "tool_result")).toMatchObject({ name: "write_file", ok: true });
      expect(readFileSync(join(ws.path, "out.txt"), "utf8")).toBe("written\n");
      expect(events.at(-1)).toMatchObject({
        type: "run_end",
        status: "completed",
        finalText: "Wrote out.txt.",
      });
    } finally {
      await server.close();
      ws.remove();
    }
  });
});
