// `reson acp` sessions as an editor lives with them, driven by the ACP SDK's client over stdio:
// permission requests answered each way (and what each answer leaves behind), a cancel in the
// middle of a command, session/load after the agent process was killed, a session that moves
// between the terminal and the editor, the editor's MCP servers and its unsaved buffers, and
// requests that are wrong (a JSON-RPC error each, the process keeps serving).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { methods } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { EVERYTHING, everythingHttp, TEST_SERVER } from "../mcp/servers.js";
import {
  type AcpProcess,
  type AcpProcessOptions,
  acpEnv,
  agentText,
  type EditorBuffers,
  pick,
  startAcp,
  untilUpdate,
  updatesOf,
} from "../support/acp-client.js";
import { cleanEnv, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import { lacks } from "../support/requirements.js";
import { toolMessagesOf, WAITING_COMMAND } from "../support/waiting-command.js";

// Where no sandbox works a command is asked every time with allow once or reject only; the tests
// of the other answers then say the sandbox is off, as a user there would.
const SANDBOX_ARGS = (await lacks("sandbox")) ? ["--sandbox", "off"] : [];

describe("reson acp: sessions", () => {
  const f = useCliFixture();
  const started: AcpProcess[] = [];
  afterEach(async () => {
    for (const acp of started.splice(0)) await acp.close();
  });

  async function begin(options: Partial<AcpProcessOptions> = {}) {
    const acp = startAcp({ env: acpEnv(f), ...options });
    started.push(acp);
    await acp.initialize();
    return acp;
  }

  const newSession = (acp: AcpProcess, mcpServers = []) =>
    acp.connection.agent.request(methods.agent.session.new, { cwd: f.ws.path, mcpServers });

  const prompt = (acp: AcpProcess, sessionId: string, text: string) =>
    acp.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text }],
    });

  const settingsFile = () => join(f.ws.path, ".reson", "settings.local.json");

  it("rejecting once denies the call; the model is told and the file stays as it was", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "b.txt", content: "new\n" } }] },
      { text: "Understood." },
    );
    const acp = await begin({ answer: pick("reject_once") });
    const { sessionId } = await newSession(acp);
    expect((await prompt(acp, sessionId, "write b.txt")).stopReason).toBe("end_turn");
    expect(existsSync(join(f.ws.path, "b.txt"))).toBe(false);
    expect(updatesOf(acp.updates, "tool_call_update").at(-1)?.status).toBe("failed");
    expect(toolMessagesOf(f.server.requests.at(-1)!).join("\n")).toMatch(/denied/i);
    expect(existsSync(settingsFile())).toBe(false);
  });

  it("the options say what each answer does; allow for the session stops asking for calls like it", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "execute_command", arguments: { command: "touch made.txt" } }] },
      { toolCalls: [{ name: "execute_command", arguments: { command: "touch made.txt" }, id: "c2" }] },
      { text: "done" },
    );
    const acp = await begin({ answer: pick("allow_session"), args: SANDBOX_ARGS });
    const { sessionId } = await newSession(acp);
    await prompt(acp, sessionId, "touch it twice");
    expect(acp.permissionRequests).toHaveLength(1);
    const [request] = acp.permissionRequests;
    expect(request?.toolCall.content?.[0]).toEqual({
      type: "content",
      content: { type: "text", text: "$ touch made.txt" },
    });
    expect(request?.options.map((option) => [option.optionId, option.kind])).toEqual([
      ["allow_once", "allow_once"],
      ["allow_session", "allow_always"],
      ["allow_project", "allow_always"],
      ["reject_once", "reject_once"],
      ["reject_project", "reject_always"],
    ]);
    expect(request?.options[2]?.name).toContain(".reson/settings.local.json");
    expect(updatesOf(acp.updates, "tool_call_update").filter((u) => u.status === "completed")).toHaveLength(
      2,
    );
    // Nothing saved: the grant lasts for the session only.
    expect(existsSync(settingsFile())).toBe(false);
  });

  it("always allow saves the narrow rule to .reson/settings.local.json, always reject a deny rule there", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "execute_command", arguments: { command: "touch saved.txt" } }] },
      { text: "ok" },
    );
    const allowing = await begin({ answer: pick("allow_project"), args: SANDBOX_ARGS });
    const first = await newSession(allowing);
    await prompt(allowing, first.sessionId, "touch saved.txt");
    const allowed = JSON.parse(readFileSync(settingsFile(), "utf8")).permissions.allow as string[];
    expect(allowed.length).toBeGreaterThan(0);
    expect(allowing.permissionRequests[0]?.options[2]?.name).toContain(allowed.join(", "));
    // The answer is the user's approval of the rules it wrote there: later runs apply them.
    const grants = JSON.parse(readFileSync(join(f.home.path, "approved-project-permissions.json"), "utf8"));
    expect(Object.values(grants.workspaces)).toEqual([expect.objectContaining({ allow: allowed })]);

    f.server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "c.txt", content: "x" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "c.txt", content: "y" }, id: "c2" }] },
      { text: "ok" },
    );
    const rejecting = await begin({ answer: pick("reject_project") });
    const second = await newSession(rejecting);
    await prompt(rejecting, second.sessionId, "write c.txt twice");
    // Asked once: the second call is denied by the rule the answer added.
    expect(rejecting.permissionRequests).toHaveLength(1);
    expect(existsSync(join(f.ws.path, "c.txt"))).toBe(false);
    const denied = JSON.parse(readFileSync(settingsFile(), "utf8")).permissions.deny as string[];
    expect(denied.length).toBeGreaterThan(0);
    expect(
      updatesOf(rejecting.updates, "tool_call_update").filter((u) => u.status === "failed"),
    ).toHaveLength(2);
  });

  it("session/cancel stops a command in flight; the turn ends cancelled and /resume finishes the run", async () => {
    f.server.setResponder((request) =>
      toolMessagesOf(request).length > 0
        ? { text: "finished" }
        : {
            toolCalls: [
              { id: "call_slow", name: "execute_command", arguments: { command: WAITING_COMMAND } },
            ],
          },
    );
    const acp = await begin();
    const { sessionId } = await newSession(acp);
    const turn = prompt(acp, sessionId, "run the slow command");
    for (let i = 0; i < 400 && !existsSync(join(f.ws.path, "started.txt")); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(join(f.ws.path, "started.txt"))).toBe(true);
    await acp.connection.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    expect(existsSync(join(f.ws.path, "count.txt"))).toBe(false);

    writeFileSync(join(f.ws.path, "go"), "");
    const resumed = await prompt(acp, sessionId, "/resume");
    expect(resumed.stopReason).toBe("end_turn");
    expect(agentText(acp.updates)).toContain("finished");
  });

  it("a prompt sent right after session/cancel (stop, and do this instead) runs once the cancelled turn has stopped", async () => {
    f.server.setResponder((request) =>
      JSON.stringify(request.body).includes("do this instead")
        ? { text: "Doing it instead." }
        : {
            toolCalls: [
              { id: "call_slow", name: "execute_command", arguments: { command: WAITING_COMMAND } },
            ],
          },
    );
    const acp = await begin();
    const { sessionId } = await newSession(acp);
    const first = prompt(acp, sessionId, "run the slow command");
    for (let i = 0; i < 400 && !existsSync(join(f.ws.path, "started.txt")); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(join(f.ws.path, "started.txt"))).toBe(true);
    // As an editor sends them: the cancel, and at once the new prompt, without waiting for the first answer.
    void acp.connection.agent.notify(methods.agent.session.cancel, { sessionId });
    const second = prompt(acp, sessionId, "do this instead");
    expect((await first).stopReason).toBe("cancelled");
    expect((await second).stopReason).toBe("end_turn");
    expect(agentText(acp.updates)).toContain("Doing it instead.");
    expect(existsSync(join(f.ws.path, "count.txt"))).toBe(false);
  });

  it("session/load after the agent was killed replays every committed turn; the terminal continues the session", async () => {
    f.server.enqueue({ text: "First answer." });
    const first = await begin();
    const { sessionId } = await newSession(first);
    await prompt(first, sessionId, "first task");
    f.server.setResponder((request) =>
      toolMessagesOf(request).length > 0
        ? undefined
        : {
            toolCalls: [
              { id: "call_slow", name: "execute_command", arguments: { command: WAITING_COMMAND } },
            ],
          },
    );
    void prompt(first, sessionId, "second task").catch(() => undefined);
    for (let i = 0; i < 400 && !existsSync(join(f.ws.path, "started.txt")); i++)
      await new Promise((r) => setTimeout(r, 50));
    first.child.kill("SIGKILL");
    await first.exited;
    f.server.setResponder(undefined);

    const second = await begin();
    const listed = await second.connection.agent.request(methods.agent.session.list, { cwd: f.ws.path });
    expect(listed.sessions.map((s) => s.sessionId)).toContain(sessionId);
    await second.connection.agent.request(methods.agent.session.load, {
      sessionId,
      cwd: f.ws.path,
      mcpServers: [],
    });
    const replay = second.updates.map((n) => n.update);
    const kinds = replay.map((u) => u.sessionUpdate);
    expect(
      updatesOf(second.updates, "user_message_chunk").map((u) =>
        u.content.type === "text" ? u.content.text : "",
      ),
    ).toEqual(["first task", "second task"]);
    expect(agentText(second.updates)).toBe("First answer.");
    expect(kinds).toContain("tool_call");
    // The command never finished: shown as interrupted, not as still running.
    expect(updatesOf(second.updates, "tool_call_update").at(-1)?.status).toBe("failed");

    // The terminal picks the editor's session up.
    f.server.enqueue({ text: "From the terminal." });
    const terminal = await runCli(
      ["run", "--continue", "-w", f.ws.path, ...fakeModelArgs(f.server), "third task"],
      {
        env: cleanEnv({ RESON_HOME: f.home.path }),
        timeoutMs: 60_000,
      },
    );
    expect(terminal.stderr + terminal.stdout).toContain("From the terminal.");
    expect(JSON.stringify(f.server.requests.at(-1)?.body)).toContain("first task");
  });

  it("a session begun in the terminal loads in the editor and continues there", async () => {
    f.server.enqueue({ text: "Terminal answer." });
    const terminal = await runCli(["run", "-w", f.ws.path, ...fakeModelArgs(f.server), "terminal task"], {
      env: cleanEnv({ RESON_HOME: f.home.path }),
      timeoutMs: 60_000,
    });
    expect(terminal.code).toBe(0);
    const acp = await begin();
    const listed = await acp.connection.agent.request(methods.agent.session.list, { cwd: f.ws.path });
    expect(listed.sessions).toHaveLength(1);
    const sessionId = listed.sessions[0]!.sessionId;
    await acp.connection.agent.request(methods.agent.session.load, {
      sessionId,
      cwd: f.ws.path,
      mcpServers: [],
    });
    expect(agentText(acp.updates)).toBe("Terminal answer.");
    f.server.enqueue({ text: "Editor answer." });
    await prompt(acp, sessionId, "editor task");
    const sent = JSON.stringify(f.server.requests.at(-1)?.body);
    expect(sent).toContain("terminal task");
    expect(sent).toContain("editor task");
    await acp.connection.agent.request(methods.agent.session.close, { sessionId });
    const closed = await prompt(acp, sessionId, "after close").catch((error: unknown) => error);
    expect(closed).toMatchObject({ code: -32002 });
  });

  it("two loads of one session at once open it once: one agent, one start of each of its MCP servers", async () => {
    f.server.enqueue({ text: "First answer." });
    const acp = await begin();
    const { sessionId } = await newSession(acp);
    await prompt(acp, sessionId, "first task");
    await acp.connection.agent.request(methods.agent.session.close, { sessionId });
    const starts = join(f.home.path, "starts.txt");
    const counted = {
      name: "counted",
      command: "/bin/sh",
      args: ["-c", `echo started >> '${starts}'; exec '${process.execPath}' '${TEST_SERVER}'`],
      env: [],
    };
    const load = () =>
      acp.connection.agent.request(methods.agent.session.load, {
        sessionId,
        cwd: f.ws.path,
        mcpServers: [counted],
      });
    await Promise.all([load(), load()]);
    expect(readFileSync(starts, "utf8").trim().split("\n")).toHaveLength(1);
    // Closing it stops the one session there is: a prompt then finds none.
    await acp.connection.agent.request(methods.agent.session.close, { sessionId });
    const closed = await prompt(acp, sessionId, "after close").catch((error: unknown) => error);
    expect(closed).toMatchObject({ code: -32002 });
  });

  it("session/resume reopens a stored session without replaying it; the next prompt sees its history", async () => {
    f.server.enqueue({ text: "First answer." });
    const first = await begin();
    const { sessionId } = await newSession(first);
    await prompt(first, sessionId, "remember the word tangerine");
    await first.close();
    started.splice(started.indexOf(first), 1);

    const second = await begin();
    const resumed = await second.connection.agent.request(methods.agent.session.resume, {
      sessionId,
      cwd: f.ws.path,
    });
    expect(resumed.modes?.currentModeId).toBe("default");
    expect(updatesOf(second.updates, "user_message_chunk")).toEqual([]);
    f.server.enqueue({ text: "tangerine" });
    expect((await prompt(second, sessionId, "which word?")).stopReason).toBe("end_turn");
    expect(JSON.stringify(f.server.requests.at(-1)?.body)).toContain("remember the word tangerine");
    const elsewhere = await second.connection.agent
      .request(methods.agent.session.resume, { sessionId: "01NOSUCHSESSION0000000000", cwd: f.ws.path })
      .catch((error: unknown) => error);
    expect(elsewhere).toMatchObject({ code: -32002 });
  });

  it("the editor's MCP servers start for the session, with the environment it gives them", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "mcp__tests__env", arguments: { name: "FROM_EDITOR" } }] },
      { text: "ok" },
    );
    const acp = await begin();
    const { sessionId } = await acp.connection.agent.request(methods.agent.session.new, {
      cwd: f.ws.path,
      mcpServers: [
        {
          name: "tests",
          command: process.execPath,
          args: [TEST_SERVER],
          env: [{ name: "FROM_EDITOR", value: "set-in-zed" }],
        },
      ],
    });
    await prompt(acp, sessionId, "read the variable");
    // Gated like any MCP tool: asked first.
    expect(acp.permissionRequests[0]?.toolCall.title).toBe("mcp__tests__env");
    expect(toolMessagesOf(f.server.requests.at(-1)!).join("\n")).toContain("set-in-zed");
  });

  it("an editor's MCP server that does not start is said after session/new has named the session, so the editor can show it", async () => {
    const acp = await begin();
    const { sessionId } = await acp.connection.agent.request(methods.agent.session.new, {
      cwd: f.ws.path,
      mcpServers: [{ name: "broken", command: join(f.ws.path, "no-such-server"), args: [], env: [] }],
    });
    const warned = (line: string) => line.includes('"agent_thought_chunk"') && line.includes("broken");
    await untilUpdate(acp, () => acp.stdoutLines.some(warned));
    const answer = acp.stdoutLines.findIndex((line) => line.includes(`"result":{"sessionId":"${sessionId}"`));
    expect(answer).toBeGreaterThanOrEqual(0);
    // Before its answer the editor has no session of that id, and drops what is sent for one.
    expect(acp.stdoutLines.findIndex(warned)).toBeGreaterThan(answer);
    expect(JSON.parse(acp.stdoutLines.find(warned)!).params.sessionId).toBe(sessionId);
  });

  it("the prompts of the editor's MCP servers are commands: announced, and one runs as the task", async () => {
    f.server.enqueue({ text: "Lyon it is" });
    const acp = await begin();
    const { sessionId } = await acp.connection.agent.request(methods.agent.session.new, {
      cwd: f.ws.path,
      mcpServers: [{ name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"], env: [] }],
    });
    await untilUpdate(acp, (updates) => updatesOf(updates, "available_commands_update").length > 0);
    const commands = updatesOf(acp.updates, "available_commands_update")[0]?.availableCommands ?? [];
    const command = commands.find((c) => c.name === "mcp__everything__args-prompt");
    expect(command?.input).toMatchObject({ hint: expect.stringContaining("city") });
    expect((await prompt(acp, sessionId, "/mcp__everything__args-prompt city=Lyon")).stopReason).toBe(
      "end_turn",
    );
    expect(JSON.stringify(f.server.requests.at(-1)?.body)).toContain("Lyon");
  });

  it("an editor's MCP server over Streamable HTTP is reached too: its prompts are commands and one runs as the task", async () => {
    const web = await everythingHttp();
    try {
      f.server.enqueue({ text: "Oslo it is" });
      const acp = await begin();
      const { sessionId } = await acp.connection.agent.request(methods.agent.session.new, {
        cwd: f.ws.path,
        mcpServers: [{ type: "http", name: "web", url: web.url, headers: [] }],
      });
      await untilUpdate(acp, (updates) => updatesOf(updates, "available_commands_update").length > 0);
      const commands = updatesOf(acp.updates, "available_commands_update")[0]?.availableCommands ?? [];
      expect(commands.map((c) => c.name)).toContain("mcp__web__args-prompt");
      expect((await prompt(acp, sessionId, "/mcp__web__args-prompt city=Oslo")).stopReason).toBe("end_turn");
      expect(JSON.stringify(f.server.requests.at(-1)?.body)).toContain("Oslo");
    } finally {
      await web.stop();
    }
  });

  it("ask_human is a form in the editor where it offers one; its answer reaches the model", async () => {
    const asked: unknown[] = [];
    f.server.enqueue(
      {
        toolCalls: [
          {
            name: "ask_human",
            arguments: { question: "Which database?", choices: ["SQLite", "PostgreSQL"] },
          },
        ],
      },
      { text: "Using PostgreSQL." },
    );
    const acp = await begin({
      elicit: (request) => {
        asked.push(request);
        return { action: "accept", content: { answer: "PostgreSQL" } };
      },
    });
    const { sessionId } = await newSession(acp);
    await prompt(acp, sessionId, "set up the store");
    expect(asked).toEqual([
      expect.objectContaining({
        sessionId,
        mode: "form",
        message: "Which database?",
        requestedSchema: expect.objectContaining({
          properties: { answer: expect.objectContaining({ enum: ["SQLite", "PostgreSQL"] }) },
        }),
      }),
    ]);
    expect(toolMessagesOf(f.server.requests.at(-1)!).join("\n")).toContain("The user answered: PostgreSQL");
  });

  it("with the editor's fs the file tools read its unsaved buffer and write through it, never outside the workspace", async () => {
    const file = join(f.ws.path, "notes.txt");
    writeFileSync(file, "saved on disk\n");
    const buffers: EditorBuffers = { files: new Map([[file, "unsaved in the editor\n"]]), writes: [] };
    f.server.enqueue(
      { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
      {
        toolCalls: [
          { name: "write_file", arguments: { path: "notes.txt", content: "rewritten\n" }, id: "c2" },
          { name: "write_file", arguments: { path: "../outside.txt", content: "escape\n" }, id: "c3" },
        ],
      },
      { text: "ok" },
    );
    const acp = await begin({ buffers });
    const { sessionId } = await newSession(acp);
    await acp.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "acceptEdits" });
    await prompt(acp, sessionId, "rewrite notes.txt");
    expect(toolMessagesOf(f.server.requests[1]!).join("\n")).toContain("unsaved in the editor");
    // The edit went to the editor (its buffer and undo history), which saves it; not past it.
    expect(buffers.writes).toEqual([{ path: file, content: "rewritten\n" }]);
    expect(readFileSync(file, "utf8")).toBe("saved on disk\n");
    expect(existsSync(join(f.ws.path, "..", "outside.txt"))).toBe(false);
    const failed = updatesOf(acp.updates, "tool_call_update").filter((u) => u.status === "failed");
    expect(failed).toHaveLength(1);
  });

  it("with the editor's fs a protected path is still asked every time, even in acceptEdits, and a reject keeps it from the editor", async () => {
    const buffers: EditorBuffers = { files: new Map(), writes: [] };
    f.server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: ".vscode/settings.json", content: "{}\n" } }] },
      { text: "ok" },
    );
    const acp = await begin({ buffers, answer: pick("reject_once") });
    const { sessionId } = await newSession(acp);
    await acp.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "acceptEdits" });
    await prompt(acp, sessionId, "configure the editor");
    expect(acp.permissionRequests.map((r) => r.options.map((o) => o.optionId))).toEqual([
      ["allow_once", "reject_once"],
    ]);
    expect(buffers.writes).toEqual([]);
    expect(existsSync(join(f.ws.path, ".vscode"))).toBe(false);
  });

  it("wrong requests are JSON-RPC errors and the process keeps serving; stdout holds only protocol", async () => {
    const acp = await begin();
    const unknown = await prompt(acp, "no-such-session", "hi").catch((error: unknown) => error);
    expect(unknown).toMatchObject({ code: -32002 });
    const relative = await acp.connection.agent
      .request(methods.agent.session.new, { cwd: "relative/path", mcpServers: [] })
      .catch((error: unknown) => error);
    expect(relative).toMatchObject({ code: -32602, data: { code: "usage_error" } });
    const { sessionId } = await newSession(acp);
    const mode = await acp.connection.agent
      .request(methods.agent.session.setMode, { sessionId, modeId: "yolo" })
      .catch((error: unknown) => error);
    expect(mode).toMatchObject({ code: -32602 });
    const image = await acp.connection.agent
      .request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "image", data: "aGVsbG8=", mimeType: "image/png" }],
      })
      .catch((error: unknown) => error);
    expect(image).toMatchObject({ code: -32602 });
    // Raw lines no SDK would send: not JSON, and params of the wrong type.
    acp.child.stdin?.write("{not json\n");
    acp.child.stdin?.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 9001, method: "session/new", params: { cwd: 5 } })}\n`,
    );
    for (let i = 0; i < 200 && !acp.stdoutLines.some((line) => line.includes('"id":9001')); i++)
      await new Promise((r) => setTimeout(r, 50));
    const answer = JSON.parse(acp.stdoutLines.find((line) => line.includes('"id":9001'))!);
    expect(answer.error.code).toBe(-32602);
    // Still serving.
    f.server.enqueue({ text: "still here" });
    expect((await prompt(acp, sessionId, "hello")).stopReason).toBe("end_turn");
    for (const line of acp.stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
    expect(acp.child.exitCode).toBeNull();
  });

  it("a prompt over 32 MiB (a huge file attached) is a JSON-RPC error that says what to do; the process keeps serving its sessions", async () => {
    const acp = await begin();
    const { sessionId } = await newSession(acp);
    const huge = "log line\n".repeat(3_700_000);
    const refused = await acp.connection.agent
      .request(methods.agent.session.prompt, {
        sessionId,
        prompt: [
          { type: "text", text: "why does this fail?" },
          { type: "resource", resource: { uri: `file://${f.ws.path}/big.log`, text: huge } },
        ],
      })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: -32600, data: { code: "invalid_request" } });
    expect((refused as Error).message).toContain("32.0 MiB");
    expect((refused as { data: { hint: string } }).data.hint).toMatch(/link a large file/);
    // A notification that large has no one to answer: dropped, and nothing else changes.
    await acp.connection.agent.notify(methods.agent.session.cancel, { sessionId, _meta: { pad: huge } });
    f.server.enqueue({ text: "still here" });
    expect((await prompt(acp, sessionId, "hello")).stopReason).toBe("end_turn");
    expect(acp.child.exitCode).toBeNull();
  });
});
