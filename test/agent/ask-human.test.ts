// ask_human through the real loop: the host's channel gets the question (announced first as a
// human_question event), the answer reaches the model as the tool's result, masked like any
// output; without a channel, or with no answer, the model is told to decide for itself.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type AgentOptions,
  createAgent,
  type HumanQuestion,
  type ResonEvent,
  SecretVault,
} from "../../src/index.js";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import {
  type FakeModelServer,
  type RecordedRequest,
  startFakeModelServer,
} from "../support/fake-model-server.js";

const lastToolMessage = (request: RecordedRequest) =>
  JSON.stringify(
    (request.body as { messages: Array<{ role: string; content: unknown }> }).messages.findLast(
      (m) => m.role === "tool",
    ),
  );

describe("ask_human", () => {
  let server: FakeModelServer;
  let ws: TempDir;
  beforeEach(async () => {
    ws = tempDir();
    server = await startFakeModelServer();
  });
  afterEach(async () => {
    await server.close();
    ws.remove();
  });

  const run = async (options: Partial<AgentOptions>, calls: Array<Record<string, unknown>>) => {
    server.enqueue(
      { toolCalls: calls.map((args, i) => ({ name: "ask_human", arguments: args, id: `ask_${i}` })) },
      { text: "Going with it." },
    );
    const agent = await createAgent({
      workspace: ws.path,
      provider: "openai-compatible",
      baseUrl: server.openaiBaseUrl,
      model: "fake",
      env: cleanEnv({ RESON_HOME: ws.home }),
      persist: false,
      secrets: SecretVault.empty(),
      ...options,
    });
    const events: ResonEvent[] = [];
    const result = await agent.run("Pick a colour for the button.", { onEvent: (e) => events.push(e) });
    return { result, events, answer: lastToolMessage(server.requests.at(-1)!) };
  };

  it("asks through the host's channel, announces the question as an event, and gives the model the answer", async () => {
    const asked: HumanQuestion[] = [];
    const { result, events, answer } = await run(
      {
        askHuman: async (question) => {
          asked.push(question);
          return { answer: "blue" };
        },
      },
      [{ question: "Which colour?", choices: ["red", "blue"] }],
    );
    expect(result.status).toBe("completed");
    expect(asked).toEqual([{ question: "Which colour?", choices: ["red", "blue"], toolCallId: "ask_0" }]);
    const question = events.find((e) => e.type === "human_question");
    expect(question).toMatchObject({
      toolCallId: "ask_0",
      question: "Which colour?",
      choices: ["red", "blue"],
    });
    // The question comes before the answer is in.
    expect(events.indexOf(question!)).toBeLessThan(events.findIndex((e) => e.type === "tool_result"));
    expect(answer).toContain("The user answered: blue");
  });

  it("without a channel, tells the model no one can answer, as a result and not an error", async () => {
    const { events, answer } = await run({}, [{ question: "Which colour?" }]);
    expect(events.some((e) => e.type === "human_question")).toBe(false);
    expect(events.find((e) => e.type === "tool_result")).toMatchObject({ name: "ask_human", ok: true });
    expect(answer).toContain("No human is available to answer; decide yourself, state your assumption");
  });

  it("an empty answer is a decline, and undefined means no one is there", async () => {
    expect((await run({ askHuman: async () => ({ answer: "  " }) }, [{ question: "Q?" }])).answer).toContain(
      "The user declined to answer; decide yourself",
    );
    expect((await run({ askHuman: async () => undefined }, [{ question: "Q?" }])).answer).toContain(
      "No human is available to answer",
    );
  });

  it("asks two questions of one step one at a time, in order", async () => {
    let open = 0;
    let most = 0;
    const order: string[] = [];
    const { result } = await run(
      {
        askHuman: async (question) => {
          open++;
          most = Math.max(most, open);
          await new Promise((resolve) => setTimeout(resolve, 20));
          order.push(question.question);
          open--;
          return { answer: `answer to ${question.question}` };
        },
      },
      [{ question: "First?" }, { question: "Second?" }],
    );
    expect(result.status).toBe("completed");
    expect(most).toBe(1);
    expect(order).toEqual(["First?", "Second?"]);
  });

  it("masks a secret the user types, like any tool output", async () => {
    const value = "correct-horse-battery-staple-42";
    const { answer } = await run(
      {
        secrets: SecretVault.fromDocument({ "workspace:*": { db_password: value } }, { env: {} }),
        askHuman: async () => ({ answer: `the password is ${value}` }),
      },
      [{ question: "What is the database password?" }],
    );
    expect(answer).toContain("the password is <secret>db_password</secret>");
    expect(JSON.stringify(server.requests.map((r) => r.body))).not.toContain(value);
  });
});
