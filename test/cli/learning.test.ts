// End to end, learning from runs: a task fails in a way reflection captures (npm test does not
// exist here; make test does), the rule is backed by a second run and becomes active, a third
// similar task gets it in its context and succeeds, and the rule's statistics follow the
// outcome. Also: memory across sessions, and forgetting.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { type CliFixture, useCliFixture } from "../support/cli-fixture.js";
import type { FakeReply, RecordedRequest } from "../support/fake-model-server.js";
import { skipWithout } from "../support/requirements.js";

const noSandbox = await skipWithout("sandbox", "learning from runs");

const RULE = "ADD: WHEN running the tests THEN use `make test`; there is no npm test script in this project.";

function isReflection(request: RecordedRequest): boolean {
  return JSON.stringify(request.body).includes("keep a short list of reusable rules");
}

function systemText(request: RecordedRequest): string {
  const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
  return String(messages.find((message) => message.role === "system")?.content ?? "");
}

describe("learning from runs", () => {
  const f: CliFixture = useCliFixture();
  const env = () => cleanEnv({ RESON_HOME: f.home.path, RESON_MEMORY_REFLECT: "auto" });
  const run = (task: string) =>
    runCli(["run", "--json", "--provider", "openai-compatible", "--base-url", f.server.openaiBaseUrl, task], {
      cwd: f.ws.path,
      env: env(),
      timeoutMs: 60_000,
    });
  const cli = (args: string[]) => runCli(args, { cwd: f.ws.path, env: env() });
  const experiences = async () =>
    (await cli(["experiences", "list", "--json"])).stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  const failingThenFixed: FakeReply[] = [
    { toolCalls: [{ name: "execute_command", arguments: { command: "npm test" } }] },
    { toolCalls: [{ name: "execute_command", arguments: { command: "make test" } }] },
    { text: "The tests pass (make test)." },
  ];

  it.skipIf(noSandbox)(
    "turns a failure into a rule, uses it once backed, and counts its outcome",
    async () => {
      writeFileSync(join(f.ws.path, "Makefile"), "test:\n\t@echo all tests passed\n");
      let reflections = 0;
      // Reflection requests are answered by content; everything else follows the script.
      f.server.setResponder((request) => {
        if (!isReflection(request)) return undefined;
        reflections += 1;
        return {
          text:
            reflections === 1
              ? RULE
              : "AGREE 1: use `make test`; there is no npm test script in this project.",
        };
      });

      f.server.enqueue(...failingThenFixed);
      const first = await run("run the tests");
      expect(first.code).toBe(0);
      const learnt = parseEvents(first.stdout).find((event) => event.type === "learning");
      expect(learnt).toMatchObject({ reflected: true, remembered: 2 });
      expect((learnt!.added as string[]).length).toBe(1);
      expect(parseEvents(first.stdout).at(-1)!.type).toBe("run_end");
      let rules = await experiences();
      expect(rules).toEqual([
        expect.objectContaining({ status: "candidate", condition: "running the tests", usageCount: 0 }),
      ]);

      // A candidate is not shown: one run is not enough evidence. A second run backs it.
      f.server.enqueue(...failingThenFixed);
      const second = await run("please run the tests again");
      expect(second.code).toBe(0);
      const secondRequest = f.server.requests.filter((r) => !isReflection(r)).at(-3)!;
      expect(systemText(secondRequest)).not.toContain("make test");
      expect(parseEvents(second.stdout).find((e) => e.type === "learning")).toMatchObject({
        agreed: [rules[0]!.id],
        promoted: [rules[0]!.id],
      });
      rules = await experiences();
      expect(rules[0]).toMatchObject({ status: "active" });

      // The third similar task sees the rule before its first step, and succeeds with it.
      f.server.enqueue(
        { toolCalls: [{ name: "execute_command", arguments: { command: "make test" } }] },
        { text: "All tests passed." },
      );
      const third = await run("run the tests for me");
      expect(third.code).toBe(0);
      const thirdFirst = f.server.requests.filter((r) => !isReflection(r)).at(-2)!;
      const system = systemText(thirdFirst);
      expect(system).toContain("Lessons from earlier runs in this project");
      expect(system).toContain("When running the tests: use `make test`");
      rules = await experiences();
      expect(rules[0]).toMatchObject({ usageCount: 1, successCount: 1, failureCount: 0 });
      expect(reflections).toBe(2); // the third run went smoothly: nothing to reflect on

      // A fourth run that fails with the rule in view counts against it.
      f.server.enqueue({ fault: "http", status: 400, message: "bad request" });
      const fourth = await run("run the tests once more");
      expect(fourth.code).toBe(1);
      rules = await experiences();
      expect(rules[0]).toMatchObject({ usageCount: 2, successCount: 1, failureCount: 1 });

      const shown = await cli(["experiences", "show", String(rules[0]!.id).slice(0, 12)]);
      expect(shown.stdout).toContain("rule: use `make test`");
      expect(shown.stdout).toContain("shown in 2 runs: 1 succeeded, 1 failed");
      const retired = await cli(["experiences", "retire", String(rules[0]!.id)]);
      expect(retired.code).toBe(0);
      expect((await experiences())[0]).toMatchObject({ status: "retired" });
    },
    120_000,
  );

  it("with an embedding model, embeds what it remembers and recalls by similarity", async () => {
    const embedEnv = () =>
      cleanEnv({
        RESON_HOME: f.home.path,
        RESON_MEMORY_REFLECT: "always",
        RESON_EMBEDDINGS_PROVIDER: "openai-compatible",
        RESON_EMBEDDINGS_BASE_URL: f.server.openaiBaseUrl,
        RESON_EMBEDDINGS_MODEL: "fake-embed",
      });
    const embedRun = (task: string) =>
      runCli(
        ["run", "--json", "--provider", "openai-compatible", "--base-url", f.server.openaiBaseUrl, task],
        {
          cwd: f.ws.path,
          env: embedEnv(),
          timeoutMs: 60_000,
        },
      );
    f.server.setResponder((request) =>
      isReflection(request)
        ? { text: "ADD: WHEN deploying to staging THEN connect the VPN before running the script." }
        : undefined,
    );
    f.server.enqueue({ text: "The staging deploy script is scripts/deploy-staging.sh." });
    expect((await embedRun("where is the staging deploy script?")).code).toBe(0);
    const embedded = f.server.requests.filter((r) => r.protocol === "openai-embeddings");
    // The task and the answer were embedded, by the model configured (rules are embedded when
    // recall first compares them with a task).
    const inputs = embedded.flatMap((r) => (r.body as { input: string[]; model: string }).input);
    expect(embedded.every((r) => (r.body as { model: string }).model === "fake-embed")).toBe(true);
    expect(inputs).toEqual(
      expect.arrayContaining([
        "where is the staging deploy script?",
        "The staging deploy script is scripts/deploy-staging.sh.",
      ]),
    );

    f.server.enqueue({ text: "ok" });
    expect((await embedRun("how do I run the staging deploy?")).code).toBe(0);
    const chat = f.server.requests.filter((r) => r.protocol === "openai" && !isReflection(r)).at(-1)!;
    expect(systemText(chat)).toContain("scripts/deploy-staging.sh");
    // The second task was embedded as a query: recall used the vectors too.
    const later = f.server.requests.filter((r) => r.protocol === "openai-embeddings").slice(embedded.length);
    expect(later.flatMap((r) => (r.body as { input: string[] }).input)).toContain(
      "how do I run the staging deploy?",
    );
  }, 60_000);

  it("remembers earlier sessions, and forgets on request", async () => {
    f.server.enqueue({ text: "The deploy script is scripts/deploy-staging.sh; it needs the VPN." });
    const first = await run("where is the staging deploy script?");
    expect(first.code).toBe(0);
    f.server.enqueue({ text: "ok" });
    await run("how do I run the staging deploy script?");
    const request = f.server.requests.at(-1)!;
    expect(systemText(request)).toContain("From earlier sessions in this project");
    expect(systemText(request)).toContain("scripts/deploy-staging.sh");

    const list = await cli(["memory", "list", "--json"]);
    const items = list.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: string; text: string });
    expect(items.length).toBe(4);
    const search = await cli(["memory", "search", "staging", "deploy"]);
    expect(search.stdout).toContain("deploy-staging.sh");
    const forgotten = await cli(["memory", "forget", ...items.map((item) => item.id)]);
    expect(forgotten.stdout).toContain("Forgot 4 memories");
    f.server.enqueue({ text: "ok" });
    await run("how do I run the staging deploy script?");
    expect(systemText(f.server.requests.at(-1)!)).not.toContain("deploy-staging.sh");
  }, 60_000);
});
