import { afterEach, describe, expect, test } from "vitest";
import { isResonError } from "../../src/core/errors.js";
import { type McpProgress, openSdkConnection, type SdkConnection } from "../../src/mcp/index.js";
import { everythingHttp, everythingStdio, testServer } from "./servers.js";

const never = () => new AbortController().signal;
const open: SdkConnection[] = [];
const closeAll = () => Promise.all(open.splice(0).map((c) => c.close()));
afterEach(closeAll);

async function connect(name: string, config: Parameters<typeof openSdkConnection>[1]["config"]) {
  const connection = await openSdkConnection(name, { config, cwd: process.cwd(), signal: never() });
  open.push(connection);
  return connection;
}

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (isResonError(error)) return error;
    throw error;
  }
  throw new Error("expected a failure");
}

describe("server-everything over stdio", () => {
  test("lists its tools with their JSON Schemas and read-only hints, and calls one", async () => {
    const everything = await connect("everything", everythingStdio());
    const tools = await everything.listTools(never());
    const echo = tools.find((t) => t.name === "echo");
    expect(echo?.inputSchema).toMatchObject({ type: "object", required: ["message"] });
    expect(echo?.readOnlyHint).toBe(true);
    expect(tools.find((t) => t.name === "toggle-simulated-logging")?.readOnlyHint).toBe(false);
    const result = await everything.callTool(
      "echo",
      { message: "hello" },
      { signal: never(), timeoutMs: 10_000 },
    );
    expect(result).toEqual({ content: [{ type: "text", text: "Echo: hello" }], isError: false });
  });

  test("a long tool that reports progress outlives a call timeout shorter than the whole call", async () => {
    const everything = await connect("everything", everythingStdio());
    const progress: McpProgress[] = [];
    // 6 steps of 0.5 s (3 s) against a 2 s timeout: only the progress notifications keep it alive.
    const result = await everything.callTool(
      "trigger-long-running-operation",
      { duration: 3, steps: 6 },
      { signal: never(), timeoutMs: 2_000, onProgress: (p) => progress.push(p) },
    );
    expect(result.content[0]).toMatchObject({ text: expect.stringContaining("completed") });
    // The last notification may be handled after the answer.
    expect(progress.map((p) => p.progress).slice(0, 5)).toEqual([1, 2, 3, 4, 5]);
  });

  test("a call without progress fails at its timeout with a hint naming the setting", async () => {
    const server = testServer();
    try {
      const connection = await connect("slow", server.config);
      const error = await failure(
        connection.callTool("wait", { ms: 5_000 }, { signal: never(), timeoutMs: 300 }),
      );
      expect(error.code).toBe("tool_failed");
      expect(error.hint).toContain("mcp.servers.slow.callTimeoutMs");
    } finally {
      // The server stops first: it may still be logging (a cancellation it was just sent).
      await closeAll();
      server.remove();
    }
  });

  test("prompts and resources are listed and read", async () => {
    const everything = await connect("everything", everythingStdio());
    const prompts = await everything.listPrompts(never());
    expect(prompts.find((p) => p.name === "args-prompt")?.arguments).toEqual([
      { name: "city", description: "Name of the city", required: true },
      { name: "state", required: false },
    ]);
    const messages = await everything.getPrompt("args-prompt", { city: "Lyon" }, never());
    expect(JSON.stringify(messages)).toContain("Lyon");
    const resources = await everything.listResources(never());
    const doc = resources.find((r) => r.name === "architecture.md");
    expect(doc).toBeDefined();
    const contents = await everything.readResource(doc?.uri as string, never());
    expect(contents[0]?.text?.length).toBeGreaterThan(100);
  });
});

describe("cancellation and dead servers", () => {
  test("aborting a call sends notifications/cancelled to the server and fails at once", async () => {
    const server = testServer();
    try {
      const connection = await connect("test", server.config);
      const controller = new AbortController();
      const call = connection.callTool(
        "wait",
        { ms: 30_000 },
        { signal: controller.signal, timeoutMs: 60_000 },
      );
      setTimeout(() => controller.abort(), 200);
      const error = await failure(call);
      expect(error.code).toBe("aborted");
      await expect.poll(() => server.log().some((line) => line.startsWith("cancelled"))).toBe(true);
    } finally {
      // The server stops first: it may still be logging (a cancellation it was just sent).
      await closeAll();
      server.remove();
    }
  });

  test("a server killed mid-call fails the call with mcp_unavailable, is restarted once, then given up", async () => {
    const server = testServer();
    try {
      const connection = await connect("flaky", server.config);
      const first = await failure(connection.callTool("crash", {}, { signal: never(), timeoutMs: 10_000 }));
      expect(first.code).toBe("mcp_unavailable");
      expect(first.message).toContain('"flaky" stopped');
      // The next call restarts it (once).
      const echoed = await connection.callTool(
        "echo",
        { text: "back" },
        { signal: never(), timeoutMs: 10_000 },
      );
      expect(echoed.content).toEqual([{ type: "text", text: "back" }]);
      expect(server.log().filter((l) => l.startsWith("started"))).toHaveLength(2);
      await failure(connection.callTool("crash", {}, { signal: never(), timeoutMs: 10_000 }));
      const after = await failure(
        connection.callTool("echo", { text: "x" }, { signal: never(), timeoutMs: 10_000 }),
      );
      expect(after.code).toBe("mcp_unavailable");
      expect(after.message).toContain("could not be restarted");
      expect(connection.status).toBe("failed");
      expect(server.log().filter((l) => l.startsWith("started"))).toHaveLength(2);
    } finally {
      // The server stops first: it may still be logging (a cancellation it was just sent).
      await closeAll();
      server.remove();
    }
  });

  test("a command that does not exist fails to start with mcp_unavailable and a hint", async () => {
    const error = await failure(connect("missing", { command: "/nonexistent/mcp-server" }));
    expect(error.code).toBe("mcp_unavailable");
    expect(error.hint).toContain("command");
  });
});

describe("server-everything over Streamable HTTP on 127.0.0.1", () => {
  test("lists tools, calls one with progress, and a server killed mid-call fails the call", async () => {
    const http = await everythingHttp();
    try {
      const everything = await connect("remote", { url: http.url });
      expect(everything.transport).toBe("http");
      const tools = await everything.listTools(never());
      expect(tools.map((t) => t.name)).toContain("echo");
      const progress: McpProgress[] = [];
      const result = await everything.callTool(
        "trigger-long-running-operation",
        { duration: 1, steps: 2 },
        { signal: never(), timeoutMs: 5_000, onProgress: (p) => progress.push(p) },
      );
      expect(result.isError).toBe(false);
      expect(progress.length).toBeGreaterThanOrEqual(1);
      const call = everything.callTool(
        "trigger-long-running-operation",
        { duration: 10, steps: 10 },
        {
          signal: never(),
          timeoutMs: 30_000,
        },
      );
      setTimeout(() => void http.stop(), 300);
      const error = await failure(call);
      expect(error.code).toBe("mcp_unavailable");
      expect(error.message).toContain('"remote" stopped');
    } finally {
      await http.stop();
    }
  });

  test("a URL that answers nothing fails to start with mcp_unavailable", async () => {
    const error = await failure(
      connect("nobody", { url: "http://127.0.0.1:9/mcp", startupTimeoutMs: 3_000 }),
    );
    expect(error.code).toBe("mcp_unavailable");
  });

  test("a server of the old HTTP+SSE transport is reached with type sse, and by fallback from a 4xx", async () => {
    const sse = await everythingHttp("sse");
    try {
      const declared = await connect("old", { type: "sse", url: sse.url });
      expect(declared.transport).toBe("sse");
      const echoed = await declared.callTool(
        "echo",
        { message: "old" },
        { signal: never(), timeoutMs: 10_000 },
      );
      expect(echoed.content).toEqual([{ type: "text", text: "Echo: old" }]);
      const probed = await connect("probed", { url: sse.url });
      expect(probed.transport).toBe("sse");
      expect((await probed.listTools(never())).map((t) => t.name)).toContain("echo");
    } finally {
      await sse.stop();
    }
  });
});
