// End to end: what `reson run` (headless, so it cannot ask) says about a call it denied. The
// hint names only flags that let the call through here (copied, they do), one rule per part of
// a compound command, printed whole in human output; for a protected path or a file the
// sandbox refuses anyway it names none, and the model is not taught a rule for a protected path.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";

describe("the hint of a call a headless run denied", () => {
  const f = useCliFixture();

  const run = (args: string[]) =>
    runCli(["run", ...fakeModelArgs(f.server), ...args], {
      cwd: f.ws.path,
      env: cleanEnv({ RESON_HOME: f.home.path }),
    });
  const command = (text: string) => ({
    toolCalls: [{ name: "execute_command", arguments: { command: text } }],
  });
  const results = (stdout: string) => parseEvents(stdout).filter((e) => e.type === "tool_result");

  it("names one --allow per part of a compound command, whole in human output, and copied they let it run", async () => {
    const compound = "touch one.txt && touch two.txt > touched.log";
    f.server.enqueue(command(compound), { text: "denied" });
    const denied = await run(["--sandbox", "off", "--permission-mode", "default", "make two files"]);
    expect(denied.code).toBe(0);
    const flags =
      "--allow 'execute_command(touch one.txt)' --allow 'execute_command(touch two.txt)' --allow 'Edit(./touched.log)'";
    // Every part that asked is named, and the hint is on one line, not cut.
    expect(denied.stderr).toContain(
      "    touch one.txt: default mode asks before running `touch one.txt`; " +
        "touch two.txt: default mode asks before running `touch two.txt`; " +
        "> touched.log: default mode asks before writing touched.log by redirection. " +
        "This run cannot ask for approval (headless).\n",
    );
    expect(denied.stderr).toContain(
      `    hint: Allow it with ${flags} (or the same rules in .reson/settings.json), or run with --permission-mode bypass.\n`,
    );
    expect(existsSync(join(f.ws.path, "one.txt"))).toBe(false);

    f.server.enqueue(command(compound), { text: "done" });
    const allowed = await run([
      "--json",
      "--sandbox",
      "off",
      "--permission-mode",
      "default",
      "--allow",
      "execute_command(touch one.txt)",
      "--allow",
      "execute_command(touch two.txt)",
      "--allow",
      "Edit(./touched.log)",
      "make two files",
    ]);
    expect(results(allowed.stdout)[0]).toMatchObject({ ok: true, permission: { behavior: "allow" } });
    expect(existsSync(join(f.ws.path, "one.txt"))).toBe(true);
    expect(existsSync(join(f.ws.path, "two.txt"))).toBe(true);
  });

  it("under bypass, a protected settings file is denied even with its --allow rule, and no hint suggests a rule", async () => {
    const write = {
      toolCalls: [
        { name: "write_file", arguments: { path: ".reson/settings.json", content: '{"permissions":{}}' } },
      ],
    };
    f.server.enqueue(write, { text: "denied" });
    const result = await run([
      "--json",
      "--permission-mode",
      "bypass",
      "--allow",
      "Edit(./.reson/settings.json)",
      "change the settings",
    ]);
    expect(result.code).toBe(0);
    const error = results(result.stdout)[0]!.error as { code: string; message: string; hint: string };
    expect(error.code).toBe("tool_denied");
    expect(error.message).toContain("protected");
    expect(error.hint).toContain("changed only by you, never by the agent");
    expect(existsSync(join(f.ws.path, ".reson/settings.json"))).toBe(false);
    // What went back to the model holds no rule recipe for the protected file.
    const toModel = JSON.stringify(f.server.requests[1]!.body);
    expect(toModel).toContain("cannot ask for approval");
    expect(toModel).not.toContain("--allow");
    expect(toModel).not.toContain("--permission-mode");
  });

  it("suggests no rule for a write the workspace sandbox refuses anyway", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "../outside.txt", content: "x" } }] },
      { text: "denied" },
    );
    const result = await run(["write outside"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /hint: No rule or mode lets it through: file tools reach only the workspace, and \.\.\/outside\.txt is outside it\.\n/,
    );
    expect(result.stderr).not.toContain("--allow");
  });
});
