// README "Run a task" and its sections (sessions, ask_human, choosing the model): each block run
// as written in a user's shell against the fake model server.
//
// Harness variables (the only difference from the user's shell the blocks do not show): for a
// block that exports ANTHROPIC_API_KEY, RESON_BASE_URL is the fake server's Anthropic API; for
// one that names no provider, RESON_PROVIDER=openai-compatible, RESON_BASE_URL and RESON_MODEL
// point at it; and as in every CLI test (test/support/cli.ts cleanEnv) no key or RESON_
// variable of the developer, NO_COLOR=1, OLLAMA_HOST=127.0.0.1:9 (no local Ollama),
// RESON_MEMORY_REFLECT=off and RESON_MEMORY_HOLDOUT=0.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Compile } from "typebox/compile";
import { describe, expect } from "vitest";
import { ResonEventSchema } from "../../src/core/events.js";
import { parseEvents } from "../support/cli.js";
import { skipWithout } from "../support/requirements.js";
import type { ReadmeBlock } from "./readme-blocks.js";
import { anthropicAt, localModel } from "./readme-user.js";
import { reson, scenario, useModel, useShell, useUser } from "./scenario.js";

describe("README: Run a task", () => {
  scenario("cd your-project", async (block) => {
    const model = await useModel({
      replies: [
        { toolCalls: [{ name: "read_file", arguments: { path: "src/parse.ts" } }] },
        {
          toolCalls: [
            {
              name: "write_file",
              arguments: {
                path: "src/parse.test.ts",
                content:
                  'import { parse } from "./parse";\ntest("parses", () => expect(parse("1")).toBe(1));\n',
              },
            },
          ],
        },
        { text: "Added src/parse.test.ts with a test for parse." },
      ],
    });
    const user = useUser(anthropicAt(model));
    const project = join(user.work, "your-project");
    mkdirSync(join(project, "src"), { recursive: true });
    writeFileSync(join(project, "src/parse.ts"), "export const parse = (s: string) => Number(s);\n");

    const shell = useShell(block, user);
    await shell.run("cd your-project");
    await shell.run("export ANTHROPIC_API_KEY=");
    const run = await shell.run('reson run "add a test for the parser in src/parse.ts"');
    shell.end();

    expect(run.stdout).toContain("Added src/parse.test.ts with a test for parse.");
    expect(readFileSync(join(project, "src/parse.test.ts"), "utf8")).toContain('parse("1")');
    const stderr = run.stderr.trim().split("\n");
    expect(stderr.filter((line) => /read_file|write_file/.test(line))).toHaveLength(2);
    expect(stderr.at(-1)).toMatch(/3 steps.*tokens.*\$/);
    // The key the block exported went to Anthropic's API, as Anthropic's header.
    expect(model.requests[0]).toMatchObject({ protocol: "anthropic", headers: { "x-api-key": "..." } });
  });
});

describe.skipIf(await skipWithout("jq", "README: --json"))("README: --json", () => {
  scenario(`reson run --json "list the TODOs in src" | jq -c 'select(.type=="run_end")'`, async (block) => {
    const model = await useModel({
      replies: [
        { toolCalls: [{ name: "grep", arguments: { pattern: "TODO", path: "src" } }] },
        { text: "One TODO: src/a.ts:1 handle errors." },
      ],
    });
    const user = useUser(localModel(model));
    mkdirSync(join(user.work, "src"));
    writeFileSync(join(user.work, "src/a.ts"), "// TODO handle errors\n");
    const shell = useShell(block, user);
    const piped = await shell.run("reson run --json");
    shell.end();
    const lines = piped.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      type: "run_end",
      status: "completed",
      finalText: "One TODO: src/a.ts:1 handle errors.",
      steps: 2,
      usage: expect.objectContaining({ costUsd: expect.any(Number) }),
    });
  });
});

describe("README: Sessions, resume and traces", () => {
  scenario("reson sessions", async (block) => {
    const model = await useModel({
      replies: [
        { fault: "http", status: 401, message: "invalid x-api-key" },
        {
          toolCalls: [
            { name: "write_file", arguments: { path: "CHANGELOG.md", content: "## 0.2\n- parser\n" } },
          ],
        },
        { text: "Added the changelog entry." },
        { text: "Documented the parser in README.md." },
      ],
    });
    const user = useUser(localModel(model));
    const shell = useShell(block, user);
    // Earlier, a run stopped: the provider refused the key.
    const stopped = await shell.probe('reson run "add a changelog entry"', { code: 1 });
    expect(stopped.stderr).toContain("continue it with: reson resume");

    const sessions = await shell.run("reson sessions");
    const [, sessionId] = /^(\w{26})\s+failed\s.*add a changelog entry$/m.exec(sessions.stdout) ?? [];
    expect(sessionId, sessions.stdout).toBeDefined();
    shell.replace("01JQ7Z3K", sessionId!);

    const resumed = await shell.run("reson resume 01JQ7Z3K");
    expect(resumed.stdout).toContain("Added the changelog entry.");
    expect(readFileSync(join(user.work, "CHANGELOG.md"), "utf8")).toContain("parser");
    const finished = await shell.run("reson run --continue ");
    expect(finished.stderr).toContain("already completed");
    const next = await shell.run('reson run --continue "now add docs"');
    expect(next.stdout).toContain("Documented the parser in README.md.");
    // The new task saw the session's history: the first task and its answer.
    expect(JSON.stringify(model.requests.at(-1)?.body)).toContain("Added the changelog entry.");

    const trace = await shell.run("reson trace show 01JQ7Z3K");
    expect(trace.stdout).toContain("now add docs");
    await shell.run("reson trace export 01JQ7Z3K --format jsonl --output run.jsonl");
    const exported = readFileSync(join(user.work, "run.jsonl"), "utf8").trim().split("\n");
    expect(exported.length).toBeGreaterThan(1);
    for (const line of exported) JSON.parse(line);
    const gc = await shell.run("reson gc --older-than 30d");
    shell.end();
    expect(gc.stdout + gc.stderr).toContain("Nothing to remove: no run in");
    // Nothing ended 30 days ago: the session is still there.
    expect((await shell.probe("reson sessions")).stdout).toContain(sessionId);
  });
});

describe("README: Questions from the agent: ask_human", () => {
  const ask = {
    id: "call_3",
    name: "ask_human",
    arguments: { question: "Which database?", choices: ["sqlite", "postgres"] },
  };

  scenario(
    '{"type":"human_question","toolCallId":"call_3","question":"Which database?","choices":["sqlite","postgres"],"runId":"01JQ…","step":2,"ts":1767225600000}',
    async (block) => {
      const example = JSON.parse(block.body) as Record<string, unknown>;
      expect(Compile(ResonEventSchema).Check(example), "valid against ResonEventSchema").toBe(true);
      // What a run prints when its model asks that question in step 2 has the same fields.
      const model = await useModel({
        replies: [
          { toolCalls: [{ name: "list_files", arguments: { path: "." } }] },
          { toolCalls: [ask] },
          { text: "ok" },
        ],
      });
      const user = useUser(localModel(model));
      const result = await reson(user, ["run", "--json", "--interactive-stdin", "set up the database"], {
        input: "2\n",
      });
      expect(result.code, result.stderr).toBe(0);
      const event = parseEvents(result.stdout).find((e) => e.type === "human_question");
      expect(Object.keys(event ?? {}).sort()).toEqual(Object.keys(example).sort());
      expect(event).toMatchObject({ ...example, runId: expect.any(String), ts: expect.any(Number) });
    },
  );

  scenario('{"toolCallId": "call_3", "answer": "postgres"}', async (block) => {
    const model = await useModel({ replies: [{ toolCalls: [ask] }, { text: "Using postgres." }] });
    const user = useUser(localModel(model));
    const result = await reson(user, ["run", "--json", "--interactive-stdin", "set up the database"], {
      input: `${block.body}\n`,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(parseEvents(result.stdout).find((e) => e.type === "tool_result")).toMatchObject({
      toolCallId: "call_3",
      ok: true,
      content: expect.stringContaining("postgres"),
    });
    expect(parseEvents(result.stdout).at(-1)).toMatchObject({
      type: "run_end",
      finalText: "Using postgres.",
    });
  });
});

/** The fake model as the OpenAI-compatible server README has at 127.0.0.1:8000, answering `text`. */
async function localServer(block: ReadmeBlock, text: string) {
  const model = await useModel({ replies: [{ text }] });
  const shell = useShell(block, useUser()).replace("127.0.0.1:8000", model.url.replace("http://", ""));
  return { model, shell };
}

describe("README: Choosing the model", () => {
  scenario(
    'reson run --provider openai-compatible --base-url http://127.0.0.1:8000/v1 --model qwen2.5-coder "fix the failing test"',
    async (block) => {
      const { model, shell } = await localServer(block, "The test passes now.");
      const result = await shell.run("reson run --provider openai-compatible");
      shell.end();
      expect(result.stdout).toContain("The test passes now.");
      expect(model.requests[0]).toMatchObject({
        protocol: "openai",
        body: expect.objectContaining({ model: "qwen2.5-coder" }),
      });
    },
  );

  scenario("export RESON_PROVIDER=openai-compatible", async (block) => {
    const { model, shell } = await localServer(block, "No TODOs in src.");
    await shell.run("export RESON_PROVIDER=openai-compatible");
    await shell.run("export RESON_BASE_URL=");
    await shell.run("export RESON_MODEL=qwen2.5-coder");
    await shell.run("export RESON_API_KEY=local-key");
    const result = await shell.run('reson run "list the TODOs in src"');
    shell.end();
    expect(result.stdout).toContain("No TODOs in src.");
    // The key goes to this server only because the block named it RESON_API_KEY.
    expect(model.requests[0]).toMatchObject({
      protocol: "openai",
      headers: expect.objectContaining({ authorization: "Bearer local-key" }),
      body: expect.objectContaining({ model: "qwen2.5-coder" }),
    });
  });
});
