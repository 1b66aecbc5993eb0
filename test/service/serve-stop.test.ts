// `reson serve` executing runs itself (SQLite) and stopped by SIGTERM past --grace while a run
// is inside a command: a shutdown is not a cancel. The run does not end (no run_end for a
// client following it, no learning, the command's result not recorded), exactly as a crash
// leaves it; serve started again resumes it, tells the model the call was interrupted, and the
// run ends once.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { type Served, startServed, useServedFixture } from "../support/served-run.js";
import { readSse, type SseClientFrame } from "../support/sse-client.js";
import { waitForFile } from "../support/wait-for-file.js";
import { toolMessagesOf, waitingCommand } from "../support/waiting-command.js";

interface StoredEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

async function get<T>(served: Served, path: string): Promise<T> {
  const response = await fetch(`${served.url}${path}`, { headers: served.headers });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as T;
}

async function waitForRun(served: Served, id: string, statuses: string[]) {
  for (let tries = 0; tries < 300; tries++) {
    const run = await get<{ status: string; attempts: number }>(served, `/runs/${id}`);
    if (statuses.includes(run.status)) return run;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${id} did not reach ${statuses.join(" or ")}`);
}

describe("reson serve stopped while it runs a run", () => {
  const f = useServedFixture(waitingCommand);

  it("leaves the run as a crash would, and started again finishes it with one end, the call reported interrupted", async () => {
    const first = await startServed(f.ws.home, f.ws.path, ["--grace", "1s"]);
    const posted = await fetch(`${first.url}/runs`, {
      method: "POST",
      headers: first.headers,
      body: JSON.stringify({
        task: "wait for go",
        workspace: f.ws.path,
        provider: "openai-compatible",
        baseUrl: f.model.openaiBaseUrl,
        model: "fake-model",
        sandbox: "off",
        allow: ["execute_command"],
      }),
    });
    expect(posted.status).toBe(202);
    const { id } = (await posted.json()) as { id: string };
    await waitForFile(join(f.ws.path, "started.txt"));

    // A client follows the run while serve stops: it must never see an end.
    const seen: SseClientFrame[] = [];
    const following = readSse(
      `${first.url}/runs/${id}/events`,
      { authorization: first.headers.authorization! },
      { timeoutMs: 30_000, onFrame: (frame) => seen.push(frame) },
    ).catch(() => seen);
    for (let tries = 0; tries < 200 && !seen.some((frame) => frame.event === "tool_call"); tries++)
      await new Promise((r) => setTimeout(r, 50));
    first.process.kill("SIGTERM");
    expect((await first.process.exited()).code).toBe(0);
    await following;
    expect(seen.map((frame) => frame.event)).toContain("tool_call");
    expect(seen.map((frame) => frame.event)).not.toContain("run_end");

    // As a crash leaves it: running, back in the queue with its attempt given back, no end, no learning.
    const store = await openStore({ home: f.ws.home });
    try {
      expect(await store.traces.get(id)).toMatchObject({ status: "running", endedAt: null });
      expect(await store.queue.get(id)).toMatchObject({ status: "queued", attempts: 0 });
      const types = (await store.events.list(id)).map((event) => event.type);
      expect(types).not.toContain("run_end");
      expect(types).not.toContain("learning");
      expect(types).not.toContain("tool_result");
      expect((await store.steps.list(id)).filter((step) => step.kind === "learning")).toEqual([]);
    } finally {
      await store.close();
    }

    const again = await startServed(f.ws.home, f.ws.path);
    const done = await waitForRun(again, id, ["completed", "failed", "cancelled"]);
    expect(done).toMatchObject({ status: "completed", attempts: 1 });
    const { events } = await get<{ events: StoredEvent[] }>(again, `/runs/${id}/events?format=json`);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i + 1));
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === "run_end")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "run_end", data: { status: "completed" } });
    expect(events.filter((e) => e.type === "run_start").map((e) => e.data.resumed)).toEqual([false, true]);
    // Learning once, from the real end.
    const resumedAt = events.findIndex((e) => e.type === "run_start" && e.data.resumed === true);
    expect(types.filter((type) => type === "learning")).toHaveLength(1);
    expect(types.indexOf("learning")).toBeGreaterThan(resumedAt);

    // The call serve was inside is reported interrupted: in its event and to the model.
    const results = events.filter((e) => e.type === "tool_result");
    expect(results).toHaveLength(1);
    expect(results[0]!.data).toMatchObject({ ok: false, error: { code: "tool_interrupted" } });
    expect(results[0]!.data.content).toContain("interrupted before its result was saved");
    const chats = f.model.requests.filter((request) => request.protocol === "openai");
    expect(chats).toHaveLength(2);
    expect(toolMessagesOf(chats[1]!)).toEqual([expect.stringContaining("tool_interrupted")]);
    expect(JSON.stringify(chats[1]!.body)).not.toContain("cancelled");
    // Killed with the process that ran it, and not run again.
    expect(readFileSync(join(f.ws.path, "started.txt"), "utf8")).toBe("started\n");
    expect(existsSync(join(f.ws.path, "count.txt"))).toBe(false);
  }, 90_000);
});
