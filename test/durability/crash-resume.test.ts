// Crash safety: the CLI is killed with SIGKILL at many points of a multi-step run (between
// steps, while a response streams, while a slow command runs), then `reson resume` finishes
// it. The workspace ends as after an uninterrupted run, no turn is lost or stored twice,
// every tool call has exactly one result, and the database passes integrity_check.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { cleanEnv, parseEvents, runCli, type TempDir, tempDir } from "../support/cli.js";
import {
  type FakeModelServer,
  type FakeReply,
  type RecordedRequest,
  startFakeModelServer,
} from "../support/fake-model-server.js";
import { skipWithout } from "../support/requirements.js";

let replies = 0;

/** Tool calls get ids unique across the whole test, as a real model's are. */
function withIds(reply: FakeReply): FakeReply {
  replies++;
  if (!("toolCalls" in reply) || !reply.toolCalls) return reply;
  return { ...reply, toolCalls: reply.toolCalls.map((call, i) => ({ ...call, id: `call_${replies}_${i}` })) };
}

/** The "model": picks its reply from how many tool results (not interrupted) it has seen. */
function scenario(request: RecordedRequest): FakeReply {
  return withIds(reply(request));
}

function reply(request: RecordedRequest): FakeReply {
  const messages = (
    (request.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? []
  ).filter((m) => m.role === "tool" && !JSON.stringify(m.content).includes("tool_interrupted"));
  const slow = { chunkDelayMs: 15 };
  switch (messages.length) {
    case 0:
      return {
        ...slow,
        text: "First I write the note.",
        toolCalls: [{ name: "write_file", arguments: { path: "notes/a.txt", content: "alpha\n" } }],
      };
    case 1:
      return {
        ...slow,
        text: "Now a slow command.",
        toolCalls: [{ name: "execute_command", arguments: { command: "sleep 0.3 && echo beta > b.txt" } }],
      };
    case 2:
      return {
        ...slow,
        text: "Reading both back.",
        toolCalls: [
          { name: "read_file", arguments: { path: "notes/a.txt" } },
          { name: "read_file", arguments: { path: "b.txt" } },
        ],
      };
    case 4:
      return {
        ...slow,
        text: "One edit.",
        toolCalls: [
          {
            name: "edit_file",
            arguments: { path: "notes/a.txt", old_string: "alpha", new_string: "alpha two" },
          },
        ],
      };
    default:
      return { ...slow, text: "All done: the note says alpha two and b.txt says beta." };
  }
}

const FINAL = "All done: the note says alpha two and b.txt says beta.";

describe.skipIf(await skipWithout("sandbox", "crash safety"))("crash safety", () => {
  let server: FakeModelServer;
  let home: TempDir;
  beforeAll(async () => {
    server = await startFakeModelServer({ respond: scenario });
    home = tempDir();
  });
  afterAll(async () => {
    await server.close();
    home.remove();
  });

  const args = () => [
    "--json",
    "--allow",
    "execute_command",
    "--provider",
    "openai-compatible",
    "--base-url",
    server.openaiBaseUrl,
    "--model",
    "fake",
  ];
  const env = () => cleanEnv({ RESON_HOME: home.path });

  async function verify(ws: string, runId: string, settleMs = 0): Promise<void> {
    expect(readFileSync(join(ws, "notes/a.txt"), "utf8")).toBe("alpha two\n");
    // A command killed with reson may finish on its own; wait for it before looking.
    await new Promise((r) => setTimeout(r, settleMs));
    expect(readFileSync(join(ws, "b.txt"), "utf8")).toBe("beta\n");

    const store = await openStore({ home: home.path });
    try {
      const trace = await store.traces.get(runId);
      expect(trace).toMatchObject({ status: "completed" });
      const turns = await store.turns.list(trace!.sessionId);
      expect(turns.map((t) => t.seq)).toEqual(turns.map((_, i) => i));
      const calls = new Map<string, number>();
      const results = new Map<string, number>();
      for (const turn of turns) {
        const content = turn.content as { role: string; content: unknown; toolCallId?: string };
        if (turn.role === "assistant") {
          for (const block of content.content as Array<{ type: string; id?: string }>) {
            if (block.type === "toolCall") calls.set(block.id!, (calls.get(block.id!) ?? 0) + 1);
          }
        }
        if (turn.role === "toolResult")
          results.set(content.toolCallId!, (results.get(content.toolCallId!) ?? 0) + 1);
      }
      expect([...calls.values()].every((n) => n === 1)).toBe(true);
      expect([...results.values()].every((n) => n === 1)).toBe(true);
      expect([...results.keys()].sort()).toEqual([...calls.keys()].sort());
      const last = turns.at(-1)!.content as { role: string; content: Array<{ type: string; text?: string }> };
      expect(last.role).toBe("assistant");
      expect(last.content.map((b) => b.text ?? "").join("")).toBe(FINAL);
    } finally {
      await store.close();
    }
    const db = new Database(join(home.path, "reson.db"), { readonly: true });
    try {
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      db.close();
    }
  }

  let referenceEvents = 0;

  it("an uninterrupted run gives the reference result", async () => {
    const ws = tempDir();
    try {
      const result = await runCli(["run", ...args(), "do the five steps"], { cwd: ws.path, env: env() });
      expect(result.code).toBe(0);
      const events = parseEvents(result.stdout);
      referenceEvents = events.length;
      expect(referenceEvents).toBeGreaterThan(60);
      await verify(ws.path, events[0]!.runId as string);
    } finally {
      ws.remove();
    }
  });

  // Kill after the n-th event of the JSON stream: every phase boundary, tool call and result,
  // and points inside streamed responses; plus kills by time while the slow command runs.
  const eventKills = [2, 4, 7, 10, 14, 18, 22, 27, 32, 38, 44, 50, 56, 60];
  it.each(eventKills)("SIGKILL after event %i, then resume, finishes the same task", async (killAt) => {
    const ws = tempDir();
    try {
      let seen = 0;
      let runId = "";
      let killed = false;
      const first = await runCli(["run", ...args(), "do the five steps"], {
        cwd: ws.path,
        env: env(),
        onStdout: (chunk, child) => {
          for (const line of chunk.split("\n").filter(Boolean)) {
            seen++;
            if (!runId && line.includes('"run_start"')) runId = (JSON.parse(line) as { runId: string }).runId;
            if (seen >= killAt && !killed) {
              killed = true;
              child.kill("SIGKILL");
            }
          }
        },
      });
      expect(runId).not.toBe("");
      expect(killAt).toBeLessThan(referenceEvents);
      expect(first.signal).toBe("SIGKILL");
      {
        const resumed = await runCli(["resume", runId.slice(0, 12), ...args()], { cwd: ws.path, env: env() });
        expect(resumed.stderr).not.toContain("reson:");
        expect(resumed.code).toBe(0);
        const events = parseEvents(resumed.stdout);
        expect(events[0]).toMatchObject({ type: "run_start", runId, resumed: true });
        expect(events.at(-1)).toMatchObject({ type: "run_end", status: "completed", finalText: FINAL });
      }
      await verify(ws.path, runId);
    } finally {
      ws.remove();
    }
  });

  it.each([100, 250, 400, 550, 700])("SIGKILL %i ms into the slow command, then resume", async (delayMs) => {
    const ws = tempDir();
    try {
      let runId = "";
      let armed = false;
      const first = await runCli(["run", ...args(), "do the five steps"], {
        cwd: ws.path,
        env: env(),
        onStdout: (chunk, child) => {
          if (!runId) runId = (JSON.parse(chunk.split("\n")[0]!) as { runId: string }).runId;
          if (!armed && chunk.includes('"name":"execute_command"')) {
            armed = true;
            setTimeout(() => child.kill("SIGKILL"), delayMs);
          }
        },
      });
      if (first.signal === "SIGKILL") {
        const resumed = await runCli(["resume", runId, ...args()], { cwd: ws.path, env: env() });
        expect(resumed.code).toBe(0);
      }
      await verify(ws.path, runId, 400);
      expect(existsSync(join(ws.path, "b.txt"))).toBe(true);
    } finally {
      ws.remove();
    }
  });
});
