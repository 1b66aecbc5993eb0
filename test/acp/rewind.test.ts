// /rewind in the editor, driven by the ACP SDK's client over stdio: the command is announced,
// `/rewind` lists the session's steps that changed files, `/rewind N` shows the rewind and asks
// through session/request_permission (files and conversation, files only, cancel) naming the
// files the user changed since, applies the answer, and `/rewind undo` puts it back.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { methods, type RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { type AcpProcess, acpEnv, agentText, startAcp, updatesOf } from "../support/acp-client.js";
import { useCliFixture } from "../support/cli-fixture.js";

describe("reson acp: /rewind", () => {
  const f = useCliFixture();
  const started: AcpProcess[] = [];
  afterEach(async () => {
    for (const acp of started.splice(0)) await acp.close();
  });

  /** The option the next /rewind question is answered with; tool calls are allowed once. */
  let rewindAnswer = "cancel";
  const rewindRequests: RequestPermissionRequest[] = [];

  async function session() {
    rewindRequests.length = 0;
    const acp = startAcp({
      env: acpEnv(f),
      answer: (request) => {
        if (request.toolCall.toolCallId.startsWith("rw_")) {
          rewindRequests.push(request);
          return { outcome: { outcome: "selected", optionId: rewindAnswer } };
        }
        return { outcome: { outcome: "selected", optionId: "allow_once" } };
      },
    });
    started.push(acp);
    await acp.initialize();
    const { sessionId } = await acp.connection.agent.request(methods.agent.session.new, {
      cwd: f.ws.path,
      mcpServers: [],
    });
    const say = async (text: string) => {
      const before = acp.updates.length;
      await acp.connection.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text }],
      });
      return agentText(acp.updates.slice(before));
    };
    return { acp, say };
  }

  const file = () => readFileSync(join(f.ws.path, "a.txt"), "utf8");
  /** The conversation the model was last sent (without the system prompt and tools). */
  const sentMessages = () =>
    JSON.stringify(
      (f.server.requests.at(-1)?.body as { messages?: unknown[] } | undefined)?.messages?.slice(1),
    );

  /** Two runs: the first writes a.txt, the second edits it. */
  async function twoRuns(say: (text: string) => Promise<string>) {
    f.server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "one\n" } }] },
      { text: "Written." },
      {
        toolCalls: [
          { name: "edit_file", arguments: { path: "a.txt", old_string: "one", new_string: "two" } },
        ],
      },
      { text: "Edited." },
    );
    await say("write a.txt");
    await say("change one to two in a.txt");
    expect(file()).toBe("two\n");
  }

  it("is announced; /rewind lists the steps that changed files, newest first", async () => {
    const { acp, say } = await session();
    await twoRuns(say);
    const commands = updatesOf(acp.updates, "available_commands_update").at(-1)?.availableCommands ?? [];
    expect(commands.map((command) => command.name)).toContain("rewind");
    const listed = await say("/rewind");
    expect(listed).toMatch(/1\) step 1 of run .*edit_file a\.txt.*: 1 file/);
    expect(listed).toMatch(/2\) run .* as a whole \("change one to two in a\.txt"\): 1 file/);
    expect(listed).toMatch(/3\) step 1 of run .*write_file a\.txt/);
    expect(listed).toContain("/rewind undo");
    expect(rewindRequests).toHaveLength(0);
  });

  it("/rewind N asks with three options naming the file changed since; cancel keeps all, files and conversation rewinds both, undo puts it back", async () => {
    const { say } = await session();
    await twoRuns(say);
    writeFileSync(join(f.ws.path, "a.txt"), "mine\n");

    rewindAnswer = "cancel";
    expect(await say("/rewind 1")).toContain("Nothing was changed.");
    expect(file()).toBe("mine\n");
    const [asked] = rewindRequests;
    expect(asked?.options.map((option) => [option.optionId, option.kind])).toEqual([
      ["all", "allow_once"],
      ["files", "allow_once"],
      ["cancel", "reject_once"],
    ]);
    expect(asked?.options[0]?.name).toMatch(/files and conversation, overwriting the files changed since/);
    const shown = JSON.stringify(asked?.toolCall.content);
    expect(shown).toMatch(/restore +a\.txt +! changed since/);
    expect(shown).toMatch(/1 file was changed since reson's last snapshot/);
    expect(asked?.toolCall.locations).toEqual([{ path: join(f.ws.path, "a.txt") }]);

    rewindAnswer = "all";
    expect(await say("/rewind 1")).toMatch(/Rewound the files and conversation/);
    expect(file()).toBe("one\n");
    f.server.enqueue({ text: "ok" });
    await say("what is in a.txt?");
    // Back to before the edit's step: the second task stays, its edit and answer are gone.
    expect(sentMessages()).toContain("write a.txt");
    expect(sentMessages()).not.toContain("edit_file");
    expect(sentMessages()).not.toContain("Edited.");

    expect(await say("/rewind undo")).toMatch(/Undid rewind rw_/);
    expect(file()).toBe("mine\n");
    f.server.enqueue({ text: "ok" });
    await say("and now?");
    expect(sentMessages()).toContain("Edited.");
  });

  it("/rewind N --files-only offers the files alone and keeps the conversation", async () => {
    const { say } = await session();
    await twoRuns(say);
    rewindAnswer = "files";
    expect(await say("/rewind 1 --files-only")).toMatch(/Rewound the files \(/);
    expect(rewindRequests.at(-1)?.options.map((option) => option.optionId)).toEqual(["files", "cancel"]);
    expect(file()).toBe("one\n");
    f.server.enqueue({ text: "ok" });
    await say("what is in a.txt?");
    expect(sentMessages()).toContain("edit_file");
    expect(sentMessages()).toContain("Edited.");
    expect(await say("/rewind 9")).toMatch(/no step 9/);
  });
});
