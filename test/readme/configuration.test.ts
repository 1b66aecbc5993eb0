// README's configuration files, used the way README says to use them: each JSON block written
// to the file README names, then a run that reads it must accept it and act on it (the model
// the config or preset names is called, the sub-agent arguments start those sub-agents, the
// permission rules allow and deny, the secret reaches the command and never the model).
//
// Harness variables: RESON_BASE_URL points at the fake model server (with RESON_PROVIDER where
// no file names the provider), beside cleanEnv's (test/support/cli.ts). ANTHROPIC_API_KEY and
// DEPLOY_KEY are the user's own variables that the files name.
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect } from "vitest";
import { parseEvents } from "../support/cli.js";
import type { RecordedRequest } from "../support/fake-model-server.js";
import { taskOf } from "../support/reply-by-task.js";
import { skipWithout } from "../support/requirements.js";
import { anthropicAt, localModel } from "./readme-user.js";
import { reson, scenario, useModel, useUser } from "./scenario.js";

type Messages = { messages?: Array<{ role: string; content: unknown }> };
const toolResults = (request: RecordedRequest) =>
  ((request.body as Messages).messages ?? [])
    .filter((m) => m.role === "tool")
    .map((m) => JSON.stringify(m.content));

describe("README: Configuration", () => {
  scenario('"provider": "anthropic",', async (block) => {
    const model = await useModel({ replies: [{ text: "Configured as asked." }] });
    const user = useUser({ RESON_BASE_URL: model.anthropicBaseUrl, ANTHROPIC_API_KEY: "sk-ant-test" });
    mkdirSync(join(user.home, ".reson"));
    writeFileSync(join(user.home, ".reson/config.json"), block.body);
    const result = await reson(user, ["run", "--json", "say hello"]);
    expect(result.code, result.stderr).toBe(0);
    expect(parseEvents(result.stdout)[0]).toMatchObject({
      type: "run_start",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      maxIterations: 50,
    });
    expect(model.requests[0]).toMatchObject({
      protocol: "anthropic",
      body: expect.objectContaining({ model: "claude-sonnet-4-5" }),
    });
  });
});

// The reviewer preset runs commands, which a headless run does only in the OS sandbox.
describe.skipIf(await skipWithout("sandbox", "README: Presets"))("README: Presets", () => {
  scenario('"reviewer": {', async (block) => {
    const model = await useModel({ replies: [{ text: "src/a.ts:1 looks fine." }] });
    const user = useUser({ ...anthropicAt(model), ANTHROPIC_API_KEY: "sk-ant-test" });
    mkdirSync(join(user.home, ".reson"));
    writeFileSync(join(user.home, ".reson/presets.json"), block.body);
    const result = await reson(user, ["run", "--json", "--preset", "reviewer", "review the last change"]);
    expect(result.code, result.stderr).toBe(0);
    expect(parseEvents(result.stdout)[0]).toMatchObject({
      type: "run_start",
      model: "claude-haiku-4-5",
      maxIterations: 30,
    });
    const body = model.requests[0]?.body as {
      model: string;
      system: unknown;
      tools: Array<{ name: string }>;
    };
    expect(body.model).toBe("claude-haiku-4-5");
    expect(JSON.stringify(body.system)).toContain("Review the diff; cite file and line for every finding.");
    const tools = body.tools.map((tool) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(["read_file", "grep", "glob", "execute_command"]));
    expect(tools).not.toContain("write_file");
    expect(tools).not.toContain("edit_file");
  });
});

describe("README: Sub-agents and budgets", () => {
  scenario(
    '{ "mode": "explore", "branches": ["Where are retries configured?", "Which callers ignore the retry result?"],',
    async (block) => {
      const args = JSON.parse(block.body) as { branches: string[]; max_tokens: number };
      const model = await useModel({
        respond: (request) => {
          const task = taskOf(request);
          if (task.includes(args.branches[0]!)) return { text: "In src/retry.ts, per provider." };
          if (task.includes(args.branches[1]!)) return { text: "None of them." };
          if (toolResults(request).length > 0) return { text: "Both answered." };
          return { toolCalls: [{ id: "call_sub", name: "subagent", arguments: args }] };
        },
      });
      const user = useUser(localModel(model));
      const result = await reson(user, ["run", "--json", "make retries configurable per provider"]);
      expect(result.code, result.stderr).toBe(0);
      const events = parseEvents(result.stdout);
      expect(events.find((e) => e.type === "tool_call")).toMatchObject({ name: "subagent", arguments: args });
      const started = events.filter((e) => e.type === "sub_trace_started");
      expect(started.map((e) => e.task)).toEqual(
        args.branches.map((branch) => expect.stringContaining(branch)),
      );
      for (const event of started)
        expect(event).toMatchObject({
          mode: "explore",
          preset: "explore",
          limits: expect.objectContaining({ maxTokens: args.max_tokens }),
        });
      expect(events.filter((e) => e.type === "sub_trace_completed").map((e) => e.status)).toEqual([
        "completed",
        "completed",
      ]);
      const answer = events.find((e) => e.type === "tool_result" && e.name === "subagent");
      expect(answer?.content).toContain("In src/retry.ts, per provider.");
      expect(answer?.content).toContain("None of them.");
      // The branches' sub-agents were told the background.
      expect(
        model.requests.some((r) =>
          JSON.stringify(r.body).includes("We are making retries configurable per provider."),
        ),
      ).toBe(true);
    },
  );
});

describe("README: Permissions", () => {
  scenario(
    '{ "permissions": { "allow": ["Bash(npm test:*)", "Bash(git diff:*)"], "deny": ["Read(.env)"], "defaultMode": "acceptEdits" } }',
    async (block) => {
      const model = await useModel({
        replies: [
          { toolCalls: [{ name: "execute_command", arguments: { command: "npm test" } }] },
          { toolCalls: [{ name: "read_file", arguments: { path: ".env" } }] },
          { toolCalls: [{ name: "execute_command", arguments: { command: "touch made-by-agent" } }] },
          { text: "Tests pass." },
        ],
      });
      const user = useUser(localModel(model));
      writeFileSync(
        join(user.work, "package.json"),
        JSON.stringify({ scripts: { test: "echo all tests passed" } }),
      );
      writeFileSync(join(user.work, ".env"), "DATABASE_PASSWORD=hunter2\n");
      mkdirSync(join(user.work, ".reson"));
      writeFileSync(join(user.work, ".reson/settings.json"), block.body);
      // A workspace's file grants what you approved once on this machine.
      const approved = await reson(user, ["permissions", "approve", "--yes"]);
      expect(approved.code, approved.stderr).toBe(0);
      // Without the OS sandbox, commands other than read-only ones need a rule.
      const result = await reson(user, ["run", "--json", "--sandbox", "off", "run the tests"]);
      expect(result.code, result.stderr).toBe(0);
      const results = parseEvents(result.stdout).filter((e) => e.type === "tool_result");
      expect(results[0]).toMatchObject({
        name: "execute_command",
        ok: true,
        content: expect.stringContaining("all tests passed"),
      });
      expect(results[1]).toMatchObject({ name: "read_file", ok: false });
      expect(JSON.stringify(results[1])).toContain("Read(.env)");
      expect(JSON.stringify(results[1])).not.toContain("hunter2");
      expect(results[2]).toMatchObject({ name: "execute_command", ok: false });
      expect(JSON.stringify(model.requests)).not.toContain("hunter2");
    },
  );
});

describe.skipIf(await skipWithout("sandbox", "README: Containment: sandbox and secrets"))(
  "README: Containment: sandbox and secrets",
  () => {
    scenario('"workspace:/home/me/projects/*": { "deploy_key": { "env": "DEPLOY_KEY" } },', async (block) => {
      const value = "deploy-3f9a1c7e5b";
      const model = await useModel({
        replies: [
          {
            toolCalls: [
              {
                name: "execute_command",
                arguments: {
                  command:
                    'printf %s "<secret>deploy_key</secret>" | sha256sum; echo "<secret>deploy_key</secret>"',
                },
              },
            ],
          },
          { text: "Deployed." },
        ],
      });
      const user = useUser({ ...localModel(model), DEPLOY_KEY: value });
      const projects = dirname(user.work);
      mkdirSync(join(user.home, ".reson"));
      const secrets = join(user.home, ".reson/secrets.json");
      // Placeholders: the example's folder is the test's own (the folder the work folder is in),
      // and the token's `ghp_…` a token of the shape GitHub's have.
      writeFileSync(
        secrets,
        block.body.replace("/home/me/projects", projects).replace("ghp_…", `ghp_${"x".repeat(36)}`),
      );
      chmodSync(secrets, 0o600);
      const doctor = await reson(user, ["doctor", "--json"]);
      expect(JSON.parse(doctor.stdout).checks).toContainEqual({
        area: "secrets",
        state: "ok",
        detail: expect.stringContaining("3 secrets"),
      });
      const result = await reson(user, ["run", "--json", "deploy"]);
      expect(result.code, result.stderr).toBe(0);
      const output = parseEvents(result.stdout).find((e) => e.type === "tool_result");
      const hash = createHash("sha256").update(value).digest("hex");
      expect(output?.content).toContain(hash);
      expect(output?.content).toContain("<secret>deploy_key</secret>");
      expect(result.stdout + result.stderr + JSON.stringify(model.requests)).not.toContain(value);
    });
  },
);
