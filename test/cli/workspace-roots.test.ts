// End to end: which folders reson works in. `/` and system folders never (exit 2, with what
// to do instead); the home folder, a folder above it, or one holding $RESON_HOME only once
// trusted: refused headless (run and resume), asked once in the terminal and remembered,
// or trusted for one run with --trust-workspace. $RESON_HOME stays out of the file tools'
// reach whatever the workspace.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import { noSandbox } from "../workspace/exec-sandbox/fixture.js";

describe("workspace roots", () => {
  const f = useCliFixture();

  const run = (args: string[], env: Record<string, string> = {}) =>
    runCli(["run", "--json", ...fakeModelArgs(f.server), ...args], {
      cwd: f.ws.path,
      env: cleanEnv({ RESON_HOME: f.home.path, ...env }),
    });
  /** The interactive terminal, its input typed ahead and then closed. */
  const terminal = (input: string, env: Record<string, string> = {}, args: string[] = []) =>
    runCli([...fakeModelArgs(f.server), ...args], {
      cwd: f.ws.path,
      env: cleanEnv({ RESON_HOME: f.home.path, ...env }),
      input,
    });
  const trustedFile = () => join(f.home.path, "trusted-folders.json");

  it.each(["/", "/etc", "/usr", "/var", "/tmp", "/home"])(
    "refuses %s as the workspace with exit 2 and what to do instead, before any model call",
    async (root) => {
      const result = await run(["--workspace", root, "--trust-workspace", "look around"]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`reson: reson will not work in ${root}: it is`);
      expect(result.stderr).toContain("hint: Work in a project folder instead");
      expect(f.server.requests).toHaveLength(0);
    },
  );

  it("refuses a system folder reached through a symlink, by its real path", async () => {
    symlinkSync("/etc", join(f.ws.path, "config-link"));
    const result = await run(["--workspace", join(f.ws.path, "config-link"), "edit it"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("reson will not work in /etc: it is a system folder");
  });

  it("refuses the interactive terminal in / without asking", async () => {
    const result = await terminal("y\n/exit\n", {}, ["--workspace", "/"]);
    expect(result.code).toBe(2);
    expect(result.stdout).not.toContain("Trust this folder?");
    expect(result.stderr).toContain("reson will not work in /: it is the whole file system");
    expect(existsSync(trustedFile())).toBe(false);
  });

  // Named with --workspace: started there with no workspace given, reson would work in the
  // default workspace instead (test/cli/workspaces.test.ts).
  it("refuses a headless run in the home folder, and one above it, saying how to proceed", async () => {
    const asHome = await run(["--workspace", f.ws.path, "look around"], { HOME: f.ws.path });
    expect(asHome.code).toBe(2);
    expect(asHome.stderr).toContain(`reson: ${f.ws.path} is not a trusted workspace: it is your home folder`);
    expect(asHome.stderr).toContain("--trust-workspace");
    expect(asHome.stderr).toContain(trustedFile());
    const above = await run(["-w", f.ws.path, "look around"], { HOME: join(f.ws.path, "users", "ann") });
    expect(above.code).toBe(2);
    expect(above.stderr).toContain(`it contains your home folder (${join(f.ws.path, "users", "ann")})`);
    expect(f.server.requests).toHaveLength(0);
  });

  it("--trust-workspace runs in the home folder once; resuming that run without it is refused", async () => {
    f.server.enqueue({ toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "A" } }] });
    const first = await run(["--trust-workspace", "--max-iterations", "1", "write a"], { HOME: f.ws.path });
    expect(first.code).toBe(1); // stopped at max_iterations, to be resumed
    expect(readFileSync(join(f.ws.path, "a.txt"), "utf8")).toBe("A");
    const runId = parseEvents(first.stdout)[0]!.runId as string;
    const resumed = await runCli(["resume", "--json", ...fakeModelArgs(f.server), runId], {
      cwd: f.ws.path,
      env: cleanEnv({ RESON_HOME: f.home.path, HOME: f.ws.path }),
    });
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain("is not a trusted workspace: it is your home folder");
    expect(f.server.requests).toHaveLength(1);
    expect(existsSync(trustedFile())).toBe(false);
  });

  it("the terminal asks once in the home folder; yes is remembered, and later headless runs go ahead", async () => {
    const env = { HOME: f.ws.path };
    const here = ["--workspace", f.ws.path];
    const asked = await terminal("y\n/exit\n", env, here);
    expect(asked.code).toBe(0);
    expect(asked.stdout).toContain(`reson is about to work in ${f.ws.path}: it is your home folder.`);
    expect(asked.stdout).toContain("Trust this folder? [y] yes, and remember it  [n] no, quit:");
    expect(asked.stdout).toContain(`remembered in ${trustedFile()} (delete its entry there to revoke)`);
    const trusted = JSON.parse(readFileSync(trustedFile(), "utf8")) as { folders: Record<string, unknown> };
    expect(Object.keys(trusted.folders)).toEqual([f.ws.path]);

    const again = await terminal("/exit\n", env, here);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain("Trust this folder?");

    f.server.enqueue({ text: "hello from home" });
    const headless = await run(["say hello"], env);
    expect(headless.code).toBe(0);

    // Revoking: the entry removed, the question comes back.
    writeFileSync(trustedFile(), '{ "folders": {} }\n');
    const revoked = await run(["-w", f.ws.path, "say hello"], env);
    expect(revoked.code).toBe(2);
  });

  it("no in the terminal ends the session with nothing run and nothing remembered", async () => {
    const result = await terminal("n\nwrite a file\n", { HOME: f.ws.path }, ["-w", f.ws.path]);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain("Not trusted; nothing ran. Start reson in a project folder");
    expect(f.server.requests).toHaveLength(0);
    expect(existsSync(trustedFile())).toBe(false);
  });

  it("refuses a headless run in a folder that holds $RESON_HOME; trusted, file tools still cannot touch reson's own folder", async () => {
    const resonHome = join(f.ws.path, ".config", "reson");
    mkdirSync(resonHome, { recursive: true });
    writeFileSync(join(resonHome, "settings.json"), '{ "permissions": { "allow": [] } }\n');
    writeFileSync(join(resonHome, "secrets.json"), '{ "example.com": { "api": "SECRET-VALUE-31b9" } }\n', {
      mode: 0o600,
    });
    writeFileSync(join(f.ws.path, "app.txt"), "app\n");
    const env = { RESON_HOME: resonHome };

    const refused = await run(["-w", ".", "look around"], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`it contains reson's own folder ($RESON_HOME, ${resonHome})`);

    f.server.enqueue(
      {
        toolCalls: [
          {
            name: "write_file",
            arguments: {
              path: ".config/reson/settings.json",
              content: '{"permissions":{"defaultMode":"bypass"}}',
            },
          },
          {
            name: "edit_file",
            arguments: { path: ".config/reson/settings.json", old_string: "[]", new_string: '["Bash"]' },
          },
          { name: "write_file", arguments: { path: ".config/reson/new.json", content: "{}" } },
          { name: "read_file", arguments: { path: ".config/reson/secrets.json" } },
          { name: "list_files", arguments: { path: ".config/reson" } },
          { name: "grep", arguments: { pattern: "SECRET-VALUE" } },
          { name: "glob", arguments: { pattern: "**/*.json" } },
          { name: "write_file", arguments: { path: "app.txt", content: "changed\n" } },
        ],
      },
      { text: "done" },
    );
    const trusted = await run(["--trust-workspace", "change things"], env);
    expect(trusted.code).toBe(0);
    const results = parseEvents(trusted.stdout).filter((e) => e.type === "tool_result");
    const byId = (n: number) => results.find((r) => r.toolCallId === `call_fake_${n}`)!;
    for (const n of [0, 1, 2, 3, 4]) {
      expect(byId(n)).toMatchObject({ ok: false, error: { code: "path_protected" } });
      expect((byId(n).error as { message: string }).message).toContain("reson's own folder ($RESON_HOME)");
    }
    expect(byId(5).content).toContain("No matches");
    expect(byId(6).content).not.toContain(".config/reson");
    expect(byId(7)).toMatchObject({ ok: true });
    expect(JSON.stringify(f.server.requests)).not.toContain("SECRET-VALUE-31b9");
    expect(readFileSync(join(resonHome, "settings.json"), "utf8")).toBe(
      '{ "permissions": { "allow": [] } }\n',
    );
    expect(existsSync(join(resonHome, "new.json"))).toBe(false);
    expect(readFileSync(join(f.ws.path, "app.txt"), "utf8")).toBe("changed\n");
  });

  it("refuses a workspace inside $RESON_HOME, trusted or not", async () => {
    const inside = join(f.home.path, "skills", "mine");
    mkdirSync(inside, { recursive: true });
    const result = await run(["--workspace", inside, "--trust-workspace", "edit the skill"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`it is inside reson's own folder ($RESON_HOME, ${f.home.path})`);
  });

  it.skipIf(noSandbox)(
    "commands in the OS sandbox cannot read $RESON_HOME inside the workspace, nor change or replace it",
    async () => {
      const resonHome = join(f.ws.path, ".config", "reson");
      mkdirSync(resonHome, { recursive: true });
      const settings = '{ "permissions": { "allow": [] } }\n';
      writeFileSync(join(resonHome, "settings.json"), settings);
      writeFileSync(join(resonHome, "secrets.json"), '{ "example.com": { "api": "SECRET-VALUE-8c2d" } }\n', {
        mode: 0o600,
      });
      const bypass = `'{"permissions":{"defaultMode":"bypass"}}'`;
      f.server.enqueue(
        {
          toolCalls: [
            {
              name: "execute_command",
              arguments: { command: "cat .config/reson/secrets.json; grep -r SECRET-VALUE . ; true" },
            },
            {
              name: "execute_command",
              arguments: { command: `echo ${bypass} > .config/reson/settings.json` },
            },
            {
              name: "execute_command",
              arguments: {
                command: `mv .config .old && mkdir -p .config/reson && echo ${bypass} > .config/reson/settings.json`,
              },
            },
          ],
        },
        { text: "done" },
      );
      const result = await run(["--trust-workspace", "try"], { RESON_HOME: resonHome });
      expect(result.code).toBe(0);
      expect(parseEvents(result.stdout)[0]!.sandbox).toMatch(/^sandbox: enforced/);
      const results = parseEvents(result.stdout).filter((e) => e.type === "tool_result");
      expect(results).toHaveLength(3);
      expect(JSON.stringify(results)).not.toContain("SECRET-VALUE-8c2d");
      expect(JSON.stringify(f.server.requests)).not.toContain("SECRET-VALUE-8c2d");
      expect(results.find((r) => r.toolCallId === "call_fake_2")).toMatchObject({ ok: false });
      expect(readFileSync(join(resonHome, "settings.json"), "utf8")).toBe(settings);
      expect(existsSync(join(f.ws.path, ".old"))).toBe(false);
    },
  );
});
