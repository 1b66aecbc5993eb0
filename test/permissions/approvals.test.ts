// The answers to a permission prompt, through the gate: what "for this session" covers, the
// narrow rules an "always" answer writes (one per part that asked), and which prompts may
// offer them at all.
import { describe, expect, it } from "vitest";
import {
  evaluate,
  type PermissionAnswer,
  PermissionGate,
  type PermissionPrompt,
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
      rules: ["Edit(./**)"],
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

  it("for this session, a command covers each part that asked, and a redirect the file it writes", async () => {
    const { gate, prompts, ask } = gateAnswering("allow_session");
    await ask("execute_command", { command: "npm test" });
    await ask("execute_command", { command: "make build && git status && npm run lint" });
    await ask("execute_command", { command: "echo x >> log.txt" });
    expect(prompts.map((p) => p.session)).toEqual([
      { rules: ["execute_command(npm test)"], covers: "for this session: execute_command(npm test)" },
      {
        rules: ["execute_command(make build)", "execute_command(npm run lint)"],
        covers: "for this session: execute_command(make build), execute_command(npm run lint)",
      },
      { rules: ["Edit(./log.txt)"], covers: "for this session: Edit(./log.txt)" },
    ]);
    for (const command of [
      "npm test",
      "make build && npm run lint",
      "echo x >> log.txt",
      "echo y >> log.txt",
    ])
      expect(gate.decide("execute_command", { command }).behavior).toBe("allow");
    // Never wider than what asked: other commands, and other files, still ask.
    for (const command of ["make", "make build --force", "npm run lint; rm x", "echo x >> other.txt"])
      expect(gate.decide("execute_command", { command }).behavior).toBe("ask");
  });

  it("names a command holding a star by its exact text, the star escaped", () => {
    const decision = evaluate(cmd("rm -f *.o && make"), policyOf(), ctx());
    expect(decision.parts?.map((part) => part.allowRule)).toEqual([
      "execute_command(rm -f \\*.o)",
      "execute_command(make)",
    ]);
    const policy = policyOf({ allow: ["execute_command(rm -f \\*.o)", "Bash(touch \\\\\\*.ts)"] });
    expect(evaluate(cmd("rm -f *.o"), policy, ctx()).behavior).toBe("allow");
    expect(evaluate(cmd("rm -f -r ~ x.o"), policy, ctx()).behavior).toBe("ask");
    expect(evaluate(cmd("rm -f a.o"), policy, ctx()).behavior).toBe("ask");
    expect(evaluate(cmd("touch \\*.ts"), policy, ctx()).behavior).toBe("allow");
    expect(evaluate(cmd("touch x.ts"), policy, ctx()).behavior).toBe("ask");
  });

  it("always writes the Edit rule of just that file, escaped, and none for a file the file tools cannot reach", () => {
    const rule = (call: ReturnType<typeof write>) => evaluate(call, policyOf(), ctx()).allowRule;
    expect(rule(write("src/a.ts"))).toBe("Edit(./src/a.ts)");
    expect(rule(edit(`${WS}/src/a.ts`))).toBe("Edit(./src/a.ts)");
    expect(rule(write("..notes/c.md"))).toBe("Edit(./..notes/c.md)");
    const weird = rule(write("a[1] (copy)*.md"))!;
    expect(weird).toBe("Edit(./a\\[1\\] \\(copy\\)\\*.md)");
    const policy = policyOf({ allow: [weird] });
    expect(evaluate(write("a[1] (copy)*.md"), policy, ctx()).behavior).toBe("allow");
    expect(evaluate(edit("a[1] (copy)*.md"), policy, ctx()).behavior).toBe("allow");
    expect(evaluate(write("a1 (copy)x.md"), policy, ctx()).behavior).toBe("ask");
    const outside = evaluate(edit("../other/b.md"), policyOf(), ctx());
    expect(outside.allowRule).toBeUndefined();
    expect(outside.refusedBySandbox).toContain("file tools reach only the workspace");
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
      expect(prompt.suggestedRules).toBeUndefined();
    }
    expect(evaluate(cmd("make"), policyOf(), ctx()).alwaysAsked).toBeUndefined();
  });
});
