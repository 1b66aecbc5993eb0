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

/** `reson run --json` in the fixture's workspace, against its fake server. */
function runTask(f: CliFixture, env: NodeJS.ProcessEnv, task: string, extra: string[] = []) {
  return runCli(
    [
      "run",
      "--json",
      "--provider",
      "openai-compatible",
      "--base-url",
      f.server.openaiBaseUrl,
      ...extra,
      task,
    ],
    { cwd: f.ws.path, env, timeoutMs: 60_000 },
  );
}

describe("learning from runs", () => {
  const f: CliFixture = useCliFixture();
  const env = () => cleanEnv({ RESON_HOME: f.home.path, RESON_MEMORY_REFLECT: "auto" });
  const run = (task: string, extra: string[] = []) => runTask(f, env(), task, extra);
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

      // A fourth run that fails with the rule in view (out of steps) counts against it.
      f.server.enqueue({ toolCalls: [{ name: "execute_command", arguments: { command: "make test" } }] });
      const fourth = await run("run the tests once more", ["--max-iterations", "1"]);
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

  it.skipIf(noSandbox)(
    "finds a lesson by its retrieval keys in another language, shows the keys, and holds it out from some runs",
    async () => {
      writeFileSync(join(f.home.path, "config.json"), JSON.stringify({ memory: { minEvidence: 1 } }));
      const holdoutEnv = () =>
        cleanEnv({ RESON_HOME: f.home.path, RESON_MEMORY_REFLECT: "auto", RESON_MEMORY_HOLDOUT: "0.5" });
      f.server.setResponder((request) =>
        isReflection(request)
          ? {
              text: "ADD: WHEN writes to the SQLite file fail under concurrent load THEN set PRAGMA busy_timeout and retry the write. KEYS: database is locked; SQLITE_BUSY; 数据库被锁; concurrent writes",
            }
          : undefined,
      );
      f.server.enqueue(
        { toolCalls: [{ name: "execute_command", arguments: { command: "false" } }] },
        { text: "Fixed: the writer now waits for the lock (busy_timeout)." },
      );
      const taught = await runTask(f, holdoutEnv(), "the importer crashes with 'database is locked'");
      expect(taught.code).toBe(0);
      const [rule] = await experiences();
      expect(rule).toMatchObject({
        status: "active",
        keys: ["database is locked", "SQLITE_BUSY", "数据库被锁", "concurrent writes"],
      });
      const fresh = await cli(["experiences", "show", String(rule!.id)]);
      expect(fresh.stdout).toContain("keys: database is locked; SQLITE_BUSY; 数据库被锁; concurrent writes");
      expect(fresh.stdout).toContain(
        "withheld from 0 matching runs (memory.holdout): no uplift estimate yet",
      );

      // A Chinese task sharing no word with the rule's English finds it through a key; with
      // holdout 0.5 some runs are shown the rule and the others are its control group.
      let shown = 0;
      const runs = 6;
      for (let i = 0; i < runs; i++) {
        f.server.enqueue({ text: "好的" });
        expect((await runTask(f, holdoutEnv(), "导入脚本一直报数据库被锁，怎么处理？")).code).toBe(0);
        const request = f.server.requests.filter((r) => !isReflection(r)).at(-1)!;
        if (systemText(request).includes("set PRAGMA busy_timeout")) shown++;
      }
      const [after] = await experiences();
      expect(after).toMatchObject({
        usageCount: shown,
        successCount: shown,
        holdoutSuccessCount: runs - shown,
        holdoutFailureCount: 0,
      });
      const text = (await cli(["experiences", "show", String(rule!.id)])).stdout;
      expect(text).toContain(`shown in ${shown} runs: ${shown} succeeded, 0 failed`);
      if (runs - shown > 0) {
        expect(text).toContain(
          `withheld from ${runs - shown} matching runs (memory.holdout): success with the rule`,
        );
        expect(text).toMatch(
          /uplift [+−]\d+ points \(90 % interval [+−]\d+ to [+−]\d+\): too few runs to judge/,
        );
      }
      const json = JSON.parse((await cli(["experiences", "show", String(rule!.id), "--json"])).stdout.trim());
      expect(json.uplift).toMatchObject({ shownRuns: shown, withheldRuns: runs - shown, level: 0.9 });
    },
    120_000,
  );

  it.skipIf(noSandbox)(
    "asks for keys in the project's languages and finds a lesson taught in Chinese from an English task and a Chinese one cut apart differently, and not from an unrelated task",
    async () => {
      writeFileSync(join(f.home.path, "config.json"), JSON.stringify({ memory: { minEvidence: 1 } }));
      const plainEnv = () =>
        cleanEnv({ RESON_HOME: f.home.path, RESON_MEMORY_REFLECT: "auto", RESON_MEMORY_HOLDOUT: "0" });
      const asked: string[] = [];
      f.server.setResponder((request) => {
        if (!isReflection(request)) return undefined;
        asked.push(JSON.stringify(request.body));
        return {
          text: "ADD: WHEN 正则表达式在某些输入上执行极慢，导致卡死 THEN 去掉嵌套量词，或先限制输入长度 KEYS: 正则表达式; 卡死; 灾难性回溯; catastrophic backtracking; regex hangs on long input; 输入长一点程序就不动了",
        };
      });
      // An English task first: the project's history now has English in it.
      f.server.enqueue({ text: "Hello." });
      expect((await runTask(f, plainEnv(), "say hello")).code).toBe(0);
      f.server.enqueue(
        { toolCalls: [{ name: "execute_command", arguments: { command: "false" } }] },
        { text: "改好了：去掉了嵌套量词。" },
      );
      expect(
        (await runTask(f, plainEnv(), "用正则表达式校验邮箱时，输入一个很长的字符串页面就卡死了")).code,
      ).toBe(0);
      // The reflection was asked for keys in English and Chinese, and for rewordings.
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain("Languages: English, Chinese");
      expect(asked[0]).toContain("rewordings a future task could use");
      const [rule] = await experiences();
      expect(rule).toMatchObject({ status: "active" });

      const lessonFor = async (task: string) => {
        f.server.enqueue({ text: "ok" });
        expect((await runTask(f, plainEnv(), task)).code).toBe(0);
        return systemText(f.server.requests.filter((r) => !isReflection(r)).at(-1)!).includes("去掉嵌套量词");
      };
      expect(await lessonFor("The email validation regex hangs on a long input string")).toBe(true);
      // 正则 and 卡死 are pieces of the key's words: a task cutting the phrase apart still meets it.
      expect(await lessonFor("这个正则一跑就卡死")).toBe(true);
      expect(await lessonFor("写一首关于秋天的诗")).toBe(false);
      expect(await lessonFor("Write a haiku about autumn leaves")).toBe(false);

      // memory.languages names the languages outright.
      writeFileSync(
        join(f.home.path, "config.json"),
        JSON.stringify({ memory: { minEvidence: 1, languages: ["en", "ja"] } }),
      );
      f.server.enqueue(
        { toolCalls: [{ name: "execute_command", arguments: { command: "false" } }] },
        { text: "Done." },
      );
      expect((await runTask(f, plainEnv(), "the build script fails on a fresh clone")).code).toBe(0);
      expect(asked.at(-1)).toContain("Languages: English, Japanese");
    },
    120_000,
  );

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

describe("learning after a run the provider failed", () => {
  const f: CliFixture = useCliFixture();
  const env = () =>
    cleanEnv({
      RESON_HOME: f.home.path,
      RESON_MEMORY_REFLECT: "auto",
      RESON_RETRY_MAX_ATTEMPTS: "2",
      RESON_RETRY_BASE_DELAY_MS: "20",
      RESON_HEADERS_TIMEOUT_MS: "400",
    });
  const run = (task: string, extra: string[] = []) => runTask(f, env(), task, extra);
  const reflections = () => f.server.requests.filter(isReflection);
  const learningWarnings = (events: ReturnType<typeof parseEvents>) =>
    events.filter((e) => e.type === "warning" && String(e.message).includes("learning from this run failed"));

  it.each<{ name: string; replies: FakeReply[]; code: string; calls: number }>([
    {
      name: "a rejected key (401)",
      replies: [{ fault: "http", status: 401 }],
      code: "provider_auth_failed",
      calls: 1,
    },
    {
      name: "an outage that outlasts the retries",
      replies: [
        { fault: "http", status: 503 },
        { fault: "http", status: 503 },
      ],
      code: "provider_unavailable",
      calls: 2,
    },
    {
      name: "a rate limit asking for too long a wait",
      replies: [{ fault: "http", status: 429, retryAfter: "600" }],
      code: "provider_rate_limited",
      calls: 1,
    },
    {
      name: "a response it cannot read",
      replies: [{ fault: "malformed" }],
      code: "provider_bad_response",
      calls: 1,
    },
    {
      name: "a context overflow",
      replies: [{ fault: "overflow" }],
      code: "provider_context_overflow",
      calls: 1,
    },
    {
      name: "a timeout",
      replies: [{ fault: "hang" }, { fault: "hang" }],
      code: "provider_timeout",
      calls: 2,
    },
  ])(
    "after $name, reson does not call the model again to reflect",
    async ({ replies, code, calls }) => {
      // Anything asked after the run's own calls would be a reflection.
      f.server.setResponder((request) =>
        isReflection(request) ? { text: "ADD: WHEN x THEN y." } : undefined,
      );
      f.server.enqueue(...replies);
      const result = await run("summarise the changelog");
      const events = parseEvents(result.stdout);

      expect(result.code).toBe(1);
      expect(events.at(-1)).toMatchObject({ type: "run_end", status: "failed", error: { code } });
      expect(f.server.requests.filter((r) => r.method === "POST")).toHaveLength(calls);
      expect(reflections()).toEqual([]);
      expect(learningWarnings(events)).toEqual([]);
      // Nothing happened in the run: nothing to remember, no outcome to count.
      expect(events.find((e) => e.type === "learning")).toMatchObject({
        reflected: false,
        remembered: 0,
        outcomeCounted: 0,
      });
    },
    60_000,
  );

  it.skipIf(noSandbox)(
    "a rule in view when the provider fails is not counted against, and the work done is remembered",
    async () => {
      writeFileSync(join(f.home.path, "config.json"), JSON.stringify({ memory: { minEvidence: 1 } }));
      writeFileSync(join(f.ws.path, "Makefile"), "test:\n\t@echo all tests passed\n");
      f.server.setResponder((request) => (isReflection(request) ? { text: RULE } : undefined));
      f.server.enqueue(
        { toolCalls: [{ name: "execute_command", arguments: { command: "npm test" } }] },
        { text: "The tests pass (make test)." },
      );
      expect((await run("run the tests")).code).toBe(0);
      expect(reflections()).toHaveLength(1);

      // The rule is shown to the next run, which works a step and then loses its key.
      f.server.enqueue(
        { toolCalls: [{ name: "execute_command", arguments: { command: "make test" } }] },
        { fault: "http", status: 401 },
      );
      const failed = await run("run the tests again");
      const events = parseEvents(failed.stdout);
      expect(failed.code).toBe(1);
      expect(events.find((e) => e.type === "tool_result")).toMatchObject({ ok: true });
      expect(reflections()).toHaveLength(1);
      expect(learningWarnings(events)).toEqual([]);
      expect(events.find((e) => e.type === "learning")).toMatchObject({
        reflected: false,
        remembered: 1,
        outcomeCounted: 0,
      });
      const rules = (await runCli(["experiences", "list", "--json"], { cwd: f.ws.path, env: env() })).stdout
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(rules).toEqual([
        expect.objectContaining({ status: "active", usageCount: 1, successCount: 0, failureCount: 0 }),
      ]);
    },
    60_000,
  );

  it("a run stopped by the iteration limit still reflects", async () => {
    f.server.setResponder((request) =>
      isReflection(request) ? { text: "ADD: WHEN listing files THEN answer after one listing." } : undefined,
    );
    f.server.enqueue({ toolCalls: [{ name: "list_files", arguments: { path: "." } }] });
    const result = await run("list the files", ["--max-iterations", "1"]);
    const events = parseEvents(result.stdout);
    expect(result.code).toBe(1);
    expect(events.at(-1)).toMatchObject({ status: "failed", error: { code: "max_iterations" } });
    expect(reflections()).toHaveLength(1);
    expect(events.find((e) => e.type === "learning")).toMatchObject({ reflected: true, outcomeCounted: 0 });
  }, 60_000);
});
