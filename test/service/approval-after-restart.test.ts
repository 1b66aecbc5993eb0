// An approval's answer is acted on once, also across a restart of `reson serve`: a run killed
// while it waits for an answer takes the answer given after the restart (once), and a later call
// with the same id, tool and arguments as an approval already acted on before the restart is
// asked about anew, never run on the old "allow once".
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "../support/fake-model-server.js";
import { type Served, startServed, useServedFixture } from "../support/served-run.js";

/**
 * Step 1 appends to first.txt under call_0, step 2 appends to second.txt under call_1, step 3
 * makes step 1's very call again (same id, tool and arguments); then an answer.
 */
function repeatsFirstCall(request: RecordedRequest) {
  const messages = (request.body as { messages?: Array<{ role: string }> }).messages ?? [];
  const done = messages.filter((m) => m.role === "assistant").length;
  const calls = [
    { id: "call_0", command: "echo once >> first.txt" },
    { id: "call_1", command: "echo once >> second.txt" },
    { id: "call_0", command: "echo once >> first.txt" },
  ];
  const next = calls[done];
  if (next === undefined) return { text: "appended" };
  return {
    toolCalls: [{ id: next.id, name: "execute_command", arguments: { command: next.command } }],
  };
}

interface Prompt {
  id: string;
  status: string;
  payload: { toolCallId: string; arguments: { command: string } };
}

async function call<T>(served: Served, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${served.url}${path}`, {
    method,
    headers: served.headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status, `${method} ${path}: ${await response.clone().text()}`).toBeLessThan(300);
  return (await response.json()) as T;
}

/** The run's first pending approval whose id is not in `seen`, or the run's end. */
async function next(served: Served, runId: string, seen: string[] = []): Promise<Prompt | string> {
  for (let tries = 0; tries < 300; tries++) {
    const { prompts } = await call<{ prompts: Prompt[] }>(served, "GET", `/runs/${runId}/prompts`);
    const waiting = prompts.find((p) => !seen.includes(p.id) && p.status === "pending");
    if (waiting) return waiting;
    const { status } = await call<{ status: string }>(served, "GET", `/runs/${runId}`);
    if (status !== "running" && status !== "queued") return status;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${runId} neither asked nor ended`);
}

describe("approvals over HTTP, across a restart of serve", () => {
  const f = useServedFixture(repeatsFirstCall);

  it("uses an answer given after the restart once, and asks again for a call that repeats one acted on before it", async () => {
    const served = await startServed(f.ws.home, f.ws.path);
    const run = await call<{ id: string }>(served, "POST", "/runs", {
      task: "append twice",
      workspace: f.ws.path,
      provider: "openai-compatible",
      baseUrl: f.model.openaiBaseUrl,
      model: "fake-model",
      sandbox: "off",
      permissionMode: "default",
    });
    const lines = (file: string) =>
      readFileSync(join(f.ws.path, file), "utf8")
        .split("\n")
        .filter((line) => line !== "");

    const first = (await next(served, run.id)) as Prompt;
    expect(first.payload).toMatchObject({
      toolCallId: "call_0",
      arguments: { command: "echo once >> first.txt" },
    });
    await call(served, "POST", `/runs/${run.id}/approvals/call_0`, { decision: "allow_once" });
    const second = (await next(served, run.id, [first.id])) as Prompt;
    expect(second.payload).toMatchObject({ toolCallId: "call_1" });

    // Killed while the run waits for the second answer; that answer comes after the restart.
    served.process.kill("SIGKILL");
    await served.process.exited();
    const again = await startServed(f.ws.home, f.ws.path);
    const stillWaiting = await next(again, run.id, [first.id]);
    expect(stillWaiting).toMatchObject({ id: second.id });
    await call(again, "POST", `/runs/${run.id}/approvals/call_1`, { decision: "allow_once" });

    // Step 3 repeats step 1's call: asked about, not run on the answer given before the restart.
    const third = await next(again, run.id, [first.id, second.id]);
    expect(third).toMatchObject({
      payload: { toolCallId: "call_0", arguments: { command: "echo once >> first.txt" } },
    });
    expect(lines("first.txt")).toEqual(["once"]);
    await call(again, "POST", `/runs/${run.id}/approvals/call_0`, { decision: "deny" });

    expect(await next(again, run.id, [first.id, second.id, (third as Prompt).id])).toBe("completed");
    expect(lines("first.txt")).toEqual(["once"]);
    expect(lines("second.txt")).toEqual(["once"]);
  });
});
