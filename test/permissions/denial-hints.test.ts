// What a headless run says about a call it denied: only flags that would let the call through
// in this mode and sandbox (checked by deciding again with them), and for a call no rule can
// let through, why, without a rule recipe.
import { describe, expect, it } from "vitest";
import {
  createPolicy,
  evaluate,
  PermissionGate,
  type PermissionMode,
  type SandboxState,
} from "../../src/permissions/index.js";
import { cmd, ctx, HOME, policyOf, projectSource, type RuleLists, WS } from "./support.js";

async function headless(
  tool: string,
  args: Record<string, unknown>,
  options: { mode?: PermissionMode; sandbox?: SandboxState; rules?: RuleLists } = {},
) {
  const gate = new PermissionGate({
    policy: { ...policyOf(options.rules), mode: options.mode ?? "acceptEdits" },
    workspaceRoot: WS,
    userHome: HOME,
    home: "/nonexistent",
    sandbox: options.sandbox ?? "off",
  });
  const decision = await gate.hooks().beforeToolCall!({ id: "c1", name: tool, arguments: args }, {
    tool: { name: tool, readOnly: false },
  } as never);
  expect(decision?.action).toBe("deny");
  return decision as { reason: string; hint: string };
}

/** The rules an `--allow '…'` hint names. */
function allowFlags(hint: string): string[] {
  return [...hint.matchAll(/--allow '((?:[^']|'\\'')*)'/g)].map((match) =>
    match[1]!.replaceAll("'\\''", "'"),
  );
}

describe("the hint of a headless denial", () => {
  it("names one rule per part that asked, and each set of rules it names lets the command through", async () => {
    const commands = [
      "make build && npm run lint",
      "touch a.txt; git status; touch b.txt",
      "echo x >> log.txt",
      "make > build.log 2>&1",
      "rm -f *.o && make",
      "cd sub && touch 'it''s.txt'",
    ];
    for (const command of commands) {
      const { hint } = await headless("execute_command", { command }, { mode: "default" });
      const rules = allowFlags(hint);
      expect(rules.length, `${command}: ${hint}`).toBeGreaterThan(0);
      expect(rules).not.toContain("execute_command");
      const policy = createPolicy([
        { source: { kind: "flags", root: WS }, permissions: { allow: rules } },
        projectSource({}),
      ]);
      expect(evaluate(cmd(command), policy, ctx("default")).behavior, `${command}: ${rules}`).toBe("allow");
    }
    const { hint } = await headless("execute_command", { command: "make build && npm run lint" });
    expect(hint).toBe(
      "Allow it with --allow 'execute_command(make build)' --allow 'execute_command(npm run lint)' " +
        "(or the same rules in .reson/settings.json), or run with --permission-mode bypass.",
    );
  });

  it("gives no rule for a protected path, even under bypass, and says a person must approve it", async () => {
    for (const mode of ["bypass", "acceptEdits"] as const) {
      const { reason, hint } = await headless(
        "write_file",
        { path: ".vscode/tasks.json", content: "{}" },
        { mode },
      );
      expect(reason).toContain("protected");
      for (const text of [reason, hint]) {
        expect(text).not.toContain("--allow");
        expect(text).not.toContain("Edit(");
        expect(text).not.toContain("bypass");
      }
      expect(hint).toContain("interactive terminal (`reson`)");
    }
    const { hint } = await headless("execute_command", { command: "echo A=1 > .env" }, { mode: "bypass" });
    expect(hint).not.toContain("--allow");
  });

  it("says a file only the user changes (reson's settings, git's folder) is refused whatever the answer", async () => {
    for (const mode of ["bypass", "acceptEdits"] as const) {
      const { reason, hint } = await headless(
        "write_file",
        { path: ".reson/settings.json", content: "{}" },
        { mode },
      );
      expect(reason).toContain("protected");
      expect(hint).toBe(
        "No rule or mode lets it through: .reson/settings.json is changed only by you, never by the agent " +
          "(reson's own settings, permissions, plugins and skills).",
      );
    }
  });

  it("says no rule helps where the sandbox refuses the call anyway", async () => {
    const outside = await headless("write_file", { path: "../elsewhere/x.txt", content: "x" });
    expect(outside.hint).toContain("file tools reach only the workspace");
    expect(outside.hint).not.toContain("--allow");
    const redirect = await headless(
      "execute_command",
      { command: "echo x > /etc/motd" },
      { mode: "default", sandbox: "enforced" },
    );
    expect(redirect.hint).toContain("inside the OS sandbox a command can write only the workspace and /tmp");
    expect(redirect.hint).not.toContain("--allow");
    // Without the OS sandbox, the same write takes a rule.
    const unsandboxed = await headless(
      "execute_command",
      { command: "echo x > /etc/motd" },
      { mode: "default" },
    );
    expect(allowFlags(unsandboxed.hint)).toEqual(["Edit(//etc/motd)"]);
  });

  it("names the ask rule that asks, and bypass only where bypass works", async () => {
    const asked = await headless(
      "execute_command",
      { command: "git push origin" },
      { rules: { ask: ["Bash(git push:*)"] } },
    );
    expect(asked.hint).toContain("The ask rule Bash(git push:*)");
    expect(asked.hint).toContain(".reson/settings.json");
    expect(asked.hint).not.toContain("--allow");
    expect(asked.hint).not.toContain("bypass");
    const variable = await headless("execute_command", { command: "LD_PRELOAD=x.so make" });
    expect(variable.hint).toBe("No allow rule covers it; only --permission-mode bypass lets it through.");
  });

  it("without a working sandbox, names --sandbox off and the rule still needed after it", async () => {
    const { hint } = await headless("execute_command", { command: "touch x" }, { sandbox: "none" });
    expect(hint).toContain("reson doctor");
    expect(hint).toContain("--sandbox off with --allow 'execute_command(touch x)'");
  });

  it("without a working sandbox, where --sandbox off alone lets it through, names no rule at all", async () => {
    const { hint } = await headless(
      "execute_command",
      { command: "touch x" },
      { sandbox: "none", mode: "bypass" },
    );
    expect(hint).toContain("pass --sandbox off to run it without an OS sandbox");
    expect(hint).not.toContain(" with  ");
  });
});
