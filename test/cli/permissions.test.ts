// End to end: the permission gate of headless runs. acceptEdits by default: commands run in
// the OS sandbox; with --sandbox off only when a rule allows them (or they are read-only);
// with no working sandbox never, plan mode offers no write tools, rules
// from settings files with file and line, and the decision behind every call in the trace.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { useCliFixture } from "../support/cli-fixture.js";
import { skipWithout } from "../support/requirements.js";

const noSandbox = await skipWithout("sandbox", "permissions in headless runs");

describe("permissions in headless runs", () => {
  const f = useCliFixture();

  /** `reson run --json` in the fixture's workspace (or `cwd`), RESON_HOME the fixture's unless `env` says. */
  const run = (args: string[], env: Record<string, string> = {}, cwd = f.ws.path) =>
    runCli(
      ["run", "--json", "--provider", "openai-compatible", "--base-url", f.server.openaiBaseUrl, ...args],
      {
        cwd,
        env: cleanEnv({ RESON_HOME: f.home.path, ...env }),
      },
    );
  const results = (stdout: string) => parseEvents(stdout).filter((e) => e.type === "tool_result");

  it.skipIf(noSandbox)("by default edits are free and commands run inside the OS sandbox", async () => {
    f.server.enqueue(
      {
        toolCalls: [
          { name: "write_file", arguments: { path: "a.txt", content: "A" } },
          { name: "execute_command", arguments: { command: "touch made.txt" } },
          { name: "execute_command", arguments: { command: "touch /etc/reson-escape" } },
        ],
      },
      { text: "done" },
    );
    const result = await run(["do things"]);
    expect(result.code).toBe(0);
    const [write, touch, outside] = results(result.stdout);
    expect(write).toMatchObject({ ok: true, permission: { behavior: "allow", mode: "acceptEdits" } });
    expect(touch).toMatchObject({ ok: true, permission: { behavior: "allow" } });
    expect((touch!.permission as { reason: string }).reason).toContain("inside the OS sandbox");
    expect(existsSync(join(f.ws.path, "made.txt"))).toBe(true);
    expect(outside).toMatchObject({ ok: false, error: { code: "command_failed" } });
    expect(JSON.stringify(outside)).toContain("blocked by sandbox");
    expect(existsSync("/etc/reson-escape")).toBe(false);
    const start = parseEvents(result.stdout)[0]!;
    expect(start.sandbox).toMatch(/^sandbox: enforced/);
  });

  it("with no working sandbox, a headless run refuses every command and says how to proceed", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "execute_command", arguments: { command: "ls" } }] },
      { text: "done" },
    );
    const result = await run(["look"], { RESON_BWRAP: "/nonexistent/bwrap" });
    expect(result.code).toBe(0);
    const [ls] = results(result.stdout);
    expect(ls).toMatchObject({ ok: false, error: { code: "tool_denied" } });
    const { message, hint } = ls!.error as { message: string; hint: string };
    expect(message).toContain("OUTSIDE any sandbox");
    expect(hint).toContain("--sandbox off");
    expect(parseEvents(result.stdout)[0]!.sandbox).toMatch(/^sandbox: NONE.*commands are refused/);
  });

  it("with --sandbox off, edits are free, read-only commands run, and other commands are denied with the flag that allows them", async () => {
    f.server.enqueue(
      {
        toolCalls: [
          { name: "write_file", arguments: { path: "a.txt", content: "A" } },
          { name: "execute_command", arguments: { command: "ls" } },
          { name: "execute_command", arguments: { command: "touch made.txt" } },
        ],
      },
      { text: "done" },
    );
    const result = await run(["--sandbox", "off", "do things"]);
    expect(result.code).toBe(0);
    const [write, ls, touch] = results(result.stdout);
    expect(write).toMatchObject({ ok: true, permission: { behavior: "allow", mode: "acceptEdits" } });
    expect(ls).toMatchObject({ ok: true, permission: { behavior: "allow" } });
    expect(touch).toMatchObject({ ok: false, error: { code: "tool_denied" } });
    expect((touch!.error as { hint: string }).hint).toContain("--allow 'execute_command(touch made.txt)'");
    expect(existsSync(join(f.ws.path, "made.txt"))).toBe(false);
    expect(JSON.stringify(f.server.requests[1]!.body)).toContain("--allow");
  });

  it.skipIf(noSandbox)("--allow lets a command run and the trace names the rule and its source", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "execute_command", arguments: { command: "touch made.txt" } }] },
      { text: "ok" },
    );
    const result = await run(["--allow", "Bash(touch:*)", "make it"]);
    expect(result.code).toBe(0);
    expect(results(result.stdout)[0]).toMatchObject({
      ok: true,
      permission: { behavior: "allow", rule: "Bash(touch:*)", source: "flags" },
    });
    expect(existsSync(join(f.ws.path, "made.txt"))).toBe(true);
    const runId = parseEvents(result.stdout)[0]!.runId as string;
    const show = await runCli(["trace", "show", runId], {
      cwd: f.ws.path,
      env: cleanEnv({ RESON_HOME: f.home.path }),
    });
    expect(show.stdout).toContain("allowed by rule Bash(touch:*) (flags)");
  });

  it.skipIf(noSandbox)("plan mode offers no write tools and refuses commands that write", async () => {
    writeFileSync(join(f.ws.path, "keep.txt"), "original\n");
    f.server.enqueue(
      { toolCalls: [{ name: "execute_command", arguments: { command: "echo changed > keep.txt" } }] },
      { text: "planned" },
    );
    const result = await run(["--permission-mode", "plan", "--allow", "execute_command", "plan it"]);
    expect(result.code).toBe(0);
    const offered = (
      f.server.requests[0]!.body as { tools: Array<{ function: { name: string } }> }
    ).tools.map((t) => t.function.name);
    expect(offered).toContain("read_file");
    expect(offered).not.toContain("write_file");
    expect(offered).not.toContain("edit_file");
    expect(results(result.stdout)[0]).toMatchObject({ ok: false, error: { code: "tool_denied" } });
    expect(readFileSync(join(f.ws.path, "keep.txt"), "utf8")).toBe("original\n");
  });

  it("a deny rule in .reson/settings.json wins over an allow flag, and a bad rule warns with file and line", async () => {
    mkdirSync(join(f.ws.path, ".reson"));
    writeFileSync(
      join(f.ws.path, ".reson/settings.json"),
      JSON.stringify({ permissions: { deny: ["Write(secret.txt)", "Bash("] } }, null, 2),
    );
    f.server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "secret.txt", content: "x" } }] },
      { text: "ok" },
    );
    const result = await run(["--allow", "Write", "write the secret"]);
    expect(result.code).toBe(0);
    expect(results(result.stdout)[0]).toMatchObject({
      ok: false,
      permission: { behavior: "deny", rule: "Write(secret.txt)" },
    });
    expect(existsSync(join(f.ws.path, "secret.txt"))).toBe(false);
    expect(result.stderr).toMatch(/warning: .*\.reson\/settings\.json:\d+: .*Bash\(/);
  });

  it("writing a protected path such as .env needs approval, so a headless run denies it", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: ".env", content: "A=1" } }] },
      { text: "ok" },
    );
    const result = await run(["write env"]);
    expect(results(result.stdout)[0]).toMatchObject({ ok: false, error: { code: "tool_denied" } });
    expect(existsSync(join(f.ws.path, ".env"))).toBe(false);
  });

  it.skipIf(noSandbox)(
    "a workspace kept in a .reson folder (where serve makes them) takes edits and commands without asking; its own .git still is protected",
    async () => {
      const home = join(f.home.path, ".reson");
      const workspace = join(home, "workspaces", "app");
      mkdirSync(join(workspace, ".git"), { recursive: true });
      f.server.enqueue(
        {
          toolCalls: [
            { name: "write_file", arguments: { path: "src/main.ts", content: "export {};\n" } },
            { name: "execute_command", arguments: { command: "echo built > out.txt" } },
            { name: "write_file", arguments: { path: ".git/config", content: "[core]\n" } },
          ],
        },
        { text: "done" },
      );
      const result = await run(["build it"], { RESON_HOME: home }, workspace);
      expect(result.code).toBe(0);
      const [edit, command, protectedWrite] = results(result.stdout);
      expect(edit).toMatchObject({ ok: true, permission: { behavior: "allow" } });
      expect(command).toMatchObject({ ok: true, permission: { behavior: "allow" } });
      expect(protectedWrite).toMatchObject({ ok: false, error: { code: "tool_denied" } });
      expect(readFileSync(join(workspace, "out.txt"), "utf8")).toBe("built\n");
      expect(existsSync(join(workspace, ".git/config"))).toBe(false);
    },
  );

  it("an unknown --permission-mode exits 2 naming the modes", async () => {
    const result = await run(["--permission-mode", "yolo", "x"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("acceptEdits");
  });
});
