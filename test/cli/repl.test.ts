// End to end: the interactive terminal (`reson` with no subcommand) driven through pipes, as
// a user would type: tasks stream their answer and tool lines, permission prompts take each
// answer, slash commands answer, Ctrl-C cancels a run, and `reson --continue` reopens it.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";
import { type ReplSession as Session, startRepl } from "../support/repl-session.js";
import { skipWithout } from "../support/requirements.js";

// Without a working sandbox every command is asked each time: s, p and u are not offered.
const noSandbox = await skipWithout("sandbox", "the interactive terminal");

/** All the text the model was sent in a request (system, messages, tool results). */
function requestText(body: unknown): string {
  return JSON.stringify(body);
}

describe("the interactive terminal", () => {
  let server: FakeModelServer;
  let ws: TempDir;
  let home: TempDir;
  let repl: Session | undefined;

  beforeEach(async () => {
    server = await startFakeModelServer();
    ws = tempDir();
    home = tempDir();
  });
  afterEach(async () => {
    if (repl && repl.child.exitCode === null) repl.child.kill("SIGKILL");
    repl = undefined;
    await server.close();
    ws.remove();
    home.remove();
  });

  const open = (...extra: string[]) => {
    repl = startRepl(
      [
        "--provider",
        "openai-compatible",
        "--base-url",
        server.openaiBaseUrl,
        "--model",
        "fake-model",
        ...extra,
      ],
      ws.path,
      cleanEnv({ RESON_HOME: home.path }),
    );
    return repl;
  };

  it("streams the answer, one line per tool call, and a status line; slash commands answer", async () => {
    server.enqueue(
      {
        text: "Setting a goal.",
        toolCalls: [{ name: "goal", arguments: { action: "add", title: "COUNT-THE-FILES" } }],
      },
      { text: "Listing files.", toolCalls: [{ name: "list_files", arguments: { path: "." } }] },
      { text: "There are no files here." },
    );
    const r = open();
    await r.waitFor("reson> ");
    r.send("how many files are there?");
    let at = await r.waitFor("There are no files here.");
    expect(r.output).toContain("Listing files.");
    expect(r.output).toMatch(/✓ list_files path="\."/);
    at = await r.waitFor(
      /fake-model · context \d+% of [\d,]+ · [\d,]+ tokens · cost unknown this session/,
      at,
    );

    r.send("/goal");
    at = await r.waitFor("COUNT-THE-FILES", at);
    r.send("/cost");
    at = await r.waitFor(/session \w+: [\d,]+ tokens \(input/, at);
    r.send("/context");
    at = await r.waitFor(/context [\d,]+ tokens \(estimated\) · budget/, at);
    r.send("/permissions");
    at = await r.waitFor("Mode: default", at);
    r.send("/permissions mode plan");
    at = await r.waitFor("Permission mode: plan", at);
    r.send("/skill");
    at = await r.waitFor("Usage: /skill <name> on|off", at);
    r.send("/frobnicate");
    at = await r.waitFor("Unknown command /frobnicate. Commands: /help, /model", at);
    r.send("/help");
    at = await r.waitFor("/resume <id>", at);
    r.send("/model");
    at = await r.waitFor("model: openai-compatible/fake-model", at);
    r.send("/exit");
    await r.waitFor("reson --continue", at);
    expect(await r.exited).toBe(0);
    expect(server.requests).toHaveLength(3);
  });

  it("asks before a command and takes y, n, a note with m, and an edited command with e", async () => {
    // Without a working sandbox every command is asked each time, and only y/n/m/e are offered.
    const ANSWERS = /allow\? \[y(\/s\/p\/u)?\/n\/m\/e\] /;
    const touch = (file: string) => ({
      toolCalls: [{ name: "execute_command", arguments: { command: `touch ${file}` } }],
    });
    server.enqueue(touch("yes.txt"), touch("no.txt"), touch("noted.txt"), touch("edit.txt"), { text: "ok" });
    const r = open();
    await r.waitFor("reson> ");
    r.send("make some files");

    let at = await r.waitFor(ANSWERS);
    expect(r.output).toContain("? execute_command\n    command: touch yes.txt\n");
    r.send("y");
    at = await r.waitFor(ANSWERS, at);
    expect(existsSync(join(ws.path, "yes.txt"))).toBe(true);
    r.send("n");
    at = await r.waitFor(ANSWERS, at);
    r.send("m");
    at = await r.waitFor("note to the model: ", at);
    r.send("use the fixtures folder instead");
    at = await r.waitFor(ANSWERS, at);
    // The note reached the model with the denied call's result.
    expect(requestText(server.requests.at(-1)?.body)).toContain(
      "The user denied this call: use the fixtures folder instead",
    );
    r.send("e");
    at = await r.waitFor("new command (empty keeps it): ", at);
    r.send("touch edited.txt");
    await r.waitFor(/this session/, at);
    expect(existsSync(join(ws.path, "edited.txt"))).toBe(true);
    expect(existsSync(join(ws.path, "no.txt"))).toBe(false);
    expect(existsSync(join(ws.path, "noted.txt"))).toBe(false);
    expect(existsSync(join(ws.path, "edit.txt"))).toBe(false);
    expect(requestText(server.requests[2]?.body)).toContain("The user denied this call.");
    r.child.stdin!.end(); // Ctrl-D
    expect(await r.exited).toBe(0);
  });

  it.skipIf(noSandbox)(
    "s allows the same call for the session; p and u write the rule to the project's and the user's settings",
    async () => {
      const touch = (file: string) => ({
        toolCalls: [{ name: "execute_command", arguments: { command: `touch ${file}` } }],
      });
      server.enqueue(touch("s.txt"), touch("s.txt"), touch("p.txt"), touch("u.txt"), { text: "ok" });
      const r = open();
      await r.waitFor("reson> ");
      r.send("make files");
      let at = await r.waitFor("allow? [y/s/p/u/n/m/e]");
      r.send("s");
      // The same call again is not asked: the next prompt is for p.txt.
      at = await r.waitFor("allow? [y/s/p/u/n/m/e]", at);
      expect(r.output.slice(at - 200)).toContain("touch p.txt");
      r.send("p");
      at = await r.waitFor("allow? [y/s/p/u/n/m/e]", at);
      r.send("u");
      await r.waitFor(/this session/, at);
      for (const file of ["s.txt", "p.txt", "u.txt"]) expect(existsSync(join(ws.path, file))).toBe(true);
      const project = JSON.parse(readFileSync(join(ws.path, ".reson/settings.local.json"), "utf8"));
      expect(project.permissions.allow).toEqual(["execute_command(touch p.txt)"]);
      const user = JSON.parse(readFileSync(join(home.path, "settings.json"), "utf8"));
      expect(user.permissions.allow).toEqual(["execute_command(touch u.txt)"]);
      r.send("/exit");
      expect(await r.exited).toBe(0);
    },
  );

  it("/compact summarises the session with the summary request and the next task sees the summary", async () => {
    server.enqueue(
      { toolCalls: [{ name: "list_files", arguments: { path: "." } }] },
      { text: "FIRST-ANSWER" },
      { text: "SECOND-ANSWER" },
      { text: "## Goal\nSESSION-SUMMARY-TEXT" },
      { text: "THIRD-ANSWER" },
    );
    const r = open();
    await r.waitFor("reson> ");
    r.send("FIRST-TASK list things");
    let at = await r.waitFor("FIRST-ANSWER");
    r.send("SECOND-TASK");
    at = await r.waitFor("SECOND-ANSWER", at);
    r.send("/compact keep the file names");
    at = await r.waitFor(/Compacted \d+ turns into a \d+-character summary/, at);
    const summaryRequest = requestText(server.requests.at(-1)?.body);
    expect(summaryRequest).toContain("compact the working memory");
    expect(summaryRequest).toContain("keep the file names");
    expect(summaryRequest).toContain("FIRST-TASK");
    r.send("THIRD-TASK");
    at = await r.waitFor("THIRD-ANSWER", at);
    const next = requestText(server.requests.at(-1)?.body);
    expect(next).toContain("SESSION-SUMMARY-TEXT");
    expect(next).not.toContain("FIRST-TASK");
    expect(next).toContain("SECOND-TASK");
    r.send("/exit");
    expect(await r.exited).toBe(0);
  });

  it("/sessions lists the session, /model switches the model, /resume picks up a stopped run, /clear starts a new session", async () => {
    server.enqueue({ text: "FIRST" });
    const r = open("--max-iterations", "1");
    await r.waitFor("reson> ");
    r.send("FIRST-TASK");
    let at = await r.waitFor("FIRST");
    r.send("/sessions");
    at = await r.waitFor("FIRST-TASK", at);
    r.send("/model other-model");
    at = await r.waitFor("model: openai-compatible/other-model (for the next tasks)", at);
    // A run that stops at its iteration limit, then /resume finishes it.
    server.enqueue({ toolCalls: [{ name: "list_files", arguments: { path: "." } }] });
    r.send("SECOND-TASK");
    at = await r.waitFor("max_iterations", at);
    expect((server.requests.at(-1)!.body as { model: string }).model).toBe("other-model");
    at = await r.waitFor(/continue it with: \/resume [0-9A-Z]{26}/, at);
    const runId = /continue it with: \/resume ([0-9A-Z]{26})/.exec(r.output.slice(at - 1))?.[1];
    expect(runId).toMatch(/^[0-9A-Z]{26}$/);
    // The run keeps the limit it was started with (1), so /resume picks it up at its last
    // committed step and stops again at once, as `reson resume` would, without a model call.
    const calls = server.requests.length;
    r.send(`/resume ${runId}`);
    at = await r.waitFor(`continue it with: /resume ${runId}`, at + 40);
    expect(server.requests.length).toBe(calls);
    r.send("/clear");
    at = await r.waitFor("The next task starts a new session.", at);
    server.enqueue({ text: "THIRD" });
    r.send("THIRD-TASK");
    at = await r.waitFor("THIRD", at);
    const third = requestText(server.requests.at(-1)?.body);
    expect(third).not.toContain("FIRST-TASK");
    r.send("/exit");
    expect(await r.exited).toBe(0);
  });

  it("/skills lists the project's skills; the model loads one with the skill tool; /skill off turns it off", async () => {
    const { mkdirSync, writeFileSync } = await import("node:fs");
    mkdirSync(join(ws.path, ".reson/skills/deploy"), { recursive: true });
    writeFileSync(
      join(ws.path, ".reson/skills/deploy/SKILL.md"),
      "---\nname: deploy\ndescription: How to deploy this project to staging\n---\nDEPLOY-STEPS: run make ship.\n",
    );
    writeFileSync(join(ws.path, ".reson/skills/core.md"), "CORE-SKILL: always explain what you change.\n");
    const load = { toolCalls: [{ name: "skill", arguments: { name: "deploy" } }] };
    server.enqueue(load, { text: "LOADED" }, load, { text: "REFUSED" });
    const r = open();
    await r.waitFor("reson> ");
    r.send("/skills");
    let at = await r.waitFor("deploy", 0);
    r.send("deploy it");
    at = await r.waitFor("LOADED", at);
    const first = requestText(server.requests[0]?.body);
    expect(first).toContain("CORE-SKILL: always explain what you change.");
    expect(first).toContain("How to deploy this project to staging");
    expect(requestText(server.requests[1]?.body)).toContain("DEPLOY-STEPS: run make ship.");
    r.send("/skill deploy off");
    at = await r.waitFor("Skill deploy is off for this session.", at);
    r.send("deploy again");
    at = await r.waitFor("REFUSED", at);
    expect(requestText(server.requests[3]?.body)).toContain("turned off");
    // Off for the session, whatever its model: a new model's agent keeps it off.
    server.enqueue(load, { text: "STILL-OFF" });
    r.send("/model other-model");
    at = await r.waitFor("(for the next tasks)", at);
    r.send("deploy once more");
    at = await r.waitFor("STILL-OFF", at);
    // The skill tool's answer to this task's call (the conversation before it holds one too).
    const lastMessage = (body: unknown) => JSON.stringify((body as { messages: unknown[] }).messages.at(-1));
    expect(lastMessage(server.requests[5]?.body)).toContain("turned off");
    expect(lastMessage(server.requests[5]?.body)).not.toContain("DEPLOY-STEPS");
    r.send("/exit");
    expect(await r.exited).toBe(0);
  });

  it("Ctrl-C cancels a slow reply and returns to the prompt; the next task works", async () => {
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
    server.enqueue({ text: long, chunkDelayMs: 50 }, { text: "Second answer." });
    const r = open();
    await r.waitFor("reson> ");
    r.send("talk slowly");
    let at = await r.waitFor("word3");
    r.child.kill("SIGINT");
    at = await r.waitFor("interrupted", at);
    at = await r.waitFor("reson> ", at);
    expect(r.output).not.toContain("word199");
    r.send("answer quickly");
    at = await r.waitFor("Second answer.", at);
    // The second task continues the same session: it sees the first one.
    expect(requestText(server.requests.at(-1)?.body)).toContain("talk slowly");
    r.send("/exit");
    expect(await r.exited).toBe(0);
  });

  it("ask_human shows the question with numbered choices; a number picks a choice, Ctrl-C skips", async () => {
    const ask = (question: string, id: string) => ({
      toolCalls: [{ name: "ask_human", arguments: { question, choices: ["red", "blue"] }, id }],
    });
    server.enqueue(ask("Which colour?", "q1"), ask("And the border?", "q2"), { text: "Done asking." });
    const r = open();
    await r.waitFor("reson> ");
    r.send("style the button");
    let at = await r.waitFor("? Which colour?");
    at = await r.waitFor("2. blue", at);
    at = await r.waitFor("answer (a number or your own words; empty to skip): ", at);
    r.send("2");
    at = await r.waitFor("? And the border?", at);
    at = await r.waitFor("empty to skip", at);
    // Ctrl-C skips the question; the run goes on.
    r.child.kill("SIGINT");
    at = await r.waitFor("Done asking.", at);
    const tools = server.requests.map((request) => requestText(request.body));
    expect(tools[1]).toContain("The user answered: blue");
    expect(tools[2]).toContain("The user declined to answer");
    r.send("/exit");
    expect(await r.exited).toBe(0);
  });

  it("Ctrl-C twice at an empty prompt exits", async () => {
    const r = open();
    await r.waitFor("reson> ");
    r.child.kill("SIGINT");
    const at = await r.waitFor("press Ctrl-C again");
    await r.waitFor("reson> ", at);
    r.child.kill("SIGINT");
    expect(await r.exited).toBe(0);
  });

  it("/exit, then `reson --continue` reopens the session: its turns are the next task's history", async () => {
    server.enqueue({ text: "First answer." }, { text: "Second answer." });
    const first = open();
    await first.waitFor("reson> ");
    first.send("remember the word PAPAYA");
    await first.waitFor("First answer.");
    first.send("/exit");
    expect(await first.exited).toBe(0);

    const second = open("--continue");
    await second.waitFor("continuing session");
    second.send("what was the word?");
    await second.waitFor("Second answer.");
    const body = requestText(server.requests.at(-1)?.body);
    expect(body).toContain("remember the word PAPAYA");
    expect(body).toContain("First answer.");
    second.send("/exit");
    expect(await second.exited).toBe(0);
    expect(readFileSync(join(home.path, "reson.db")).length).toBeGreaterThan(0);
  });
});
