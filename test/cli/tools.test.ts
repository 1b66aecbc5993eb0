// `reson tools`: two headless runs against the fake model server record their tool calls in
// the store; the command shows counts, ok %, failure codes, percentiles and health flags for
// the workspace's project, and --json parses.
import { realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toolHealth } from "../../src/cli/tools-command.js";
import type { ToolStatsRecord } from "../../src/store/index.js";
import { cleanEnv, parseEvents, runCli, tempDir } from "../support/cli.js";
import { useCliFixture } from "../support/cli-fixture.js";

interface ToolRow extends ToolStatsRecord {
  okRate: number | null;
  flags: string[];
}

interface ResultEvent {
  name: string;
  ok: boolean;
  error?: { code: string };
}

/** Results arrive as calls finish (read-only calls run in parallel): sorted "name ok" pairs. */
function outcomes(results: ResultEvent[]): string[] {
  return results.map((r) => `${r.name} ${r.ok}`).sort();
}

describe("reson tools", () => {
  const f = useCliFixture();

  const env = () => cleanEnv({ RESON_HOME: f.home.path });
  const run = (task: string) =>
    runCli(
      [
        "run",
        "--json",
        "--provider",
        "openai-compatible",
        "--base-url",
        f.server.openaiBaseUrl,
        "--allow",
        "execute_command",
        task,
      ],
      { cwd: f.ws.path, env: env() },
    );
  const toolResults = (stdout: string) =>
    parseEvents(stdout).filter((e) => e.type === "tool_result") as unknown as ResultEvent[];
  const tools = (args: string[] = [], cwd = f.ws.path) => runCli(["tools", ...args], { cwd, env: env() });

  it("says so when nothing is recorded, and where the data is", async () => {
    const result = await tools();
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`No tool calls recorded for ${realpathSync(f.ws.path)} yet`);
    expect(result.stdout).toContain(`Data: ${f.home.path}`);
    const json = await tools(["--json"]);
    expect(json.code).toBe(0);
    expect(json.stdout).toBe("");
  });

  it("shows counts, ok %, failure codes and the failing flag after two runs; --json parses", async () => {
    writeFileSync(join(f.ws.path, "a.txt"), "hello\n");
    f.server.enqueue(
      {
        toolCalls: [
          { name: "read_file", arguments: { path: "a.txt" } },
          { name: "read_file", arguments: { path: "missing.txt" } },
          { name: "write_file", arguments: { path: "b.txt", content: "B" } },
        ],
      },
      { text: "first done" },
    );
    const first = await run("first task");
    expect(first.code).toBe(0);
    const firstResults = toolResults(first.stdout);
    expect(outcomes(firstResults)).toEqual(["read_file false", "read_file true", "write_file true"]);
    const missingCode = firstResults.find((r) => !r.ok)?.error?.code ?? "";
    expect(missingCode).not.toBe("");

    f.server.enqueue(
      {
        toolCalls: [
          { name: "read_file", arguments: { path: "missing.txt" } },
          { name: "read_file", arguments: { path: "also-missing.txt" } },
          { name: "read_file", arguments: { path: "a.txt" } },
          { name: "execute_command", arguments: { command: "exit 3" } },
        ],
      },
      { text: "second done" },
    );
    const second = await run("second task");
    expect(second.code).toBe(0);
    const secondResults = toolResults(second.stdout);
    expect(outcomes(secondResults)).toEqual([
      "execute_command false",
      "read_file false",
      "read_file false",
      "read_file true",
    ]);
    const commandCode = secondResults.find((r) => r.name === "execute_command")?.error?.code ?? "";
    expect(commandCode).not.toBe("");

    const json = await tools(["--json"]);
    expect(json.stderr).toBe("");
    expect(json.code).toBe(0);
    const rows = json.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as ToolRow);
    // Most used first: the order the model is offered the tools in.
    expect(rows.map((r) => r.tool)).toEqual(["read_file", "execute_command", "write_file"]);
    const [read, command, write] = rows;
    expect(read).toMatchObject({
      calls: 5,
      successes: 2,
      failures: 3,
      failuresByCode: { [missingCode]: 3 },
      okRate: 0.4,
      flags: ["failing"],
    });
    expect(read?.p50Ms).toBeTypeOf("number");
    expect(read?.p95Ms).toBeGreaterThanOrEqual(read?.p50Ms ?? 0);
    expect(read?.lastCallAt).toBeTypeOf("number");
    expect(command).toMatchObject({
      calls: 1,
      failures: 1,
      failuresByCode: { [commandCode]: 1 },
      flags: [],
    });
    expect(write).toMatchObject({
      calls: 1,
      successes: 1,
      failures: 0,
      failuresByCode: {},
      okRate: 1,
      flags: [],
    });

    const human = await tools();
    expect(human.code).toBe(0);
    const lines = human.stdout.split("\n");
    expect(lines[0]).toMatch(/^TOOL\s+CALLS\s+OK\s+FAILURES\s+P50\s+P95\s+LAST CALL\s+FLAGS$/);
    expect(lines.find((l) => l.startsWith("read_file"))).toMatch(
      new RegExp(
        `^read_file\\s+5\\s+40%\\s+3 \\(${missingCode} 3\\)\\s+\\d+ ms\\s+\\d+ ms\\s+\\d+s ago\\s+failing$`,
      ),
    );
    expect(lines.find((l) => l.startsWith("execute_command"))).toMatch(
      new RegExp(`^execute_command\\s+1\\s+0%\\s+1 \\(${commandCode} 1\\)`),
    );
    expect(lines.find((l) => l.startsWith("write_file"))).toMatch(/^write_file\s+1\s+100%\s+0\s/);
    expect(human.stdout).toContain("most used first");

    // Another folder is another project; -w names the workspace from anywhere.
    const elsewhere = tempDir();
    try {
      expect((await tools([], elsewhere.path)).stdout).toContain("No tool calls recorded");
      const named = await tools(["--json", "-w", f.ws.path], elsewhere.path);
      expect(named.stdout.trim().split("\n")).toHaveLength(3);
    } finally {
      elsewhere.remove();
    }
  });

  it("offers the tools most used in this project first, in the next run", async () => {
    const glob = { toolCalls: [{ name: "glob", arguments: { pattern: "*" } }] };
    f.server.enqueue(glob, glob, glob, { text: "looked" });
    expect((await run("look around")).code).toBe(0);
    const before = (f.server.requests[0]!.body as { tools: Array<{ function: { name: string } }> }).tools;
    expect(before[0]!.function.name).not.toBe("glob");
    f.server.enqueue({ text: "again" });
    expect((await run("again")).code).toBe(0);
    const after = (f.server.requests.at(-1)!.body as { tools: Array<{ function: { name: string } }> }).tools;
    expect(after[0]!.function.name).toBe("glob");
    expect(after).toHaveLength(before.length);
  });

  it("refuses unknown flags and a missing workspace", async () => {
    expect((await tools(["--nope"])).code).toBe(2);
    const missing = await tools(["-w", join(f.ws.path, "no-such-dir")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("does not exist");
  });
});

describe("tool health flags", () => {
  const stats = (patch: Partial<ToolStatsRecord>): ToolStatsRecord => ({
    projectKey: "p",
    tool: "t",
    calls: 10,
    successes: 10,
    failures: 0,
    failuresByCode: {},
    totalDurationMs: 0,
    p50Ms: 10,
    p95Ms: 10,
    lastCallAt: 0,
    ...patch,
  });

  it("failing: at least 30% failures over at least 5 calls", () => {
    expect(toolHealth(stats({ calls: 10, successes: 7, failures: 3 }), false)).toEqual(["failing"]);
    expect(toolHealth(stats({ calls: 10, successes: 8, failures: 2 }), false)).toEqual([]);
    expect(toolHealth(stats({ calls: 4, successes: 0, failures: 4 }), false)).toEqual([]);
  });

  it("slow: p95 over 10 s, or over 2 s for a read-only tool; no samples, no flag", () => {
    expect(toolHealth(stats({ p95Ms: 10_001 }), false)).toEqual(["slow"]);
    expect(toolHealth(stats({ p95Ms: 9_000 }), false)).toEqual([]);
    expect(toolHealth(stats({ p95Ms: 2_001 }), true)).toEqual(["slow"]);
    expect(toolHealth(stats({ p95Ms: null }), true)).toEqual([]);
    expect(toolHealth(stats({ calls: 5, successes: 0, failures: 5, p95Ms: 30_000 }), false)).toEqual([
      "failing",
      "slow",
    ]);
  });
});
