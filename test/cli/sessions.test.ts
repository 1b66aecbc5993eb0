// End to end: runs are persisted by default; sessions, traces, export, continue, resume and gc
// work on them from the CLI, and no API key ever reaches the database.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { useCliFixture } from "../support/cli-fixture.js";

describe("sessions, traces and resume from the CLI", () => {
  const f = useCliFixture();

  const env = () => cleanEnv({ RESON_HOME: f.home.path, RESON_RETRY_MAX_ATTEMPTS: "1" });
  const model = () => [
    "--provider",
    "openai-compatible",
    "--base-url",
    f.server.openaiBaseUrl,
    "--model",
    "fake-model",
  ];
  const cli = (args: string[]) => runCli(args, { cwd: f.ws.path, env: env() });

  async function firstRun(): Promise<{ runId: string; sessionId: string }> {
    f.server.enqueue(
      { text: "Writing.", toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "A" } }] },
      { text: "Wrote a.txt." },
    );
    const result = await cli([
      "run",
      "--json",
      ...model(),
      "--api-key",
      "sk-secret-never-stored",
      "write a.txt",
    ]);
    expect(result.code).toBe(0);
    const start = parseEvents(result.stdout)[0]!;
    expect(start).toMatchObject({ type: "run_start", resumed: false });
    return { runId: start.runId as string, sessionId: start.sessionId as string };
  }

  it("reson sessions lists the run's session with its workspace, title and usage", async () => {
    const { sessionId } = await firstRun();
    const result = await cli(["sessions"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(sessionId);
    expect(result.stdout).toContain("write a.txt");
    expect(result.stdout).toContain(f.ws.path);
    expect(result.stdout).toContain("completed");
    expect(result.stdout).toContain(join(f.home.path, "reson.db"));
    const json = await cli(["sessions", "--json"]);
    expect(JSON.parse(json.stdout.split("\n")[0]!)).toMatchObject({ id: sessionId, workspace: f.ws.path });
  });

  it("reson trace show prints the run as a tree, found by a short prefix", async () => {
    const { runId } = await firstRun();
    const result = await cli(["trace", "show", runId.slice(0, 10).toLowerCase()]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`run ${runId} · completed`);
    expect(result.stdout).toMatch(/step 1 · model toolUse/);
    expect(result.stdout).toMatch(/└─ write_file path="a.txt" content="A" ✓/);
    expect(result.stdout).toMatch(/step 2 · model stop/);
    expect(result.stdout).toMatch(/└─ learning: 2 remembered · outcome counted for 0 rules · no reflection/);
    expect(result.stdout).toMatch(/context [\d,]+ \/ [\d,]+ tokens \(estimated\) · \d+ messages · goal g1/);
  });

  it("reson trace show --context lists the sections each call saw, with their files and hashes", async () => {
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(f.ws.path, "AGENTS.md"), "Always run the tests.\n");
    const { runId } = await firstRun();
    const result = await cli(["trace", "show", runId, "--context"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(join(f.ws.path, "AGENTS.md"));
    expect(result.stdout).toMatch(/sha256 [0-9a-f]{12}/);
  });

  it("reson trace export writes json and jsonl files", async () => {
    const { runId } = await firstRun();
    const json = await cli([
      "trace",
      "export",
      runId,
      "--format",
      "json",
      "--output",
      join(f.ws.path, "t.json"),
    ]);
    expect(json.code).toBe(0);
    const doc = JSON.parse(readFileSync(join(f.ws.path, "t.json"), "utf8")) as {
      trace: { id: string };
      steps: Array<{ kind: string }>;
      turns: unknown[];
    };
    expect(doc.trace.id).toBe(runId);
    // The learning step records that (and what) the run was learned from.
    expect(doc.steps.map((step) => step.kind)).toEqual(["model_call", "tool_call", "model_call", "learning"]);
    expect(doc.turns).toHaveLength(4);
    const jsonl = await cli(["trace", "export", runId, "--format", "jsonl", "--output", "-"]);
    const records = jsonl.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { record: string });
    expect(records.map((r) => r.record)).toEqual([
      "trace",
      "step",
      "step",
      "step",
      "step",
      "turn",
      "turn",
      "turn",
      "turn",
    ]);
  });

  it("never writes the API key to the database", async () => {
    await firstRun();
    const bytes = readFileSync(join(f.home.path, "reson.db"));
    expect(bytes.includes(Buffer.from("sk-secret-never-stored"))).toBe(false);
  });

  it("run --continue adds a task to the latest session, with the earlier turns as history", async () => {
    const { sessionId } = await firstRun();
    f.server.enqueue({ text: "It says A." });
    const result = await cli(["run", "--json", "--continue", ...model(), "what is in a.txt?"]);
    expect(result.code).toBe(0);
    expect(parseEvents(result.stdout)[0]).toMatchObject({ sessionId });
    const sent = JSON.stringify(f.server.requests.at(-1)!.body);
    expect(sent).toContain("write a.txt");
    expect(sent).toContain("what is in a.txt?");
  });

  it("a failed run is resumed with the settings it was started with, and completes", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "b.txt", content: "B" } }] },
      { fault: "http", status: 503 },
    );
    const failed = await cli(["run", "--json", ...model(), "write b.txt"]);
    expect(failed.code).toBe(1);
    const end = parseEvents(failed.stdout).at(-1)!;
    expect(end).toMatchObject({ status: "failed", error: { code: "provider_unavailable" } });

    f.server.enqueue({ text: "b.txt is written." });
    const resumed = await cli(["resume", (end.runId as string).slice(0, 8), "--json"]);
    expect(resumed.code).toBe(0);
    const events = parseEvents(resumed.stdout);
    expect(events[0]).toMatchObject({ type: "run_start", resumed: true, step: 1, model: "fake-model" });
    expect(events.filter((e) => e.type === "tool_call")).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({ status: "completed", finalText: "b.txt is written.", steps: 2 });
    expect(readFileSync(join(f.ws.path, "b.txt"), "utf8")).toBe("B");
  });

  it("a resumed run keeps the iteration limit it was started with", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "list_files", arguments: { path: "." } }] },
      { fault: "http", status: 503 },
    );
    const failed = await cli(["run", "--json", ...model(), "--max-iterations", "3", "list"]);
    const runId = parseEvents(failed.stdout)[0]!.runId as string;
    f.server.enqueue({ toolCalls: [{ name: "list_files", arguments: { path: "." } }] });
    f.server.enqueue({ toolCalls: [{ name: "list_files", arguments: { path: "." } }] });
    const resumed = await cli(["resume", runId, "--json"]);
    const events = parseEvents(resumed.stdout);
    expect(events[0]).toMatchObject({ maxIterations: 3 });
    expect(events.at(-1)).toMatchObject({ status: "failed", steps: 3, error: { code: "max_iterations" } });
  });

  it("run --continue with no task finishes the latest run of this workspace", async () => {
    f.server.enqueue({ fault: "http", status: 503 });
    expect((await cli(["run", "--json", ...model(), "say hi"])).code).toBe(1);
    f.server.enqueue({ text: "hi" });
    const result = await cli(["run", "--continue", "--json"]);
    expect(result.code).toBe(0);
    expect(parseEvents(result.stdout).at(-1)).toMatchObject({ status: "completed", finalText: "hi" });
  });

  it("an unknown or too short id exits 2 and says what to do", async () => {
    await firstRun();
    const unknown = await cli(["resume", "ZZZZZZZZ"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/hint: .*sessions/);
    const short = await cli(["resume", "01"]);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain("too short");
  });

  it("reson gc says what it would remove, removes nothing without a terminal to ask, and removes with --yes", async () => {
    await firstRun();
    await new Promise((r) => setTimeout(r, 20));
    const dry = await cli(["gc", "--older-than", "0s", "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(
      /^would remove 1 run \(\d+ steps, 1 checkpoint, 0 artifacts\), 1 session, \d+ turns and 0 channel messages older than 0s/,
    );
    expect(dry.stdout).toContain("nothing removed (--dry-run)");

    // A script's old `reson gc --older-than` (stdin not a terminal): nothing goes, and it says what to add.
    const unasked = await cli(["gc", "--older-than", "0s"]);
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toMatch(/reson: reson gc would remove 1 run .* and there is no terminal to ask\./);
    expect(unasked.stderr).toContain("hint: Pass --yes to remove them without asking");
    expect((await cli(["sessions"])).stdout).toContain("write a.txt");

    const result = await cli(["gc", "--older-than", "0s", "--yes"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^removed 1 run \(\d+ steps, 1 checkpoint, 0 artifacts\), 1 session, \d+ turns and 0 channel messages older than 0s/,
    );
    const after = await cli(["sessions"]);
    expect(after.stdout).toContain("No sessions yet");
    expect((await cli(["gc", "--older-than", "0s"])).stdout).toContain("Nothing to remove");
    expect((await cli(["gc"])).code).toBe(2);
  });
});
