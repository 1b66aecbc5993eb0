// `reson run --preset`: a read-only agent type gets no write tools at all, its commands see the
// workspace read-only (in the OS sandbox), its instructions join the system prompt, and the
// run records which preset it was.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { useCliFixture } from "../support/cli-fixture.js";
import { skipWithout } from "../support/requirements.js";

const noSandbox = await skipWithout("sandbox", "reson run --preset");

function toolNames(body: unknown): string[] {
  return ((body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map(
    (t) => t.function.name,
  );
}

describe("reson run --preset", () => {
  const f = useCliFixture();
  const run = (args: string[]) =>
    runCli(
      ["run", "--json", "--provider", "openai-compatible", "--base-url", f.server.openaiBaseUrl, ...args],
      {
        cwd: f.ws.path,
        env: cleanEnv({ RESON_HOME: f.home.path }),
        timeoutMs: 30_000,
      },
    );

  it.skipIf(noSandbox)("explore: read-only tools only, and commands cannot write the workspace", async () => {
    writeFileSync(join(f.ws.path, "notes.txt"), "hello\n");
    f.server.enqueue(
      {
        toolCalls: [
          { name: "read_file", arguments: { path: "notes.txt" } },
          { name: "execute_command", arguments: { command: "echo changed > notes.txt; touch new.txt" } },
          { name: "write_file", arguments: { path: "x.txt", content: "x" } },
        ],
      },
      { text: "explored" },
    );
    const result = await run(["--preset", "explore", "look around"]);
    expect(result.stderr).not.toContain("reson:");
    expect(result.code).toBe(0);
    const offered = toolNames(f.server.requests[0]!.body);
    expect(offered).toEqual(
      expect.arrayContaining(["read_file", "grep", "glob", "list_files", "execute_command"]),
    );
    for (const name of ["write_file", "edit_file", "web_fetch"]) expect(offered).not.toContain(name);
    expect(JSON.stringify(f.server.requests[0]!.body)).toContain("You are exploring, not changing anything");

    const results = parseEvents(result.stdout).filter((e) => e.type === "tool_result");
    expect(results[0]).toMatchObject({ ok: true });
    expect(results[1]).toMatchObject({ ok: false });
    expect(JSON.stringify(results[1])).toContain("Read-only file system");
    expect(results[2]).toMatchObject({ ok: false, error: { code: "tool_not_found" } });
    expect(existsSync(join(f.ws.path, "new.txt"))).toBe(false);
    expect(existsSync(join(f.ws.path, "x.txt"))).toBe(false);

    const runId = parseEvents(result.stdout)[0]!.runId as string;
    const exported = await runCli(["trace", "export", runId, "--format", "jsonl", "--output", "-"], {
      cwd: f.ws.path,
      env: cleanEnv({ RESON_HOME: f.home.path }),
    });
    expect(exported.stdout).toContain('"preset":"explore"');
  });

  it("takes a project preset from .reson/presets.json, and names the presets for an unknown one", async () => {
    mkdirSync(join(f.ws.path, ".reson"));
    writeFileSync(
      join(f.ws.path, ".reson", "presets.json"),
      JSON.stringify({
        reviewer: { instructions: "Review only; cite line numbers.", tools: ["read_file", "grep"] },
      }),
    );
    f.server.enqueue({ text: "reviewed" });
    const ok = await run(["--preset", "reviewer", "review"]);
    expect(ok.code).toBe(0);
    expect(toolNames(f.server.requests[0]!.body).sort()).toEqual(["grep", "read_file"]);
    expect(JSON.stringify(f.server.requests[0]!.body)).toContain("Review only; cite line numbers.");

    const unknown = await run(["--preset", "nope", "x"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no preset named "nope"');
    expect(unknown.stderr).toContain("reviewer");
  });
});
