// End to end: sub-agents and hard budgets from the command line. A child's calls pass the
// same permission gate as the parent's (denied headless with the same message), the run's
// --max-tokens covers its children, the human output has a line per sub-agent, and
// `reson trace show` lists a run's sub-agents.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { useCliFixture } from "../support/cli-fixture.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import { replyByTask } from "../support/reply-by-task.js";

describe("sub-agents from the command line", () => {
  const f = useCliFixture();
  const reson = (args: string[]) =>
    runCli(args, { cwd: f.ws.path, env: cleanEnv({ RESON_HOME: f.home.path }), timeoutMs: 30_000 });
  const run = (args: string[]) =>
    reson(["run", "--provider", "openai-compatible", "--base-url", f.server.openaiBaseUrl, ...args]);

  it("a child's command is denied by the same gate, with the same message, as the parent's", async () => {
    const replies = replyByTask({
      PARENT: [
        { toolCalls: [{ name: "execute_command", arguments: { command: "touch made.txt" } }] },
        { toolCalls: [{ name: "subagent", arguments: { mode: "delegate", task: "CHILD touch it" } }] },
        { text: "parent done" },
      ],
      CHILD: [
        { toolCalls: [{ name: "execute_command", arguments: { command: "touch made.txt" } }] },
        { text: "child could not" },
      ],
    });
    // Parent and child share the server: a reply is chosen by the task that asks.
    const server = await startFakeModelServer({ respond: replies });
    try {
      const result = await reson([
        "run",
        "--json",
        "--sandbox",
        "off",
        "--provider",
        "openai-compatible",
        "--base-url",
        server.openaiBaseUrl,
        "PARENT go",
      ]);
      expect(result.stderr).not.toContain("reson:");
      expect(result.code).toBe(0);
      const events = parseEvents(result.stdout);
      const parentId = events[0]!.runId as string;
      expect(events.every((e) => e.runId === parentId)).toBe(true);
      const denied = events.find((e) => e.type === "tool_result" && e.name === "execute_command")!;
      expect(denied).toMatchObject({ ok: false, error: { code: "tool_denied" } });
      const message = (denied.error as { message: string }).message;
      expect(message).toContain("cannot ask for approval (headless)");
      const started = events.find((e) => e.type === "sub_trace_started")!;
      expect(events.find((e) => e.type === "sub_trace_completed")).toMatchObject({ status: "completed" });
      const childId = started.childRunId as string;

      // The child's call: the same decision, recorded in its own trace.
      const exported = await reson(["trace", "export", childId, "--format", "json", "--output", "-"]);
      const childTrace = JSON.parse(exported.stdout) as {
        trace: { parentTraceId: string };
        steps: Array<{ kind: string; data: { name: string; result?: { error?: { message: string } } } }>;
      };
      expect(childTrace.trace.parentTraceId).toBe(parentId);
      const childCall = childTrace.steps.find((s) => s.kind === "tool_call")!;
      expect(childCall.data.result?.error?.message).toBe(message);
      expect(existsSync(join(f.ws.path, "made.txt"))).toBe(false);

      const shown = await reson(["trace", "show", parentId]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain("sub-agents (1;");
      expect(shown.stdout).toMatch(new RegExp(`${childId} · completed · 2 steps`));
    } finally {
      await server.close();
    }
  });

  it("--max-tokens covers the run's sub-agents: their use stops the run, exit 1", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "subagent", arguments: { mode: "delegate", task: "count" } }] },
      { toolCalls: [{ name: "list_files", arguments: { path: "." } }] },
      { toolCalls: [{ name: "list_files", arguments: { path: "." } }] },
    );
    const result = await run(["--max-tokens", "50", "spend"]);
    expect(result.code).toBe(1);
    // One dim line when the sub-agent starts, one when it ends, then the run's failure.
    expect(result.stderr).toMatch(
      /↳ sub-agent \S+ · delegate \(default\) · count · up to 20 steps, 31 tokens/,
    );
    expect(result.stderr).toMatch(/↳ sub-agent \S+ failed \[budget_exceeded\] · 2 steps · 38 tokens/);
    expect(result.stderr).toContain(
      "✗ failed [budget_exceeded]: The run has used 57 tokens of its 50-token budget.",
    );
    expect(result.stderr).toContain("hint: Raise it with --max-tokens");
  });

  it("rejects a --max-time that is not a duration", async () => {
    const result = await run(["--max-time", "soon", "x"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--max-time must be a duration such as 90s, 10m or 2h");
  });
});
