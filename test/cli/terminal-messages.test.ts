// End to end: what the command line tells a user beyond the answer. A failed command's line
// shows the last lines of its output; a mistyped command, subcommand, flag or slash command
// gets "did you mean"; `reson --continue` and `/resume` show where the conversation stands.
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import { startRepl } from "../support/repl-session.js";

describe("a failed tool call in the human output", () => {
  const f = useCliFixture();

  it("shows the last lines of a failed command's output under its line, not only the exit code", async () => {
    const command = "for i in 1 2 3 4 5 6 7; do echo out-line-$i; done; echo why-it-failed >&2; exit 3";
    f.server.enqueue(
      { toolCalls: [{ name: "execute_command", arguments: { command } }] },
      { text: "It failed." },
    );
    const result = await runCli(
      ["run", ...fakeModelArgs(f.server), "--sandbox", "off", "--allow", "execute_command", "run it"],
      { cwd: f.ws.path, env: cleanEnv({ RESON_HOME: f.home.path }) },
    );
    expect(result.code).toBe(0);
    const lines = result.stderr.split("\n");
    const at = lines.findIndex((line) => line.includes("✗ execute_command"));
    expect(lines[at]).toContain("command_failed: The command exited with code 3.");
    expect(lines.slice(at + 1, at + 6).map((line) => line.trim())).toEqual([
      "out-line-5",
      "out-line-6",
      "out-line-7",
      "why-it-failed",
      "[exit code 3]",
    ]);
    expect(result.stderr).not.toContain("out-line-4");
  });
});

describe("did you mean", () => {
  const f = useCliFixture();
  const cli = (args: string[]) =>
    runCli(args, { cwd: f.ws.path, env: cleanEnv({ RESON_HOME: f.home.path }) });

  it("names the nearest command, subcommand and flag, and exits 2", async () => {
    const command = await cli(["sesions"]);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('reson: unknown command "sesions". Did you mean `reson sessions`?');

    const flag = await cli(["run", "--workspce", f.ws.path, "task"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("reson: Unknown option --workspce. Did you mean `--workspace`?");

    const terminalFlag = await cli(["--contiue"]);
    expect(terminalFlag.code).toBe(2);
    expect(terminalFlag.stderr).toContain("Did you mean `--continue`?");

    const subcommand = await cli(["trace", "shwo", "01ABC"]);
    expect(subcommand.code).toBe(2);
    expect(subcommand.stderr).toContain("Did you mean `show`?");

    const storeFlag = await cli(["sessions", "--jsno"]);
    expect(storeFlag.code).toBe(2);
    expect(storeFlag.stderr).toContain("Did you mean `--json`?");

    const mcp = await cli(["mcp", "lst"]);
    expect(mcp.code).toBe(2);
    expect(mcp.stderr).toContain("Did you mean `list`?");

    // Nothing near: no guess.
    const far = await cli(["frobnicate"]);
    expect(far.code).toBe(2);
    expect(far.stderr).not.toContain("Did you mean");
  });

  it("a mistyped slash command in the terminal gets the nearest one", async () => {
    const repl = startRepl(fakeModelArgs(f.server), f.ws.path, cleanEnv({ RESON_HOME: f.home.path }));
    try {
      await repl.waitFor("/help for commands");
      repl.send("/sesions");
      await repl.waitFor("Unknown command /sesions. Did you mean `/sessions`?");
      repl.send("/exit");
      expect(await repl.exited).toBe(0);
    } finally {
      repl.child.kill("SIGKILL");
    }
  });
});

describe("continuing a session in the terminal", () => {
  const f = useCliFixture();
  const env = () => cleanEnv({ RESON_HOME: f.home.path });

  async function twoTasks(): Promise<string> {
    f.server.enqueue({ text: "First answer about the parser." });
    const first = await runCli(["run", "--json", ...fakeModelArgs(f.server), "explain the parser"], {
      cwd: f.ws.path,
      env: env(),
    });
    expect(first.code).toBe(0);
    f.server.enqueue(
      { toolCalls: [{ name: "list_files", arguments: { path: "." } }] },
      { text: "Second answer:\nline two of it\nline three of it" },
    );
    const second = await runCli(["run", "--continue", ...fakeModelArgs(f.server), "now list the files"], {
      cwd: f.ws.path,
      env: env(),
    });
    expect(second.code).toBe(0);
    return parseEvents(first.stdout)[0]!.sessionId as string;
  }

  it("reson --continue shows the last tasks and answers of the session before the prompt", async () => {
    const sessionId = await twoTasks();
    const repl = startRepl(["--continue", ...fakeModelArgs(f.server)], f.ws.path, env());
    try {
      const at = await repl.waitFor(`continuing session ${sessionId}`);
      await repl.waitFor("reson>", at);
      const shown = repl.output.slice(at);
      expect(shown).toContain("── earlier in this session (2 tasks) ──");
      expect(shown).toContain("you: explain the parser\nreson: First answer about the parser.");
      expect(shown).toContain(
        "you: now list the files\nreson: Second answer:\n       line two of it\n       line three of it (1 tool call)",
      );
      repl.send("/exit");
      expect(await repl.exited).toBe(0);
    } finally {
      repl.child.kill("SIGKILL");
    }
  });

  it("/resume shows the session's last exchanges before it goes on", async () => {
    const sessionId = await twoTasks();
    const repl = startRepl(fakeModelArgs(f.server), f.ws.path, env());
    try {
      await repl.waitFor("new session");
      repl.send(`/resume ${sessionId}`);
      const at = await repl.waitFor("── earlier in this session (2 tasks) ──");
      await repl.waitFor("already completed", at);
      expect(repl.output.slice(at)).toContain("you: explain the parser");
      repl.send("/exit");
      expect(await repl.exited).toBe(0);
    } finally {
      repl.child.kill("SIGKILL");
    }
  });
});
