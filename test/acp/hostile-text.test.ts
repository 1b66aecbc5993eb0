// What a fooled model can put in front of the editor's user: a command or a file name with a
// bidirectional override, a carriage return or an escape sequence, in the tool call and in the
// permission request the user answers. Each is written out (`\u202e`), as the terminal and the
// web view write it, so the command approved is the command that runs; rawInput stays exact.
// And a file outside the workspace is never a location the editor would open to follow along.
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { methods } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { type AcpProcess, acpEnv, pick, startAcp, updatesOf } from "../support/acp-client.js";
import { useCliFixture } from "../support/cli-fixture.js";

// Shown without the sanitiser as `echo safe #gnirts` reversed: `echo safe # string` to the eye,
// while the shell runs `rm -rf data`.
const HIDDEN = "rm -rf data; echo safe #\u202egnirts";

describe("reson acp: hostile text and paths in tool calls", () => {
  const f = useCliFixture();
  let acp: AcpProcess | undefined;
  afterEach(async () => {
    await acp?.close();
    acp = undefined;
  });

  it("a command's bidirectional override and control characters are written out in the call and the permission request", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "execute_command", arguments: { command: `${HIDDEN}\r\u001b[2K` } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "a\u202etxt.exe", content: "x" }, id: "c2" }] },
      { text: "ok" },
    );
    acp = startAcp({ env: acpEnv(f), answer: pick("reject_once") });
    await acp.initialize();
    const { sessionId } = await acp.connection.agent.request(methods.agent.session.new, {
      cwd: f.ws.path,
      mcpServers: [],
    });
    await acp.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "clean up" }],
    });
    const shown = [
      ...updatesOf(acp.updates, "tool_call").map((call) => ({ title: call.title, content: call.content })),
      ...acp.permissionRequests.map((request) => ({
        title: request.toolCall.title,
        content: request.toolCall.content,
      })),
    ];
    expect(shown).toHaveLength(4);
    // Every text the user reads (a diff's path stays the file's real name, for the editor to open).
    for (const { title, content } of shown) {
      const texts = (content ?? []).map((block) =>
        block.type === "content" && block.content.type === "text" ? block.content.text : "",
      );
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
      for (const text of [title, ...texts]) expect(text).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u202e]/);
    }
    const [command, write] = updatesOf(acp.updates, "tool_call");
    expect(command?.title).toBe("Run rm -rf data; echo safe #\\u202egnirts \\x1b[2K");
    expect(command?.content?.[0]).toEqual({
      type: "content",
      content: { type: "text", text: "$ rm -rf data; echo safe #\\u202egnirts\\x0d\\x1b[2K" },
    });
    expect(write?.title).toBe("Write a\\u202etxt.exe");
    expect(acp.permissionRequests[0]?.toolCall.title).toBe(command?.title);
    // The arguments themselves are kept exact for programs.
    expect(command?.rawInput).toEqual({ command: `${HIDDEN}\r\u001b[2K` });
  });

  it("a call naming a file outside the workspace gives the editor no location to open, though it is refused", async () => {
    const secret = join(f.home.path, "id_rsa");
    writeFileSync(secret, "PRIVATE KEY\n");
    symlinkSync(secret, join(f.ws.path, "link-out"));
    writeFileSync(join(f.ws.path, "inside.txt"), "in\n");
    const paths = [secret, "../id_rsa", "link-out", "inside.txt"];
    f.server.enqueue(
      { toolCalls: paths.map((path, i) => ({ name: "read_file", arguments: { path }, id: `c${i}` })) },
      { text: "ok" },
    );
    acp = startAcp({ env: acpEnv(f) });
    await acp.initialize();
    const { sessionId } = await acp.connection.agent.request(methods.agent.session.new, {
      cwd: f.ws.path,
      mcpServers: [],
    });
    await acp.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "read them" }],
    });
    const locations = updatesOf(acp.updates, "tool_call").map((call) => call.locations ?? []);
    expect(locations.slice(0, 3)).toEqual([[], [], []]);
    expect(locations[3]?.[0]?.path).toMatch(/inside\.txt$/);
  });
});
