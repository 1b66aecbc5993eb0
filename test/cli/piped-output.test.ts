// Output into a pipe whose reader is slow arrives whole: the command waits for stdout and stderr
// to drain before it exits (bin/reson.js, the one exit path of every command), so a script's
// `reson … | jq` or `reson trace export … --output - | cat > t.json` never loses the tail.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, cleanEnv, parseEvents, runCli, runWith } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";

/** A shell line that runs reson into a reader that starts reading after `delayS`, into `file`. */
function intoSlowReader(args: string[], file: string, delayS = 2): string {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  // pipefail: the pipeline's status is reson's, not only the reader's.
  return `set -o pipefail; ${quoted} | (sleep ${delayS}; cat > '${file}')`;
}

describe("output into a slow pipe", () => {
  const f = useCliFixture();
  const env = () => cleanEnv({ RESON_HOME: f.home.path, RESON_RETRY_MAX_ATTEMPTS: "1" });

  it("reson run --json into a reader that starts after 2 s delivers every event, run_end included", async () => {
    // ~3,000 text deltas: several times the 64 KiB a pipe holds.
    const words = Array.from({ length: 3000 }, (_, i) => `word${i}`).join(" ");
    f.server.enqueue({ text: words });
    const out = join(f.ws.path, "events.jsonl");
    const result = await runWith(
      "bash",
      ["-c", intoSlowReader(["run", "--json", ...fakeModelArgs(f.server), "say many words"], out)],
      { cwd: f.ws.path, env: env(), timeoutMs: 30_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    const events = parseEvents(readFileSync(out, "utf8"));
    expect(events.filter((e) => e.type === "text_delta")).toHaveLength(3000);
    expect(events.at(-1)).toMatchObject({ type: "run_end", status: "completed" });
  });

  it("reson trace export of a multi-megabyte trace into a slow pipe is whole JSON, and trace show is whole too", async () => {
    // Three steps that write 1 MB each: the tool calls' arguments make the trace ~3 MB.
    const big = (n: number) => `${String(n).repeat(1000)}\n`.repeat(1000);
    f.server.enqueue(
      ...[1, 2, 3].map((n) => ({
        toolCalls: [{ name: "write_file", arguments: { path: `big${n}.txt`, content: big(n) } }],
      })),
      { text: "Wrote three big files." },
    );
    const run = await runCli(["run", "--json", ...fakeModelArgs(f.server), "write three big files"], {
      cwd: f.ws.path,
      // A window that holds the three calls' arguments (the fake model has no known window).
      env: { ...env(), RESON_CONTEXT_WINDOW: "8000000" },
      timeoutMs: 30_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const runId = parseEvents(run.stdout)[0]!.runId as string;

    const out = join(f.ws.path, "trace.json");
    const exported = await runWith(
      "bash",
      ["-c", intoSlowReader(["trace", "export", runId, "--format", "json", "--output", "-"], out)],
      { cwd: f.ws.path, env: env(), timeoutMs: 30_000 },
    );
    expect(exported.code, exported.stderr).toBe(0);
    const text = readFileSync(out, "utf8");
    expect(text.length).toBeGreaterThan(3_000_000);
    const doc = JSON.parse(text) as { trace: { id: string }; steps: Array<{ kind: string }> };
    expect(doc.trace.id).toBe(runId);
    expect(doc.steps.filter((s) => s.kind === "tool_call")).toHaveLength(3);

    const jsonl = join(f.ws.path, "trace.jsonl");
    const lines = await runWith(
      "bash",
      ["-c", intoSlowReader(["trace", "export", runId, "--format", "jsonl", "--output", "-"], jsonl, 1)],
      { cwd: f.ws.path, env: env(), timeoutMs: 30_000 },
    );
    expect(lines.code, lines.stderr).toBe(0);
    const records = readFileSync(jsonl, "utf8").trim().split("\n");
    expect(records.map((l) => (JSON.parse(l) as { record: string }).record).at(-1)).toBe("turn");

    const shown = join(f.ws.path, "trace.txt");
    const show = await runWith("bash", ["-c", intoSlowReader(["trace", "show", runId], shown, 1)], {
      cwd: f.ws.path,
      env: env(),
      timeoutMs: 30_000,
    });
    expect(show.code, show.stderr).toBe(0);
    expect(readFileSync(shown, "utf8")).toMatch(/step 4 · model stop/);
  });

  it("a reader that goes away stops reson as SIGPIPE would, without a stack trace", async () => {
    const words = Array.from({ length: 3000 }, (_, i) => `word${i}`).join(" ");
    f.server.enqueue({ text: words });
    const quoted = [process.execPath, CLI, "run", "--json", ...fakeModelArgs(f.server), "say many words"]
      .map((a) => `'${a}'`)
      .join(" ");
    // head reads one line and exits: reson's next writes fail with EPIPE.
    const result = await runWith(
      "bash",
      ["-c", `${quoted} 2>reson.err | head -n 1; echo "reson: \${PIPESTATUS[0]}"`],
      {
        cwd: f.ws.path,
        env: env(),
        timeoutMs: 30_000,
      },
    );
    const [first, status] = result.stdout.trim().split("\n");
    expect(JSON.parse(first!)).toMatchObject({ type: "run_start" });
    expect(status).toBe("reson: 141");
    expect(readFileSync(join(f.ws.path, "reson.err"), "utf8")).not.toMatch(/EPIPE|at .*\(/);
  });
});

describe("one exit path", () => {
  it("no command ends the process itself, except a second interrupt, which exits at once", async () => {
    const { readdirSync } = await import("node:fs");
    const src = join(import.meta.dirname, "../../src");
    const exits: string[] = [];
    for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
      const path = join(entry.parentPath, entry.name);
      readFileSync(path, "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (/process\.(exit|reallyExit|abort)\(/.test(line) && !line.trim().startsWith("//")) {
            exits.push(`${path.slice(src.length + 1)}:${i + 1}`);
          }
        });
    }
    // Each of these follows "interrupted again" / "again: exiting now" (see the files), or, in
    // crash-log.ts, an error nothing awaited in a service (its state unknown, its one log entry
    // written synchronously first): every other command returns its status to bin/reson.js,
    // which exits once stdout and stderr have drained.
    expect(exits.map((e) => e.replace(/:\d+$/, "")).sort()).toEqual([
      "cli/crash-log.ts",
      "cli/repl.ts",
      "cli/run-command.ts",
      "cli/stop-signal.ts",
    ]);
  });
});
