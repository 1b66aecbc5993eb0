// An editor that offers terminal/* (the SDK's client side with terminal: true): reson still runs
// the session's commands itself, in its OS sandbox, and says so with each command (in the
// permission request and the tool call); with the sandbox off it says that instead, with the
// reason; so does the session's history when the editor loads it again. The measurement behind
// it is bench/acp-terminal.mjs.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { methods } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { type AcpProcess, acpEnv, startAcp, updatesOf } from "../support/acp-client.js";
import { useCliFixture } from "../support/cli-fixture.js";
import { lacks } from "../support/requirements.js";

const noSandbox = await lacks("sandbox");

describe("reson acp: commands when the editor offers its terminal", () => {
  const f = useCliFixture();
  const started: AcpProcess[] = [];
  afterEach(async () => {
    for (const acp of started.splice(0)) await acp.close();
  });

  async function runCommands(commands: string[], args: string[]) {
    const terminalRequests: { method: string; params: unknown }[] = [];
    const acp = startAcp({ env: acpEnv(f), args, terminalRequests });
    started.push(acp);
    await acp.initialize();
    const { sessionId } = await acp.connection.agent.request(methods.agent.session.new, {
      cwd: f.ws.path,
      mcpServers: [],
    });
    f.server.enqueue(
      ...commands.map((command, i) => ({
        toolCalls: [{ name: "execute_command", arguments: { command }, id: `c${i}` }],
      })),
      { text: "done" },
    );
    const answer = await acp.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "run them" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    const texts = (content: unknown) => JSON.stringify(content);
    // The editor opens the session again in a new agent process: the history it gets shows each
    // command with where it ran, as the live call did.
    const reopened = startAcp({ env: acpEnv(f), args });
    started.push(reopened);
    await reopened.initialize();
    await reopened.connection.agent.request(methods.agent.session.load, {
      sessionId,
      cwd: f.ws.path,
      mcpServers: [],
    });
    return {
      replayed: updatesOf(reopened.updates, "tool_call").map((call) => texts(call.content)),
      terminalRequests,
      calls: updatesOf(acp.updates, "tool_call").map((call) => texts(call.content)),
      asked: acp.permissionRequests.map((request) => texts(request.toolCall.content)),
      results: updatesOf(acp.updates, "tool_call_update")
        .filter((update) => update.status === "completed" || update.status === "failed")
        .map((update) => update.status),
    };
  }

  it.skipIf(noSandbox)(
    "commands run in reson's sandbox, never the editor's terminal, and each says so: a write outside the workspace does not land",
    async () => {
      const outside = join(f.home.path, "outside.txt");
      const { terminalRequests, calls, asked, results, replayed } = await runCommands(
        ["touch made.txt", `touch ${outside}`],
        [],
      );
      expect(terminalRequests).toEqual([]);
      expect(existsSync(join(f.ws.path, "made.txt"))).toBe(true);
      expect(existsSync(outside)).toBe(false);
      expect(results).toHaveLength(2);
      for (const shown of [...calls, ...asked, ...replayed]) {
        expect(shown).toContain("Runs in reson's OS sandbox");
        expect(shown).toContain("not in the editor's terminal");
      }
      expect(calls).toHaveLength(2);
      expect(replayed).toHaveLength(2);
    },
  );

  it("with --sandbox off, each command says it runs without a sandbox and why, and still not in the editor's terminal", async () => {
    const { terminalRequests, calls, asked, replayed } = await runCommands(
      ["touch made.txt"],
      ["--sandbox", "off"],
    );
    expect(terminalRequests).toEqual([]);
    expect(existsSync(join(f.ws.path, "made.txt"))).toBe(true);
    expect(calls).toHaveLength(1);
    expect(replayed).toHaveLength(1);
    for (const shown of [...calls, ...asked, ...replayed]) {
      expect(shown).toContain("WITHOUT an OS sandbox (sandbox: off (--sandbox off)");
      expect(shown).toContain("not in the editor's terminal");
    }
  });
});
