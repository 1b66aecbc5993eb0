// End to end: what a workspace's own settings files grant (allow rules, a mode that asks less)
// waits for the user's approval on this machine: a cloned repository ships .reson/settings.json,
// and its rules would otherwise let a fooled model's commands through unasked. Deny rules apply
// at once; an approval is kept in $RESON_HOME by rule, so a later rule added to the file waits again.
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";

describe("a workspace's settings files grant only what the user approved", () => {
  const f = useCliFixture();
  const env = () => cleanEnv({ RESON_HOME: f.home.path });
  const run = (args: string[]) =>
    runCli(
      [
        "run",
        "--json",
        "--sandbox",
        "off",
        "--provider",
        "openai-compatible",
        "--base-url",
        f.server.openaiBaseUrl,
        ...args,
      ],
      { cwd: f.ws.path, env: env() },
    );
  const cli = (args: string[]) => runCli(args, { cwd: f.ws.path, env: env() });
  const settings = (permissions: Record<string, unknown>) => {
    mkdirSync(join(f.ws.path, ".reson"), { recursive: true });
    writeFileSync(join(f.ws.path, ".reson", "settings.json"), `${JSON.stringify({ permissions })}\n`);
  };
  const touch = (name: string) => {
    f.server.enqueue(
      { toolCalls: [{ name: "execute_command", arguments: { command: `touch ${name}` } }] },
      { text: "done" },
    );
    return run([`make ${name}`]);
  };
  const results = (stdout: string) => parseEvents(stdout).filter((e) => e.type === "tool_result");

  it("holds a cloned project's allow rules and bypass mode until `reson permissions approve`, then applies them", async () => {
    settings({ allow: ["Bash(touch made.txt)"], deny: ["Bash(touch denied.txt)"], defaultMode: "bypass" });

    const held = await touch("made.txt");
    expect(held.code).toBe(0);
    expect(results(held.stdout)[0]).toMatchObject({ ok: false, error: { code: "tool_denied" } });
    expect(existsSync(join(f.ws.path, "made.txt"))).toBe(false);
    expect(parseEvents(held.stdout)[0]).toMatchObject({ type: "run_start" });
    expect(held.stderr).toContain(
      "allows Bash(touch made.txt) and sets the mode bypass without your approval",
    );
    expect(held.stderr).toContain("reson permissions approve");

    const shown = await cli(["permissions"]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("Waiting for your approval");
    expect(shown.stdout).toContain(".reson/settings.json: allow Bash(touch made.txt); mode bypass");
    expect(shown.stdout).toContain("Bash(touch denied.txt)");

    // No terminal and no --yes: nothing is approved.
    const refused = await cli(["permissions", "approve"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--yes");
    expect((await touch("made.txt")).stdout).toContain("tool_denied");

    const approved = await cli(["permissions", "approve", "--yes"]);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain("Bash(touch made.txt)");
    const grants = JSON.parse(readFileSync(join(f.home.path, "approved-project-permissions.json"), "utf8"));
    expect(Object.values(grants.workspaces)).toEqual([
      expect.objectContaining({ allow: ["Bash(touch made.txt)"], modes: ["bypass"] }),
    ]);

    const allowed = await touch("made.txt");
    expect(results(allowed.stdout)[0]).toMatchObject({
      ok: true,
      permission: { behavior: "allow", mode: "bypass" },
    });
    expect(existsSync(join(f.ws.path, "made.txt"))).toBe(true);
    expect(allowed.stderr).not.toContain("without your approval");

    // The deny rule held all along, approval or not.
    expect(results((await touch("denied.txt")).stdout)[0]).toMatchObject({
      ok: false,
      error: { code: "tool_denied" },
    });

    // A rule added to the file later waits again; the approved one still applies.
    settings({ allow: ["Bash(touch made.txt)", "Bash(curl *)"], defaultMode: "bypass" });
    const again = await cli(["permissions"]);
    expect(again.stdout).toContain(".reson/settings.json: allow Bash(curl *)");
    expect(again.stdout).not.toContain("mode bypass\n");
    expect(results((await touch("made.txt")).stdout)[0]).toMatchObject({ ok: true });
  });

  it("the terminal asks once at start: no keeps asking instead, yes is remembered and applied", async () => {
    settings({ allow: ["Bash(touch made.txt)"], defaultMode: "acceptEdits" });
    const terminal = (input: string) =>
      runCli([...fakeModelArgs(f.server)], { cwd: f.ws.path, env: env(), input });
    const grantsFile = join(f.home.path, "approved-project-permissions.json");

    const declined = await terminal("n\n/permissions\n/exit\n");
    expect(declined.code).toBe(0);
    expect(declined.stdout).toContain("This workspace's settings files grant, without asking you first:");
    expect(declined.stdout).toContain("allow Bash(touch made.txt); mode acceptEdits");
    expect(declined.stdout).toContain("Mode: default");
    expect(existsSync(grantsFile)).toBe(false);

    const approved = await terminal("y\n/permissions\n/exit\n");
    expect(approved.stdout).toContain("Approved; a change to these files");
    expect(approved.stdout).toMatch(/Mode: acceptEdits \(from .*settings\.json\)/);
    expect(approved.stdout).toMatch(/Bash\(touch made\.txt\) +.*settings\.json/);
    expect(JSON.parse(readFileSync(grantsFile, "utf8")).workspaces).toEqual({
      [realpathSync(f.ws.path)]: expect.objectContaining({
        allow: ["Bash(touch made.txt)"],
        modes: ["acceptEdits"],
      }),
    });

    // Asked no more.
    const later = await terminal("/exit\n");
    expect(later.stdout).not.toContain("without asking you first");
  });

  it("`reson permissions approve` with nothing held says so", async () => {
    settings({ deny: ["Bash(rm *)"] });
    const result = await cli(["permissions", "approve"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Nothing to approve");
  });
});
