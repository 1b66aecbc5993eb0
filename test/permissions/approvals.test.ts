// The answers to a permission prompt, through the gate: what "for this session" covers, the
// Edit(…) rule an "always" answer writes, and which prompts may offer them at all.
import { describe, expect, it } from "vitest";
import {
  evaluate,
  type PermissionAnswer,
  PermissionGate,
  type PermissionPrompt,
  suggestedRule,
} from "../../src/permissions/index.js";
import { cmd, ctx, edit, HOME, policyOf, type RuleLists, WS, write } from "./support.js";

function gateAnswering(answer: PermissionAnswer["kind"], lists: RuleLists = {}) {
  const prompts: PermissionPrompt[] = [];
  const gate = new PermissionGate({
    policy: policyOf(lists),
    workspaceRoot: WS,
    userHome: HOME,
    home: "/nonexistent",
    promptUser: async (prompt) => {
      prompts.push(prompt);
      return { kind: answer } as PermissionAnswer;
    },
  });
  const ask = (tool: string, args: Record<string, unknown>) =>
    gate.hooks().beforeToolCall!({ id: "c1", name: tool, arguments: args }, {
      tool: { name: tool, readOnly: false },
    } as never);
  return { gate, prompts, ask };
}

describe("answers to a permission prompt", () => {
  it("for this session, a file edit covers every write and edit inside the workspace, not outside nor protected paths", async () => {
    const { gate, prompts, ask } = gateAnswering("allow_session");
    await ask("write_file", { path: "notes.txt", content: "x" });
    expect(prompts[0]!.session).toEqual({
      rule: "Edit(./**)",
      covers: "all file edits in this workspace for this session (protected paths still ask)",
    });
    expect(gate.decide("edit_file", { path: "notes.txt", old_string: "a", new_string: "b" }).behavior).toBe(
      "allow",
    );
    expect(gate.decide("write_file", { path: "deep/er/x.ts", content: "x" }).behavior).toBe("allow");
    expect(gate.decide("write_file", { path: "/etc/hosts", content: "x" }).behavior).toBe("ask");
    expect(gate.decide("write_file", { path: ".git/config", content: "x" }).behavior).toBe("ask");
    expect(gate.decide("execute_command", { command: "make" }).behavior).toBe("ask");
    const decided = gate.decide("edit_file", { path: "a.txt", old_string: "a", new_string: "b" });
    expect(decided.reason).toBe("allowed by rule Edit(./**) (session)");
  });

  it("for this session, a command covers that command and a fetch its host", async () => {
    const { gate, prompts, ask } = gateAnswering("allow_session");
    await ask("execute_command", { command: "npm test" });
    await ask("execute_command", { command: "make && make install" });
    expect(prompts.map((p) => p.session?.covers)).toEqual([
      "this exact command for this session",
      "every command for this session",
    ]);
    expect(gate.decide("execute_command", { command: "npm test" }).behavior).toBe("allow");
  });

  it("always writes the Edit rule of just that file, escaped, from the workspace root or absolute outside it", () => {
    expect(suggestedRule("write_file", { path: "src/a.ts" }, WS)).toBe("Edit(./src/a.ts)");
    expect(suggestedRule("edit_file", { path: `${WS}/src/a.ts` }, WS)).toBe("Edit(./src/a.ts)");
    expect(suggestedRule("edit_file", { path: "../other/b.md" }, WS)).toBe("Edit(//work/other/b.md)");
    expect(suggestedRule("write_file", { path: "..notes/c.md" }, WS)).toBe("Edit(./..notes/c.md)");
    const weird = suggestedRule("write_file", { path: "a[1] (copy)*.md" }, WS);
    expect(weird).toBe("Edit(./a\\[1\\] \\(copy\\)\\*.md)");
    const policy = policyOf({ allow: [weird, "Edit(//work/other/b.md)"] });
    expect(evaluate(write("a[1] (copy)*.md"), policy, ctx()).behavior).toBe("allow");
    expect(evaluate(edit("a[1] (copy)*.md"), policy, ctx()).behavior).toBe("allow");
    expect(evaluate(write("a1 (copy)x.md"), policy, ctx()).behavior).toBe("ask");
    expect(evaluate(edit("/work/other/b.md"), policy, ctx()).behavior).toBe("allow");
  });

  it("offers session and always answers only where a rule could spare the next question", async () => {
    const { prompts, ask } = gateAnswering("allow_session", { ask: ["Bash(git push:*)"] });
    await ask("write_file", { path: ".env", content: "x" });
    await ask("execute_command", { command: "git push origin" });
    await ask("execute_command", { command: "LD_PRELOAD=x.so make" });
    await ask("execute_command", { command: "make && rm -rf ~" });
    for (const prompt of prompts) {
      expect(prompt.decision.alwaysAsked).toBe(true);
      expect(prompt.session).toBeUndefined();
      expect(prompt.suggestedRule).toBeUndefined();
    }
    expect(evaluate(cmd("make"), policyOf(), ctx()).alwaysAsked).toBeUndefined();
  });
});
