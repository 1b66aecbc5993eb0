// `reson acp` driven by the ACP SDK's own client over stdio, against the fake model server: what
// an editor sees of a prompt turn (messages, tool calls with diffs, the plan, context use), the
// modes, the slash commands, and how each way a run ends becomes a stop reason.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { methods, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { type AcpProcess, acpEnv, agentText, startAcp, updatesOf } from "../support/acp-client.js";
import { useCliFixture } from "../support/cli-fixture.js";

describe("reson acp: prompt turns", () => {
  const f = useCliFixture();
  let acp: AcpProcess | undefined;
  afterEach(async () => {
    await acp?.close();
    acp = undefined;
  });

  async function session(args: string[] = []) {
    acp = startAcp({ env: acpEnv(f), args });
    await acp.initialize();
    return acp.connection.agent.request(methods.agent.session.new, { cwd: f.ws.path, mcpServers: [] });
  }

  const prompt = (sessionId: string, text: string) =>
    acp!.connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text }],
    });

  it("initialize says what reson takes: stored sessions, text and files (no images for a local model), MCP over stdio, HTTP and SSE", async () => {
    acp = startAcp({ env: acpEnv(f) });
    const init = await acp.initialize();
    expect(init.protocolVersion).toBe(PROTOCOL_VERSION);
    expect(init.agentInfo?.name).toBe("reson");
    expect(init.authMethods).toEqual([]);
    expect(init.agentCapabilities).toEqual({
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {}, resume: {}, close: {} },
    });
  });

  it("a prompt that edits a file streams the call with its diff, and the file changes", async () => {
    writeFileSync(join(f.ws.path, "a.txt"), "one\ntwo\n");
    f.server.enqueue(
      {
        toolCalls: [
          { name: "edit_file", arguments: { path: "a.txt", old_string: "two", new_string: "three" } },
        ],
      },
      { text: "Changed two to three." },
    );
    const { sessionId, modes } = await session();
    expect(modes?.currentModeId).toBe("default");
    expect(modes?.availableModes.map((mode) => mode.id)).toEqual([
      "default",
      "acceptEdits",
      "plan",
      "dontAsk",
      "bypass",
    ]);
    const answer = await prompt(sessionId, "change two to three in a.txt");
    expect(answer.stopReason).toBe("end_turn");
    expect(readFileSync(join(f.ws.path, "a.txt"), "utf8")).toBe("one\nthree\n");

    const [call] = updatesOf(acp!.updates, "tool_call");
    expect(call).toMatchObject({ title: "Edit a.txt", kind: "edit", status: "pending" });
    expect(call?.locations).toEqual([{ path: join(f.ws.path, "a.txt") }]);
    const diff = {
      type: "diff",
      path: join(f.ws.path, "a.txt"),
      oldText: "one\ntwo\n",
      newText: "one\nthree\n",
    };
    // Asked first (default mode), showing the diff; then the call's updates carry it.
    expect(acp!.permissionRequests[0]?.toolCall.content?.[0]).toEqual(diff);
    const finished = updatesOf(acp!.updates, "tool_call_update").at(-1);
    expect(finished?.status).toBe("completed");
    expect(finished?.content?.[0]).toEqual(diff);
    expect(agentText(acp!.updates)).toBe("Changed two to three.");
    // The status line of the terminal: how full the context is.
    expect(updatesOf(acp!.updates, "usage_update").at(-1)?.size).toBeGreaterThan(0);
    // Nothing but protocol on stdout.
    for (const line of acp!.stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
  });

  it("goal calls become the plan, each goal with its status", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "goal", arguments: { action: "add", title: "Read the parser" } }] },
      {
        toolCalls: [
          { name: "goal", arguments: { action: "done", id: "g1", summary: "read it" }, id: "c2" },
          { name: "goal", arguments: { action: "add", title: "Write the test" }, id: "c3" },
        ],
      },
      { text: "Planned." },
    );
    const { sessionId } = await session();
    await prompt(sessionId, "plan the work");
    const plans = updatesOf(acp!.updates, "plan");
    expect(plans.length).toBeGreaterThan(1);
    expect(plans[0]?.entries).toEqual([
      { content: "Read the parser", priority: "high", status: "in_progress" },
    ]);
    expect(plans.at(-1)?.entries).toEqual([
      { content: "Read the parser", priority: "high", status: "completed" },
      { content: "Write the test", priority: "high", status: "in_progress" },
    ]);
    expect(updatesOf(acp!.updates, "tool_call").map((call) => call.kind)).toEqual([
      "think",
      "think",
      "think",
    ]);
  });

  it("set_mode switches reson's permission mode: in acceptEdits an edit runs without asking", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "b.txt", content: "new\n" } }] },
      { text: "ok" },
    );
    const { sessionId } = await session();
    await acp!.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "acceptEdits" });
    await prompt(sessionId, "write b.txt");
    expect(acp!.permissionRequests).toEqual([]);
    expect(readFileSync(join(f.ws.path, "b.txt"), "utf8")).toBe("new\n");
    expect(updatesOf(acp!.updates, "current_mode_update")).toEqual([
      { sessionUpdate: "current_mode_update", currentModeId: "acceptEdits" },
    ]);
  });

  it("plan mode offers the model no write tools", async () => {
    f.server.enqueue({ text: "I would change a.txt." });
    const { sessionId } = await session();
    await acp!.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "plan" });
    await prompt(sessionId, "what would you change?");
    const body = f.server.requests.at(-1)?.body as { tools?: { function: { name: string } }[] } | undefined;
    const offered = body?.tools?.map((tool) => tool.function.name);
    expect(offered).toContain("read_file");
    expect(offered).not.toContain("write_file");
    expect(offered).not.toContain("edit_file");
  });

  it("slash commands answer in the session, and are announced with the skills a user may invoke", async () => {
    const skill = join(f.ws.path, ".reson", "skills", "release-notes");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(skill, { recursive: true });
    writeFileSync(
      join(skill, "SKILL.md"),
      "---\nname: release-notes\ndescription: Write release notes from the git log\n---\nList the changes since the last tag.\n",
    );
    f.server.enqueue({ text: "Notes written." });
    const { sessionId } = await session();
    const cost = await prompt(sessionId, "/cost");
    expect(cost.stopReason).toBe("end_turn");
    expect(agentText(acp!.updates)).toBe("No model call yet in this session.");
    const commands = updatesOf(acp!.updates, "available_commands_update")[0]?.availableCommands ?? [];
    expect(commands.map((command) => command.name)).toEqual(
      expect.arrayContaining([
        "compact",
        "resume",
        "cost",
        "context",
        "skills",
        "permissions",
        "release-notes",
      ]),
    );
    await prompt(sessionId, "/release-notes for 1.2");
    const task = JSON.stringify(f.server.requests.at(-1)?.body);
    expect(task).toContain('The user invoked the skill \\"release-notes\\", asking: for 1.2');
    expect(task).toContain("List the changes since the last tag.");
  });

  it("session/cancel during /compact stops the summary call: the turn ends cancelled and the history stays whole", async () => {
    // The summary model answers only after far longer than the test waits.
    f.server.enqueue(
      { text: "First." },
      { text: "Second." },
      { text: "SUMMARY-OF-EARLIER-TURNS", delayMs: 20_000 },
    );
    const { sessionId } = await session();
    await prompt(sessionId, "the word is tangerine");
    await prompt(sessionId, "second task");
    const compacting = prompt(sessionId, "/compact");
    for (let i = 0; i < 200 && f.server.requests.length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    expect(f.server.requests).toHaveLength(3);
    await acp!.connection.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await compacting).stopReason).toBe("cancelled");
    f.server.enqueue({ text: "tangerine" });
    await prompt(sessionId, "which word?");
    const sent = JSON.stringify(f.server.requests.at(-1)?.body);
    expect(sent).toContain("the word is tangerine");
    expect(sent).not.toContain("SUMMARY-OF-EARLIER-TURNS");
  });

  it("the model is a session option: the picker offers the presets' models, and a pick or /model <id> is the model of the next task", async () => {
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(f.ws.path, ".reson"), { recursive: true });
    writeFileSync(
      join(f.ws.path, ".reson", "presets.json"),
      JSON.stringify({ quick: { description: "small and fast", model: "fake-small" } }),
    );
    f.server.enqueue({ text: "small here" }, { text: "other here" });
    const created = await session();
    const [option] = created.configOptions ?? [];
    expect(option).toMatchObject({
      id: "model",
      category: "model",
      type: "select",
      currentValue: "fake-model",
    });
    const offered = option?.type === "select" ? option.options : [];
    expect(offered).toEqual(expect.arrayContaining([{ value: "fake-small", name: "fake-small" }]));

    const picked = await acp!.connection.agent.request(methods.agent.session.setConfigOption, {
      sessionId: created.sessionId,
      configId: "model",
      value: "fake-small",
    });
    expect(picked.configOptions[0]).toMatchObject({ currentValue: "fake-small" });
    await prompt(created.sessionId, "hello");
    expect((f.server.requests.at(-1)?.body as { model?: string } | undefined)?.model).toBe("fake-small");

    const wrong = await acp!.connection.agent
      .request(methods.agent.session.setConfigOption, {
        sessionId: created.sessionId,
        configId: "model",
        value: "nope",
      })
      .catch((error: unknown) => error);
    expect(wrong).toMatchObject({ code: -32602 });

    expect((await prompt(created.sessionId, "/model other-model")).stopReason).toBe("end_turn");
    expect(updatesOf(acp!.updates, "config_option_update").at(-1)?.configOptions[0]).toMatchObject({
      currentValue: "other-model",
    });
    await prompt(created.sessionId, "hello again");
    expect((f.server.requests.at(-1)?.body as { model?: string } | undefined)?.model).toBe("other-model");
    // The same session throughout: the second task sees the first.
    expect(JSON.stringify(f.server.requests.at(-1)?.body)).toContain("small here");
  });

  it("a skill switched off with /skill stays off after /model changes the session's model", async () => {
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(f.ws.path, ".reson", "skills", "deploy"), { recursive: true });
    writeFileSync(
      join(f.ws.path, ".reson", "skills", "deploy", "SKILL.md"),
      "---\nname: deploy\ndescription: How to deploy\n---\nDEPLOY-STEPS: run make ship.\n",
    );
    const created = await session();
    await prompt(created.sessionId, "/skill deploy off");
    await prompt(created.sessionId, "/model other-model");
    f.server.enqueue({ toolCalls: [{ name: "skill", arguments: { name: "deploy" } }] }, { text: "done" });
    await prompt(created.sessionId, "deploy it");
    const body = f.server.requests.at(-1)!.body as { model?: string; messages: unknown[] };
    // The skill tool's answer to this task's call.
    const last = JSON.stringify(body.messages.at(-1));
    expect(body.model).toBe("other-model");
    expect(last).toContain("turned off");
    expect(last).not.toContain("DEPLOY-STEPS");
  });

  it("stop reasons: the iteration limit is max_turn_requests, a cut answer max_tokens, a safety filter refusal", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "list_files", arguments: { path: "." } }] },
      { text: "cut off mid-", finish: "length" },
      { text: "", finish: "content_filter" },
    );
    const { sessionId } = await session(["--max-iterations", "1"]);
    expect((await prompt(sessionId, "look around")).stopReason).toBe("max_turn_requests");
    expect((await prompt(sessionId, "write a long answer")).stopReason).toBe("max_tokens");
    expect((await prompt(sessionId, "something the filter refuses")).stopReason).toBe("refusal");
  });

  it("a run that fails for another reason is a JSON-RPC error with reson's code and hint", async () => {
    f.server.enqueue({ fault: "http", status: 401, message: "bad key" });
    const { sessionId } = await session();
    const failure = await prompt(sessionId, "hello").catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: -32000, data: { code: "provider_auth_failed" } });
    expect((failure as { data: { hint?: string } }).data.hint).toBeTruthy();
  });
});
