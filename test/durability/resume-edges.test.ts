// The edges of resume, found by killing the CLI at the seams of a run's life: right after it
// announced itself, right after a sub-agent was announced, between the final step's commit
// and run_end, and while it learned from the run. Every id the output shows is findable,
// resuming a finished run is a clear no-op, and a run is learned from exactly once: its task
// and answer remembered once, its reflection applied once, one run_end.
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CliResult, cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import type { FakeReply, RecordedRequest } from "../support/fake-model-server.js";
import { taskOf } from "../support/reply-by-task.js";

const TASK = "write the note a.txt";
const ANSWER = "The note a.txt is written.";
const RULE = "ADD: WHEN writing a note THEN write it in one call.";

type Messages = Array<{ role: string; content: unknown }>;

function isReflection(request: RecordedRequest): boolean {
  return JSON.stringify(request.body).includes("keep a short list of reusable rules");
}

/** The model, stateless so that a resumed run gets the same answers: one write, then the answer. */
function answer(request: RecordedRequest): FakeReply {
  const messages = (request.body as { messages?: Messages }).messages ?? [];
  if (!messages.some((m) => m.role === "tool"))
    return { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "A\n" } }] };
  return { text: ANSWER };
}

/** For runCli's onStdout: kills the child on the first --json event that `matches`. */
function killOn(matches: (event: Record<string, unknown>) => boolean) {
  let killed = false;
  let partial = "";
  return (chunk: string, child: ChildProcess) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines.filter(Boolean)) {
      if (!killed && matches(JSON.parse(line) as Record<string, unknown>)) {
        killed = true;
        child.kill("SIGKILL");
      }
    }
  };
}

describe("resume at the edges of a run", () => {
  const f = useCliFixture();
  let child: ChildProcess | undefined;
  let reflections = 0;
  /** What the reflection model does with the n-th request (1-based). */
  let onReflection: (n: number) => FakeReply = () => ({ text: RULE });

  const env = (extra: Record<string, string> = {}) =>
    cleanEnv({ RESON_HOME: f.home.path, RESON_MEMORY_REFLECT: "always", ...extra });
  const reson = (
    args: string[],
    options: { env?: NodeJS.ProcessEnv; onStdout?: (chunk: string, child: ChildProcess) => void } = {},
  ): Promise<CliResult> =>
    runCli(args, {
      cwd: f.ws.path,
      env: options.env ?? env(),
      timeoutMs: 15_000,
      onSpawn: (spawned) => {
        child = spawned;
      },
      ...(options.onStdout ? { onStdout: options.onStdout } : {}),
    });
  const run = (options: Parameters<typeof reson>[1] = {}, task = TASK) =>
    reson(["run", "--json", ...fakeModelArgs(f.server), task], options);
  const resume = (id: string, options: Parameters<typeof reson>[1] = {}) =>
    reson(["resume", id, "--json", ...fakeModelArgs(f.server)], options);
  const listJson = async (args: string[]) =>
    (await reson([...args, "--json"])).stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  /** What learning left behind: the run's memory items, and the rules. */
  const learnt = async (runId: string) => ({
    memory: (await listJson(["memory", "list"]))
      .filter((item) => item.traceId === runId)
      .map((item) => `${item.role}: ${item.text}`)
      .sort(),
    rules: (await listJson(["experiences", "list"])).map((rule) => `${rule.condition} -> ${rule.rule}`),
  });
  const ONCE = {
    memory: [`assistant: ${ANSWER}`, `user: ${TASK}`],
    rules: ["writing a note -> write it in one call."],
  };

  function useModel(): void {
    reflections = 0;
    onReflection = () => ({ text: RULE });
    f.server.setResponder((request) => {
      if (!isReflection(request)) return answer(request);
      reflections += 1;
      return onReflection(reflections);
    });
  }

  it("an uninterrupted run learns once and announces its root goal once", async () => {
    useModel();
    const result = await run();
    expect(result.code).toBe(0);
    const events = parseEvents(result.stdout);
    const goals = events.filter((e) => e.type === "goal_changed").map((e) => e.change);
    expect(goals).toEqual([
      expect.objectContaining({
        type: "goal_added",
        goal: expect.objectContaining({ id: "g1", title: TASK }),
      }),
      expect.objectContaining({ type: "goal_focused", goalId: "g1" }),
    ]);
    expect(events.filter((e) => e.type === "learning")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "run_end", status: "completed", finalText: ANSWER });
    expect(await learnt(events[0]!.runId as string)).toEqual(ONCE);
    expect(reflections).toBe(1);
  });

  it("resuming a run that completed says so, and learns nothing again", async () => {
    useModel();
    const first = await run();
    expect(first.code).toBe(0);
    const runId = parseEvents(first.stdout)[0]!.runId as string;
    const requests = f.server.requests.length;

    const again = await resume(runId.slice(0, 12));
    expect(again.code).toBe(0);
    expect(again.stdout).toBe("");
    expect(again.stderr).toContain(`Run ${runId} already completed`);
    expect(again.stderr).toContain("nothing to resume");
    // `reson run --continue` with no task means the same.
    const continued = await reson(["run", "--continue", "--json"]);
    expect(continued.code).toBe(0);
    expect(continued.stdout).toBe("");
    expect(continued.stderr).toContain("nothing to resume");

    expect(f.server.requests.length).toBe(requests);
    expect(await learnt(runId)).toEqual(ONCE);
    const rules = await listJson(["experiences", "list"]);
    expect(rules).toEqual([expect.objectContaining({ usageCount: 0, successCount: 0, failureCount: 0 })]);
  });

  // The kill lands between the last step's commit and run_end: before the end is recorded,
  // or after it, while learning waits for the reflection model (which hangs in that process).
  it("SIGKILL after the final step's commit, then resume: learning once, run_end once", async () => {
    useModel();
    onReflection = () => ({ fault: "hang" });
    let steps = 0;
    const first = await run({ onStdout: killOn((e) => e.type === "step_end" && ++steps === 2) });
    expect(first.signal).toBe("SIGKILL");
    onReflection = () => ({ text: RULE });
    const before = parseEvents(first.stdout);
    expect(before.some((e) => e.type === "run_end" || e.type === "learning")).toBe(false);
    const runId = before[0]!.runId as string;

    const resumed = await resume(runId);
    expect(resumed.stderr).not.toContain("reson:");
    expect(resumed.code).toBe(0);
    const events = parseEvents(resumed.stdout);
    expect(events[0]).toMatchObject({ type: "run_start", runId, resumed: true });
    expect(events.filter((e) => e.type === "tool_call")).toHaveLength(0);
    expect(events.filter((e) => e.type === "learning")).toHaveLength(1);
    expect(events.filter((e) => e.type === "run_end")).toEqual([
      expect.objectContaining({ status: "completed", finalText: ANSWER, steps: 2 }),
    ]);
    expect(await learnt(runId)).toEqual(ONCE);
    expect(readFileSync(join(f.ws.path, "a.txt"), "utf8")).toBe("A\n");

    // And once more: nothing left to do.
    const again = await resume(runId);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe("");
    expect(await learnt(runId)).toEqual(ONCE);
  });

  it("SIGKILL while learning (the task is remembered, reflection is under way), then resume", async () => {
    useModel();
    onReflection = (n) => {
      if (n > 1) return { text: RULE };
      child?.kill("SIGKILL");
      return { fault: "hang" };
    };
    const first = await run();
    expect(first.signal).toBe("SIGKILL");
    const runId = parseEvents(first.stdout)[0]!.runId as string;
    // The first learning got as far as remembering the run.
    expect((await learnt(runId)).memory).toEqual(ONCE.memory);

    const resumed = await resume(runId);
    expect(resumed.code).toBe(0);
    const events = parseEvents(resumed.stdout);
    expect(events.filter((e) => e.type === "learning")).toEqual([
      expect.objectContaining({ reflected: true, remembered: 2 }),
    ]);
    expect(events.filter((e) => e.type === "run_end")).toHaveLength(1);
    expect(await learnt(runId)).toEqual(ONCE);
    expect(reflections).toBe(2);
  });

  it("SIGKILL after learning, before run_end: resume has nothing left to do", async () => {
    useModel();
    const first = await run({ onStdout: killOn((e) => e.type === "learning") });
    const runId = parseEvents(first.stdout)[0]!.runId as string;
    const resumed = await resume(runId);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe("");
    expect(resumed.stderr).toContain("nothing to resume");
    expect(await learnt(runId)).toEqual(ONCE);
    expect(reflections).toBe(1);
  });

  // Between run_start and the first model call the run recalls memory; with an embedding
  // model that is a request, which hangs here, and the kill comes when it arrives.
  it("a run killed between run_start and its first model call is found by the ids it showed", async () => {
    useModel();
    const embeddings = env({
      RESON_EMBEDDINGS_PROVIDER: "openai-compatible",
      RESON_EMBEDDINGS_BASE_URL: f.server.openaiBaseUrl,
      RESON_EMBEDDINGS_MODEL: "fake-embed",
    });
    // A first run gives memory an index of this model, so the next run's recall embeds.
    expect((await run({ env: embeddings })).code).toBe(0);
    const embeds = () => f.server.requests.filter((r) => r.protocol === "openai-embeddings").length;
    const before = embeds();
    f.server.enqueueEmbeddings({ fault: "hang" });
    const watch = setInterval(() => {
      if (embeds() > before) child?.kill("SIGKILL");
    }, 5);
    // Another task: the embedding of the first one is cached.
    const first = await run({ env: embeddings }, "write the note a.txt once more").finally(() =>
      clearInterval(watch),
    );
    expect(first.signal).toBe("SIGKILL");
    const shown = parseEvents(first.stdout);
    const start = shown[0]!;
    expect(start).toMatchObject({ type: "run_start", resumed: false });
    expect(shown.some((e) => e.type === "step_start")).toBe(false);

    const sessions = await reson(["sessions"], { env: embeddings });
    expect(sessions.stdout).toContain(start.sessionId as string);
    const resumed = await resume(start.sessionId as string, { env: embeddings });
    expect(resumed.stderr).not.toContain("reson:");
    expect(resumed.code).toBe(0);
    const events = parseEvents(resumed.stdout);
    expect(events[0]).toMatchObject({ type: "run_start", runId: start.runId, resumed: true });
    expect(events.at(-1)).toMatchObject({ type: "run_end", status: "completed", finalText: ANSWER });
  });

  it("a sub-agent announced by sub_trace_started is already in the store", async () => {
    f.server.setResponder((request) => {
      if (isReflection(request)) return { text: "nothing to add" };
      const child = taskOf(request).startsWith("CHILD");
      const messages = (request.body as { messages?: Messages }).messages ?? [];
      if (child) return { text: "child done" };
      if (!messages.some((m) => m.role === "tool"))
        return {
          toolCalls: [{ name: "subagent", arguments: { mode: "delegate", task: "CHILD look around" } }],
        };
      return { text: "parent done" };
    });
    const first = await reson(["run", "--json", ...fakeModelArgs(f.server), "PARENT delegate"], {
      onStdout: killOn((e) => e.type === "sub_trace_started"),
    });
    expect(first.signal).toBe("SIGKILL");
    const started = parseEvents(first.stdout).find((e) => e.type === "sub_trace_started")!;
    const shown = await reson(["trace", "show", started.childRunId as string]);
    expect(shown.stderr).not.toContain("reson:");
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("CHILD look around");
  });
});
