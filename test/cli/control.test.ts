// End to end: how a run stops (iteration limit, circuit breaker, Ctrl-C) and how the CLI
// answers usage and configuration errors, with the documented exit statuses.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli, type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, type FakeReply, startFakeModelServer } from "../support/fake-model-server.js";

const VERSION = (
  JSON.parse(readFileSync(resolve(import.meta.dirname, "../../package.json"), "utf8")) as { version: string }
).version;

describe("how a run stops", () => {
  let server: FakeModelServer;
  let ws: TempDir;
  beforeEach(async () => {
    server = await startFakeModelServer();
    ws = tempDir();
  });
  afterEach(async () => {
    await server.close();
    ws.remove();
  });

  const run = (args: string[], extra: Parameters<typeof runCli>[1] = {}) =>
    runCli(
      ["run", "--json", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, ...args],
      {
        cwd: ws.path,
        env: cleanEnv({ RESON_HOME: ws.home }),
        ...extra,
      },
    );

  it("--max-iterations stops a model that never answers, with exit 1 and max_iterations", async () => {
    const listing: FakeReply = { toolCalls: [{ name: "list_files", arguments: { path: "." } }] };
    server.enqueue(listing, listing, listing, listing);
    const result = await run(["--max-iterations", "2", "loop forever"]);
    expect(result.code).toBe(1);
    const end = parseEvents(result.stdout).at(-1)!;
    expect(end).toMatchObject({
      type: "run_end",
      status: "failed",
      steps: 2,
      error: { code: "max_iterations" },
    });
    expect(server.requests).toHaveLength(2);
  });

  it("the circuit breaker stops after 3 consecutive steps whose tool calls all failed", async () => {
    const bad: FakeReply = { toolCalls: [{ name: "read_file", arguments: { path: "missing.txt" } }] };
    server.enqueue(bad, bad, bad, bad, bad);
    const result = await run(["read the missing file"]);
    expect(result.code).toBe(1);
    const events = parseEvents(result.stdout);
    expect(events.at(-1)).toMatchObject({ status: "failed", steps: 3, error: { code: "circuit_open" } });
    expect((events.at(-1)!.error as { message: string }).message).toContain("file_not_found");
  });

  it("a failed tool call goes back to the model as a structured error it can correct", async () => {
    server.enqueue(
      { toolCalls: [{ name: "read_file", arguments: { offset: 2 } }] },
      { toolCalls: [{ name: "no_such_tool", arguments: {} }] },
      { text: "fixed" },
    );
    const result = await run(["try things"]);
    expect(result.code).toBe(0);
    const results = parseEvents(result.stdout).filter((e) => e.type === "tool_result");
    expect(results.map((r) => (r.error as { code: string }).code)).toEqual([
      "tool_invalid_arguments",
      "tool_not_found",
    ]);
    const secondRequest = JSON.stringify(server.requests[1]!.body);
    expect(secondRequest).toContain("tool_invalid_arguments");
    const thirdRequest = JSON.stringify(server.requests[2]!.body);
    expect(thirdRequest).toContain("read_file");
  });

  it("Ctrl-C cancels the step in flight: run_end aborted, exit 130", async () => {
    server.enqueue({
      text: "a long answer that keeps coming word by word and never seems to end",
      chunkDelayMs: 500,
    });
    let sent = false;
    const result = await run(["talk"], {
      onStdout: (chunk, child) => {
        if (!sent && chunk.includes('"text_delta"')) {
          sent = true;
          child.kill("SIGINT");
        }
      },
    });
    expect(sent).toBe(true);
    expect(result.code).toBe(130);
    const end = parseEvents(result.stdout).at(-1)!;
    expect(end).toMatchObject({ type: "run_end", status: "aborted", error: { code: "aborted" } });
    expect(result.stderr).toContain("cancelling");
  });

  it("a second Ctrl-C exits at once with 130 even while a tool ignores the first", async () => {
    server.enqueue({
      toolCalls: [{ name: "execute_command", arguments: { command: "trap '' TERM INT; sleep 30" } }],
    });
    let signals = 0;
    const result = await run(["--allow", "execute_command", "wait"], {
      onStdout: (chunk, child) => {
        if (signals === 0 && chunk.includes('"tool_call"')) {
          signals++;
          setTimeout(() => child.kill("SIGINT"), 100);
          setTimeout(() => child.kill("SIGINT"), 300);
        }
      },
    });
    expect(result.code).toBe(130);
  });
});

describe("usage and configuration errors", () => {
  let ws: TempDir;
  beforeEach(() => {
    ws = tempDir();
  });
  afterEach(() => ws.remove());

  it("--version prints the package version", async () => {
    const result = await runCli(["--version"]);
    expect(result).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  });

  it("--help prints usage with the run options", async () => {
    const result = await runCli(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("reson run [options] <task...>");
    expect(result.stdout).toContain("--max-iterations");
  });

  it("an unknown command or flag exits 2 and says what exists", async () => {
    expect(await runCli(["fly"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Commands: run, resume"),
    });
    const flag = await runCli(["run", "--wings", "x"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("--wings");
  });

  it("run without a task exits 2", async () => {
    const result = await runCli(["run"], { cwd: ws.path, env: cleanEnv({ RESON_HOME: ws.home }) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("No task given");
  });

  it("with no key and no local model, exits 2 and says exactly what to set", async () => {
    const result = await runCli(["run", "hello"], { cwd: ws.path, env: cleanEnv({ RESON_HOME: ws.home }) });
    expect(result.code).toBe(2);
    for (const name of [
      "ANTHROPIC_API_KEY",
      "OPENAI_API_KEY",
      "GEMINI_API_KEY",
      "DEEPSEEK_API_KEY",
      "OPENROUTER_API_KEY",
    ]) {
      expect(result.stderr).toContain(name);
    }
    expect(result.stdout).toBe("");
  });

  it("an invalid config file exits 2 naming the file and the field", async () => {
    const { mkdirSync, writeFileSync } = await import("node:fs");
    mkdirSync(resolve(ws.path, ".reson"));
    writeFileSync(resolve(ws.path, ".reson/config.json"), JSON.stringify({ maxIterations: "many" }));
    const result = await runCli(["run", "--provider", "ollama", "hello"], {
      cwd: ws.path,
      env: cleanEnv({ RESON_HOME: ws.home }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(".reson/config.json");
    expect(result.stderr).toContain("maxIterations");
  });

  it("a missing workspace exits 2", async () => {
    const result = await runCli(["run", "-w", resolve(ws.path, "nope"), "--provider", "ollama", "hello"], {
      env: cleanEnv({ RESON_HOME: ws.home }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("nope");
  });
});
