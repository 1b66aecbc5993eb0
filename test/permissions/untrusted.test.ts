// The permission engine after a run read untrusted content: what the rules and the mode would
// let through is held back (asked; denied in dontAsk) when it reaches a host no rule names,
// fills a secret without a rule naming the call, or changes a file that steers later runs
// without a rule naming that file. No mode names anything, bypass included. A trusted run is
// decided as before, and the same calls in it are all allowed.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allowRulesFor, evaluate, type PermissionMode } from "../../src/permissions/index.js";
import { cmd, ctx, edit, policyOf, write } from "./support.js";

const READ = "web_fetch https://docs.example/page";
const untrusted = (mode: PermissionMode = "acceptEdits", extra: object = {}) => ({
  ...ctx(mode),
  sandbox: "enforced" as const,
  untrusted: READ,
  ...extra,
});
const trusted = (mode: PermissionMode = "acceptEdits", extra: object = {}) => ({
  ...ctx(mode),
  sandbox: "enforced" as const,
  ...extra,
});
const fetchCall = (url: string) => ({ tool: "web_fetch", arguments: { url } });

describe("after untrusted content", () => {
  it("web_fetch reaches only hosts an allow rule names, in every mode", () => {
    const bare = policyOf({ allow: ["web_fetch"] });
    for (const mode of ["acceptEdits", "bypass", "default"] as const) {
      const decision = evaluate(fetchCall("https://evil.example/x"), bare, untrusted(mode));
      expect(decision).toMatchObject({ behavior: "ask", decidedBy: "untrusted" });
      expect(decision.reason).toContain("evil.example, which no allow rule names");
      expect(decision.reason).toContain(READ);
      expect(decision.allowRule).toBe("web_fetch(domain:evil.example)");
      expect(evaluate(fetchCall("https://evil.example/x"), bare, trusted(mode)).behavior).toBe("allow");
    }
    expect(evaluate(fetchCall("https://evil.example/x"), bare, untrusted("dontAsk")).behavior).toBe("deny");
    const named = policyOf({ allow: ["web_fetch", "browser(domain:*.example)"] });
    expect(evaluate(fetchCall("https://api.example/x"), named, untrusted()).behavior).toBe("allow");
  });

  it("a write into the installed packages needs a rule naming it, at the root and below it; a rule for all edits does not count", () => {
    const allEdits = policyOf({ allow: ["Edit(./**)"] });
    for (const [path, folder] of [
      ["node_modules/left-pad/index.js", "node_modules"],
      ["node_modules/.bin/vitest", "node_modules"],
      ["packages/web/node_modules/react/index.js", "packages/web/node_modules"],
      [".venv/lib/python3.11/site-packages/evil.pth", ".venv"],
      ["tools/venv/bin/python", "tools/venv"],
      ["vendor/autoload.php", "vendor"],
    ]) {
      const decision = evaluate(write(path!), allEdits, untrusted("bypass"));
      expect(decision, path).toMatchObject({ behavior: "ask", decidedBy: "untrusted" });
      expect(decision.reason, path).toContain(`it changes ${folder}, the packages installed for the project`);
      expect(evaluate(write(path!), allEdits, trusted()).behavior, path).toBe("allow");
    }
    // A virtual environment's own files, a folder merely named vendor below the root, and the
    // project's sources stay ordinary files.
    for (const path of [".venv/.lock", "src/vendor/chart.js", "src/node_modules.md"])
      expect(evaluate(write(path), allEdits, untrusted()).behavior, path).toBe("allow");
    const named = policyOf({ allow: ["Edit(./node_modules/left-pad/index.js)"] });
    expect(evaluate(write("node_modules/left-pad/index.js"), named, untrusted()).behavior).toBe("allow");
  });

  it("a file that steers later runs needs a rule naming it; a rule for all edits does not count", () => {
    const allEdits = policyOf({ allow: ["Edit(./**)"] });
    for (const path of [
      "AGENTS.md",
      "docs/CLAUDE.md",
      "SOUL.md",
      ".agents/skills/x/SKILL.md",
      ".claude/skills/core.md",
    ]) {
      expect(evaluate(write(path), allEdits, untrusted()), path).toMatchObject({
        behavior: "ask",
        decidedBy: "untrusted",
      });
      expect(evaluate(write(path), allEdits, trusted()).behavior, path).toBe("allow");
    }
    expect(evaluate(edit("AGENTS.md"), policyOf(), untrusted("bypass")).allowRule).toBe("Edit(./AGENTS.md)");
    expect(
      evaluate(edit("AGENTS.md"), policyOf({ allow: ["Edit(./AGENTS.md)"] }), untrusted()).behavior,
    ).toBe("allow");
    // Ordinary files are edited as before.
    expect(evaluate(write("src/app.ts"), policyOf(), untrusted()).behavior).toBe("allow");
  });

  it("a command redirecting into a steering file is held; other commands run as before", () => {
    expect(evaluate(cmd("echo hi > AGENTS.md"), policyOf(), untrusted())).toMatchObject({ behavior: "ask" });
    expect(evaluate(cmd("make test > out.log"), policyOf(), untrusted()).behavior).toBe("allow");
  });

  it("a secret is filled in only by a call an allow rule lets through", () => {
    const command = cmd('deploy --token "<secret>deploy_key</secret>"');
    const secrets = { secrets: ["deploy_key"] };
    const held = evaluate(command, policyOf(), untrusted("acceptEdits", secrets));
    expect(held).toMatchObject({ behavior: "ask", decidedBy: "untrusted" });
    expect(allowRulesFor(held)).toEqual(['execute_command(deploy --token "<secret>deploy_key</secret>")']);
    expect(evaluate(command, policyOf(), trusted("acceptEdits", secrets)).behavior).toBe("allow");
    const ruled = policyOf({ allow: ["Bash(deploy:*)"] });
    expect(evaluate(command, ruled, untrusted("acceptEdits", secrets)).behavior).toBe("allow");
  });

  it("an external tool needs a rule naming it, and a domain rule for each URL in its arguments", () => {
    const call = (url: string) => ({ tool: "mcp__fetcher__get", arguments: { url } });
    const external = { externalTools: ["mcp__fetcher__get"] };
    const named = policyOf({ allow: ["mcp__fetcher", "web_fetch(domain:docs.example)"] });
    expect(evaluate(call("https://docs.example/a"), named, untrusted("acceptEdits", external)).behavior).toBe(
      "allow",
    );
    const elsewhere = evaluate(call("https://evil.example/?d=1"), named, untrusted("acceptEdits", external));
    expect(elsewhere).toMatchObject({ behavior: "ask", decidedBy: "untrusted" });
    expect(elsewhere.reason).toContain("its arguments name evil.example");
    expect(evaluate(call("https://docs.example/a"), policyOf(), untrusted("bypass", external)).behavior).toBe(
      "ask",
    );
    expect(evaluate(call("https://evil.example/"), policyOf(), trusted("bypass", external)).behavior).toBe(
      "allow",
    );
  });

  it("never lets through what a trusted run would not (property)", () => {
    const hosts = fc.constantFrom("docs.example", "evil.example", "a.docs.example");
    const rules = fc.subarray([
      "web_fetch",
      "web_fetch(domain:*.docs.example)",
      "Edit(./**)",
      "Bash(*)",
      "Edit(./AGENTS.md)",
    ]);
    const calls = fc.oneof(
      hosts.map((host) => fetchCall(`https://${host}/p`)),
      fc.constantFrom(write("AGENTS.md"), write("notes.md"), cmd("make"), cmd("echo x > CLAUDE.md")),
    );
    const modes = fc.constantFrom<PermissionMode>("default", "acceptEdits", "dontAsk", "bypass");
    fc.assert(
      fc.property(calls, rules, modes, (call, allow, mode) => {
        const policy = policyOf({ allow });
        const before = evaluate(call, policy, trusted(mode)).behavior;
        const after = evaluate(call, policy, untrusted(mode)).behavior;
        if (before !== "allow") expect(after).toBe(before);
      }),
    );
  });
});
