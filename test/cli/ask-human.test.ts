// End to end: ask_human in `reson run`. With --interactive-stdin each question is shown (a
// human_question event in --json mode, lines on stderr otherwise) and one line of stdin is
// the answer; without the flag, or once stdin has ended, the model is told no one can answer.
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";

describe("reson run and ask_human", () => {
  const f = useCliFixture();

  const ask = (id: string, question: string, choices?: string[]) => ({
    toolCalls: [{ name: "ask_human", arguments: { question, ...(choices ? { choices } : {}) }, id }],
  });
  const run = (args: string[], input?: string) =>
    runCli(["run", ...fakeModelArgs(f.server), ...args], {
      cwd: f.ws.path,
      env: cleanEnv({ RESON_HOME: f.home.path }),
      ...(input === undefined ? {} : { input }),
    });
  /** What the model got back for each question, in order. */
  const toolAnswers = () =>
    f.server.requests
      .slice(1)
      .map((request) => JSON.stringify((request.body as { messages: unknown[] }).messages.at(-1)));

  it("--json --interactive-stdin: a human_question event per question, answered by a JSON line or a plain line", async () => {
    f.server.enqueue(ask("q1", "Which database?", ["sqlite", "postgres"]), ask("q2", "Which port?"), {
      text: "Configured.",
    });
    const result = await run(
      ["--json", "--interactive-stdin", "set up the database"],
      `{"toolCallId": "q1", "answer": "postgres, version 16"}\n5433\n`,
    );
    expect(result.code).toBe(0);
    const events = parseEvents(result.stdout);
    const questions = events.filter((e) => e.type === "human_question");
    expect(questions).toEqual([
      expect.objectContaining({
        toolCallId: "q1",
        question: "Which database?",
        choices: ["sqlite", "postgres"],
      }),
      expect.objectContaining({ toolCallId: "q2", question: "Which port?" }),
    ]);
    expect(questions[1]).not.toHaveProperty("choices");
    const [first, second] = toolAnswers();
    expect(first).toContain("The user answered: postgres, version 16");
    expect(second).toContain("The user answered: 5433");
    const results = events.filter((e) => e.type === "tool_result");
    expect(results.map((e) => e.ok)).toEqual([true, true]);
  });

  it("a plain line with a choice's number picks that choice; an empty line declines; the end of input means no one is there", async () => {
    f.server.enqueue(
      ask("q1", "Which database?", ["sqlite", "postgres"]),
      ask("q2", "Which port?"),
      ask("q3", "Which user?"),
      { text: "Configured." },
    );
    const result = await run(["--json", "--interactive-stdin", "set up the database"], "2\n\n");
    expect(result.code).toBe(0);
    const [first, second, third] = toolAnswers();
    expect(first).toContain("The user answered: postgres");
    expect(second).toContain("The user declined to answer");
    expect(third).toContain("No human is available to answer");
  });

  it("an answer naming another question is skipped with a warning", async () => {
    f.server.enqueue(ask("q1", "Which database?"), { text: "Configured." });
    const result = await run(
      ["--json", "--interactive-stdin", "set up the database"],
      `{"toolCallId": "elsewhere", "answer": "no"}\n{"answer": "sqlite"}\n`,
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("an answer for elsewhere was skipped");
    expect(toolAnswers()[0]).toContain("The user answered: sqlite");
  });

  it("without --interactive-stdin no question is asked and the model decides for itself", async () => {
    f.server.enqueue(ask("q1", "Which database?"), { text: "Went with sqlite." });
    const result = await run(["--json", "set up the database"], "postgres\n");
    expect(result.code).toBe(0);
    expect(parseEvents(result.stdout).some((e) => e.type === "human_question")).toBe(false);
    expect(toolAnswers()[0]).toContain("No human is available to answer; decide yourself");
  });

  it("in human mode the question and its choices go to stderr, the answer comes from stdin", async () => {
    f.server.enqueue(ask("q1", "Which database?", ["sqlite", "postgres"]), { text: "Configured." });
    const result = await run(["--interactive-stdin", "set up the database"], "1\n");
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("? Which database?\n  1. sqlite\n  2. postgres\n");
    expect(result.stdout).toContain("Configured.");
    expect(result.stdout).not.toContain("Which database?");
    expect(toolAnswers()[0]).toContain("The user answered: sqlite");
  });

  it('the task cannot come from stdin ("-") when stdin carries the answers', async () => {
    const result = await run(["--interactive-stdin", "-"], "a task\n");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("standard input carries the answers");
    expect(f.server.requests).toHaveLength(0);
  });
});
