// How the OS sandbox's state changes command decisions: with no sandbox every command is asked
// (and refused headless, with the way out named); inside an enforced sandbox acceptEdits lets
// commands run, since they can then only write where edits could.
import { describe, expect, it } from "vitest";
import { evaluate, PermissionGate, type SandboxState } from "../../src/permissions/index.js";
import { cmd, ctx, HOME, policyOf, WS, write } from "./support.js";

function decide(command: string, sandbox: SandboxState, mode: Parameters<typeof ctx>[0] = "acceptEdits") {
  return evaluate(cmd(command), policyOf({ allow: ["execute_command(npm test)"] }), {
    ...ctx(mode),
    sandbox,
  });
}

describe("commands and the OS sandbox", () => {
  it("asks before every command when no sandbox works, even read-only or allowed ones", () => {
    for (const command of ["ls", "git status", "npm test"]) {
      const decision = decide(command, "none");
      expect(decision.behavior).toBe("ask");
      expect(decision.reason).toContain("OUTSIDE any sandbox");
    }
    expect(decide("ls", "none", "bypass").behavior).toBe("ask");
    expect(decide("ls", "none", "dontAsk").behavior).toBe("deny");
  });

  it("lets the rules decide as before when the user turned the sandbox off", () => {
    expect(decide("ls", "off").behavior).toBe("allow");
    expect(decide("npm test", "off").behavior).toBe("allow");
    expect(decide("make", "off").behavior).toBe("ask");
  });

  it("allows sandboxed commands and their redirects in acceptEdits mode, not in default mode", () => {
    expect(decide("make && ./run > /tmp/out.log", "enforced").behavior).toBe("allow");
    expect(decide("make", "enforced", "default").behavior).toBe("ask");
    // Guards still hold: a protected path or a critical delete is asked whatever the sandbox.
    expect(decide("echo x >> ~/.bashrc", "enforced").behavior).toBe("ask");
    expect(decide("rm -rf /", "enforced").behavior).toBe("ask");
    // File tools are unchanged: a write outside the workspace is asked.
    const outside = evaluate(write("/etc/hosts"), policyOf(), { ...ctx("acceptEdits"), sandbox: "enforced" });
    expect(outside.behavior).toBe("ask");
  });

  it("tells a headless run how to get a command through when there is no sandbox", async () => {
    const gate = new PermissionGate({
      policy: { ...policyOf(), mode: "acceptEdits" },
      workspaceRoot: WS,
      userHome: HOME,
      home: "/nonexistent",
      sandbox: "none",
    });
    const decision = await gate.hooks().beforeToolCall!(
      { id: "c1", name: "execute_command", arguments: { command: "ls" } },
      { tool: { name: "execute_command", readOnly: false } } as never,
    );
    expect(decision?.action).toBe("deny");
    const { reason, hint } = decision as { reason: string; hint: string };
    expect(reason).toContain("OUTSIDE any sandbox");
    expect(hint).toContain("reson doctor");
    expect(hint).toContain("--sandbox off");
    expect(hint).not.toContain("--allow");
  });
});

describe("web_fetch rules", () => {
  const fetchCall = (url: string) => ({ tool: "web_fetch", arguments: { url } });

  it("asks by default and follows domain rules, Claude Code's WebFetch(domain:…) included", () => {
    expect(evaluate(fetchCall("https://example.com/a"), policyOf(), ctx("acceptEdits")).behavior).toBe("ask");
    const policy = policyOf({
      allow: ["WebFetch(domain:*.example.com)"],
      deny: ["web_fetch(domain:evil.test)"],
    });
    expect(evaluate(fetchCall("https://api.example.com/x"), policy, ctx()).behavior).toBe("allow");
    expect(evaluate(fetchCall("https://example.com./x"), policy, ctx()).behavior).toBe("allow");
    expect(evaluate(fetchCall("https://example.com.evil.test/"), policy, ctx()).behavior).toBe("ask");
    expect(evaluate(fetchCall("http://EVIL.test:8080/"), policy, ctx("bypass")).behavior).toBe("deny");
    expect(evaluate(fetchCall("not a url"), policy, ctx()).behavior).toBe("ask");
  });

  it("suggests the narrowest domain rule when asked", () => {
    expect(evaluate(fetchCall("https://api.github.com/repos"), policyOf(), ctx()).allowRule).toBe(
      "web_fetch(domain:api.github.com)",
    );
  });
});
