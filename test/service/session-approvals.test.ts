// Approvals over HTTP as a client gives them to `reson serve`: the pending prompt says which
// rules "allow_session" adds (one per part that asked, a redirect's by the file it writes), and
// once answered so, the same command does not ask again while another write still does.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "../support/fake-model-server.js";
import { startServed, useServedFixture } from "../support/served-run.js";

/**
 * "log twice": two calls of `echo x >> log.txt`, one writing another file, then an answer;
 * "log again" (the session's next task): one more `echo x >> log.txt`, then an answer.
 */
function logTwice(request: RecordedRequest) {
  const messages = (request.body as { messages?: Array<{ role: string; content?: unknown }> }).messages ?? [];
  const task = messages.findLastIndex((m) => m.role === "user");
  const done = messages.slice(task).filter((m) => m.role === "assistant").length;
  const again = JSON.stringify(messages[task]?.content ?? "").includes("log again");
  const commands = again
    ? ["echo x >> log.txt"]
    : ["echo x >> log.txt", "echo x >> log.txt", "echo y >> other.txt"];
  const next = commands[done];
  if (next === undefined) return { text: "logged" };
  return { toolCalls: [{ id: `call_${done}`, name: "execute_command", arguments: { command: next } }] };
}

interface Prompt {
  id: string;
  payload: { toolCallId: string; reason: string; session?: { rules: string[]; covers: string } };
}

describe("approvals over HTTP", () => {
  const f = useServedFixture(logTwice);

  it("allow_session on a command that writes by redirection covers the write for the rest of the session, its later runs included", async () => {
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
    /** The approval the run waits on, other than the one answered before. */
    const pending = async (runId: string, answered?: string): Promise<Prompt> => {
      for (let tries = 0; tries < 200; tries++) {
        const { prompts } = await call<{ prompts: Prompt[] }>("GET", `/runs/${runId}/prompts`);
        const waiting = prompts.find((p) => p.payload.toolCallId !== answered);
        if (waiting) return waiting;
        await new Promise((r) => setTimeout(r, 100));
      }
      const run = await call<{ status: string }>("GET", `/runs/${runId}`);
      throw new Error(`run ${runId} (${run.status}) asked nothing new`);
    };
    const settings = {
      provider: "openai-compatible",
      baseUrl: f.model.openaiBaseUrl,
      model: "fake-model",
      sandbox: "off",
      permissionMode: "default",
    };
    const run = await call<{ id: string; sessionId: string }>("POST", "/runs", {
      task: "log twice",
      workspace: f.ws.path,
      ...settings,
    });
    const finished = async (runId: string) => {
      let status = "";
      for (let tries = 0; tries < 200 && status !== "completed"; tries++) {
        status = (await call<{ status: string }>("GET", `/runs/${runId}`)).status;
        if (status !== "completed") await new Promise((r) => setTimeout(r, 100));
      }
      return status;
    };

    const first = await pending(run.id);
    expect(first.payload.reason).toContain(
      ">> log.txt: default mode asks before writing log.txt by redirection",
    );
    expect(first.payload.session).toEqual({
      rules: ["Edit(./log.txt)"],
      covers: "for this session: Edit(./log.txt)",
    });
    await call("POST", `/runs/${run.id}/approvals/${first.payload.toolCallId}`, {
      decision: "allow_session",
    });

    // The second `echo x >> log.txt` is not asked; the write to other.txt is.
    const second = await pending(run.id, first.payload.toolCallId);
    expect(second.payload.toolCallId).toBe("call_2");
    expect(second.payload.session?.rules).toEqual(["Edit(./other.txt)"]);
    await call("POST", `/runs/${run.id}/approvals/${second.payload.toolCallId}`, { decision: "deny" });

    expect(await finished(run.id)).toBe("completed");
    const events = async (runId: string) =>
      (
        await call<{ events: Array<{ type: string; data: Record<string, unknown> }> }>(
          "GET",
          `/runs/${runId}/events?format=json`,
        )
      ).events;
    expect((await events(run.id)).filter((e) => e.type === "permission_request")).toHaveLength(2);
    expect(readFileSync(join(f.ws.path, "log.txt"), "utf8")).toBe("x\nx\n");

    // The session's next run starts with what was allowed for the session: nothing is asked.
    const next = await call<{ id: string }>("POST", `/sessions/${run.sessionId}/runs`, {
      task: "log again",
      ...settings,
    });
    expect(await finished(next.id)).toBe("completed");
    expect((await events(next.id)).filter((e) => e.type === "permission_request")).toHaveLength(0);
    expect(readFileSync(join(f.ws.path, "log.txt"), "utf8")).toBe("x\nx\nx\n");
  });
});
