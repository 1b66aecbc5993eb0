// An approval answers one call. Providers that number their calls per reply ("call_0" at every
// step, as several OpenAI-compatible servers do) give a later call the id of an earlier one:
// that call is asked about anew, never taken as answered by the earlier "allow once".
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "../support/fake-model-server.js";
import { startServed, useServedFixture } from "../support/served-run.js";

/** Two steps, each one command under the same call id, then an answer. */
function sameIdTwice(request: RecordedRequest) {
  const messages = (request.body as { messages?: Array<{ role: string }> }).messages ?? [];
  const done = messages.filter((m) => m.role === "assistant").length;
  const commands = ["touch first.txt", "touch second.txt"];
  const next = commands[done];
  if (next === undefined) return { text: "touched" };
  return { toolCalls: [{ id: "call_0", name: "execute_command", arguments: { command: next } }] };
}

interface Prompt {
  id: string;
  status: string;
  payload: { toolCallId: string; arguments: { command: string } };
}

describe("approvals over HTTP, per call", () => {
  const f = useServedFixture(sameIdTwice);

  it("asks again for a later call that reuses an earlier call's id, instead of running it on the earlier allow once", async () => {
    const served = await startServed(f.ws.home, f.ws.path);
    const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${served.url}${path}`, {
        method,
        headers: served.headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(response.status, `${method} ${path}`).toBeLessThan(300);
      return (await response.json()) as T;
    };
    /** The pending approval of the run that is not `answered`, or the run's end. */
    const next = async (runId: string, answered?: string): Promise<Prompt | string> => {
      for (let tries = 0; tries < 300; tries++) {
        const { prompts } = await call<{ prompts: Prompt[] }>("GET", `/runs/${runId}/prompts`);
        const waiting = prompts.find((p) => p.id !== answered && p.status === "pending");
        if (waiting) return waiting;
        const { status } = await call<{ status: string }>("GET", `/runs/${runId}`);
        if (status !== "running" && status !== "queued") return status;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`run ${runId} neither asked nor ended`);
    };
    const run = await call<{ id: string }>("POST", "/runs", {
      task: "touch two files",
      workspace: f.ws.path,
      provider: "openai-compatible",
      baseUrl: f.model.openaiBaseUrl,
      model: "fake-model",
      sandbox: "off",
      permissionMode: "default",
    });

    const first = await next(run.id);
    expect(first).toMatchObject({
      payload: { toolCallId: "call_0", arguments: { command: "touch first.txt" } },
    });
    const firstId = (first as Prompt).id;
    await call("POST", `/runs/${run.id}/approvals/call_0`, { decision: "allow_once" });

    const second = await next(run.id, firstId);
    expect(second).toMatchObject({
      payload: { toolCallId: "call_0", arguments: { command: "touch second.txt" } },
    });
    expect(existsSync(join(f.ws.path, "second.txt"))).toBe(false);
    await call("POST", `/runs/${run.id}/approvals/call_0`, { decision: "deny" });

    expect(await next(run.id, (second as Prompt).id)).toBe("completed");
    expect(existsSync(join(f.ws.path, "first.txt"))).toBe(true);
    expect(existsSync(join(f.ws.path, "second.txt"))).toBe(false);
  });
});
