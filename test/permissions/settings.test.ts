import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createPolicy,
  describePolicy,
  evaluate,
  grantProject,
  loadPermissionSettings,
  realRoot,
  toolsOfferedInMode,
} from "../../src/permissions/index.js";
import { cmd, HOME } from "./support.js";

let dir: string;
let workspaceRoot: string;
let home: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "reson-perm-"));
  workspaceRoot = join(dir, "proj");
  home = join(dir, "reson-home");
  mkdirSync(join(workspaceRoot, ".reson"), { recursive: true });
  mkdirSync(home, { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function settings(path: string, permissions: unknown): void {
  writeFileSync(path, `${JSON.stringify({ permissions }, null, 2)}\n`);
}

describe("permission settings", () => {
  it("merges flags, local, project and user files, each rule keeping its source", async () => {
    settings(join(home, "settings.json"), { allow: ["Bash(make)"], defaultMode: "acceptEdits" });
    settings(join(workspaceRoot, ".reson", "settings.json"), {
      deny: ["Bash(git push *)"],
      defaultMode: "plan",
    });
    settings(join(workspaceRoot, ".reson", "settings.local.json"), { ask: ["Bash(npm publish)"] });
    const policy = await loadPermissionSettings({
      workspaceRoot,
      home,
      flags: { allow: ["Bash(git push *)"] },
    });
    expect(policy.rules.map((r) => [r.text, r.list, r.source.kind])).toEqual([
      ["Bash(git push *)", "allow", "flags"],
      ["Bash(npm publish)", "ask", "local"],
      ["Bash(git push *)", "deny", "project"],
      ["Bash(make)", "allow", "user"],
    ]);
    expect(policy.mode).toBe("plan");
    expect(policy.modeSource).toBe(join(workspaceRoot, ".reson", "settings.json"));
    const ctx = { workspaceRoot, userHome: HOME, mode: "default" as const };
    expect(evaluate(cmd("git push origin"), policy, ctx).rule?.source).toBe(
      `${join(workspaceRoot, ".reson", "settings.json")}:4`,
    );
    const described = describePolicy(policy);
    expect(described).toContain("Mode: plan");
    expect(described).toMatch(/Bash\(make\)\s+.*reson-home\/settings\.json:4/);
  });

  it("a flag mode wins over every file", async () => {
    settings(join(workspaceRoot, ".reson", "settings.json"), { defaultMode: "plan" });
    const policy = await loadPermissionSettings({ workspaceRoot, home, flags: { mode: "dontAsk" } });
    expect([policy.mode, policy.modeSource]).toEqual(["dontAsk", "flags"]);
  });

  it("warns, naming file and line, about rules it cannot use", async () => {
    const file = join(workspaceRoot, ".reson", "settings.json");
    settings(file, {
      allow: ["Bash(npm test)", "WebSearch(query:x)", "Frobnicate", "Bash(", 42, "mcp__*"],
      deny: ["Bash()"],
      defaultMode: "yolo",
      additionalDirectories: ["../x"],
    });
    // Approved on this machine, as a workspace file's allow rules must be to apply.
    await grantProject(home, realRoot(workspaceRoot), { allow: ["Bash(npm test)", "Frobnicate"] });
    const policy = await loadPermissionSettings({ workspaceRoot, home });
    const warnings = policy.warnings.map((w) => `${w.line}: ${w.message}`);
    expect(policy.warnings.every((w) => w.source === file)).toBe(true);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^5: .*WebSearch.*Claude Code tool/),
        expect.stringMatching(/^6: .*unknown tool "Frobnicate"/),
        expect.stringMatching(/^7: cannot parse rule "Bash\("/),
        expect.stringMatching(/must be a string, got 42/),
        expect.stringMatching(/^9: .*glob the tool name only after mcp__server__/),
        expect.stringMatching(/^12: .*empty specifier/),
        expect.stringMatching(/unknown mode "yolo"/),
        expect.stringMatching(/permissions.additionalDirectories/),
      ]),
    );
    expect(policy.rules.map((r) => r.text)).toEqual(["Bash(npm test)", "Frobnicate"]);
  });

  it("a workspace file's allow rules and a mode that asks less wait for approval; its deny rules and the user's own file apply", async () => {
    settings(join(workspaceRoot, ".reson", "settings.json"), {
      allow: ["Bash(npm test)", "Bash(curl *)"],
      deny: ["Read(.env)"],
      defaultMode: "bypass",
    });
    settings(join(workspaceRoot, ".reson", "settings.local.json"), { allow: ["Bash(make)"] });
    settings(join(home, "settings.json"), { allow: ["Bash(git diff)"] });
    const held = await loadPermissionSettings({ workspaceRoot, home });
    expect([held.mode, held.modeSource]).toEqual(["default", "built-in"]);
    expect(held.rules.map((r) => r.text)).toEqual(["Read(.env)", "Bash(git diff)"]);
    expect(held.held).toEqual([
      { file: join(workspaceRoot, ".reson", "settings.local.json"), allow: ["Bash(make)"] },
      {
        file: join(workspaceRoot, ".reson", "settings.json"),
        allow: ["Bash(npm test)", "Bash(curl *)"],
        mode: "bypass",
      },
    ]);

    await grantProject(home, realRoot(workspaceRoot), { allow: ["Bash(npm test)"], modes: ["bypass"] });
    const partly = await loadPermissionSettings({ workspaceRoot, home });
    expect(partly.mode).toBe("bypass");
    expect(partly.rules.map((r) => r.text).sort()).toEqual([
      "Bash(git diff)",
      "Bash(npm test)",
      "Read(.env)",
    ]);
    expect(partly.held?.map((h) => h.allow)).toEqual([["Bash(make)"], ["Bash(curl *)"]]);

    // Another folder's approval is not this one's; a narrowing mode needs none.
    settings(join(workspaceRoot, ".reson", "settings.json"), { defaultMode: "plan" });
    expect((await loadPermissionSettings({ workspaceRoot, home })).mode).toBe("plan");
  });

  it("warns about a file that is not JSON, with its line", async () => {
    const file = join(workspaceRoot, ".reson", "settings.local.json");
    writeFileSync(file, '{\n  "permissions": {\n    "allow": ["Bash(ls)",]\n  }\n}\n');
    const policy = await loadPermissionSettings({ workspaceRoot, home });
    expect(policy.warnings).toHaveLength(1);
    expect(policy.warnings[0]).toMatchObject({ source: file, line: 3 });
    expect(policy.warnings[0]?.message).toMatch(/not valid JSON/);
  });

  it("warns about a bad flag rule with the flags as source", async () => {
    const policy = await loadPermissionSettings({
      workspaceRoot,
      home,
      flags: { deny: ["Bash(rm"], mode: "nope" },
    });
    expect(policy.warnings.map((w) => w.source)).toEqual(["flags", "flags"]);
  });

  it("no files means the default mode and no rules", async () => {
    const policy = await loadPermissionSettings({ workspaceRoot, home });
    expect([policy.mode, policy.rules.length, policy.warnings.length]).toEqual(["default", 0, 0]);
  });
});

describe("tools offered", () => {
  const tools = ["read_file", "write_file", "edit_file", "execute_command", "grep", "goal", "subagent"];

  it("plan mode does not offer write tools", () => {
    expect(toolsOfferedInMode("plan", tools)).toEqual(["read_file", "execute_command", "grep", "goal"]);
  });

  it("other modes offer everything but wholly denied tools", () => {
    const policy = createPolicy([
      { source: { kind: "flags", root: "/w" }, permissions: { deny: ["Bash", "Edit(x)"] } },
    ]);
    expect(toolsOfferedInMode("default", tools, { policy })).toEqual(
      tools.filter((t) => t !== "execute_command"),
    );
  });
});
