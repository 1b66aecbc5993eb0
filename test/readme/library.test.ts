// README "As a library": the example program, written into a project of its own whose
// node_modules/reson is this repository, run by Node as a user runs it (`node main.mts`, Node
// 22's type stripping), with /path/to/project a folder of the test's own.
//
// Harness variables: RESON_BASE_URL points the `openai` provider the example names at the fake
// model server's OpenAI API, beside cleanEnv's (test/support/cli.ts); OPENAI_API_KEY is the
// user's own.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { runWith } from "../support/cli.js";
import { REPO } from "./readme-user.js";
import { scenario, useModel, useUser } from "./scenario.js";

describe("README: As a library", () => {
  scenario('import { createAgent } from "reson";', async (block) => {
    const model = await useModel({
      replies: [
        { toolCalls: [{ name: "read_file", arguments: { path: "README.md" } }] },
        { text: "A tool that counts words." },
      ],
    });
    const user = useUser({ RESON_BASE_URL: model.openaiBaseUrl, OPENAI_API_KEY: "sk-test" });
    const project = join(user.scratch, "project");
    mkdirSync(project);
    writeFileSync(join(project, "README.md"), "# wc\nCounts words.\n");
    const program = join(user.work, "program");
    mkdirSync(join(program, "node_modules"), { recursive: true });
    symlinkSync(REPO, join(program, "node_modules/reson"));
    writeFileSync(join(program, "main.mts"), block.body.replace("/path/to/project", project));

    const result = await runWith(process.execPath, ["main.mts"], {
      cwd: program,
      env: user.env,
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
    // The streamed text, then the status, the final text and the usage.
    expect(result.stdout).toMatch(/^A tool that counts words\.completed A tool that counts words\. \{/);
    expect(result.stdout).toContain("input:");
    expect(model.requests[0]).toMatchObject({
      protocol: "openai",
      body: expect.objectContaining({ model: "gpt-4.1" }),
    });
  });
});
