import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { McpServers } from "../../src/mcp/index.js";
import { evaluate, PermissionGate } from "../../src/permissions/index.js";
import { ToolRegistry } from "../../src/tools/index.js";
import { Workspace } from "../../src/workspace/index.js";
import { ctx, HOME, policyOf, WS } from "../permissions/support.js";
import { makeTempLayout, type TempLayout } from "../workspace/temp-dirs.js";
import { everythingStdio, testServer } from "./servers.js";

let layout: TempLayout;
let workspace: Workspace;
let servers: McpServers;
const registry = new ToolRegistry({ maxOutputChars: 2_000 });
const test1 = testServer();
let id = 0;

beforeAll(async () => {
  layout = await makeTempLayout();
  workspace = await Workspace.open(layout.root);
  servers = await McpServers.start(
    [
      {
        name: "everything",
        scope: "user",
        source: "test",
        config: { ...everythingStdio(), disabledTools: ["get-env"] },
      },
      {
        name: "test",
        scope: "user",
        source: "test",
        config: { ...test1.config, enabledTools: ["echo", "env", "wait"] },
      },
    ],
    { env: {}, cwd: layout.root, signal: new AbortController().signal },
  );
  for (const tool of servers.tools()) registry.register(tool);
}, 60_000);

afterAll(async () => {
  await servers.close();
  test1.remove();
});

function call(name: string, args: Record<string, unknown>) {
  id += 1;
  return registry.execute(
    { id: `c${id}`, name, arguments: args },
    { workspace, signal: new AbortController().signal, runId: "run", toolCallId: `c${id}` },
  );
}

describe("MCP tools in the registry", () => {
  test("are named mcp__server__tool, filtered by enabledTools and disabledTools", () => {
    const names = registry.specs().map((s) => s.name);
    expect(names).toContain("mcp__everything__echo");
    expect(names).toContain("mcp__everything__trigger-long-running-operation");
    expect(names).not.toContain("mcp__everything__get-env");
    expect(names.filter((n) => n.startsWith("mcp__test__")).sort()).toEqual([
      "mcp__test__echo",
      "mcp__test__env",
      "mcp__test__wait",
    ]);
  });

  test("a call is validated against the server's JSON Schema before it is sent", async () => {
    const result = await call("mcp__everything__get-sum", { a: "three" });
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe("tool_invalid_arguments");
    expect(result.error?.message).toContain("b: missing (required)");
  });

  test("a valid call returns the server's text with a short line kept for history", async () => {
    const result = await call("mcp__everything__get-sum", { a: 2, b: 3 });
    expect(result.ok).toBe(true);
    expect(result.content).toContain("5");
    expect(result.longTermMemory).toContain("mcp__everything__get-sum returned");
  });

  test("images and resource links come back by reference, not as bytes", async () => {
    const image = await call("mcp__everything__get-tiny-image", {});
    expect(image.content).toMatch(/\[image image\/png, [\d.]+ (bytes|kB): not shown\]/);
    expect(image.content).not.toMatch(/[A-Za-z0-9+/]{200}/);
    const links = await call("mcp__everything__get-resource-links", { count: 2 });
    expect(links.content).toContain("read it with read_resource");
  });

  test("the server's environment holds only the safe defaults and what the definition gives", async () => {
    process.env.RESON_TEST_LEAK = "should-not-reach-the-server";
    try {
      const leaked = await call("mcp__test__env", { name: "RESON_TEST_LEAK" });
      expect(leaked.content).toBe("");
      const path = await call("mcp__test__env", { name: "PATH" });
      expect(path.content).not.toBe("");
    } finally {
      delete process.env.RESON_TEST_LEAK;
    }
  });
});

describe("permission rules by MCP names", () => {
  const mcpCall = (tool: string) => ({ tool, arguments: {} });

  test("mcp__server covers every tool of the server, mcp__server__tool one tool", () => {
    expect(
      evaluate(mcpCall("mcp__github__create_issue"), policyOf({ deny: ["mcp__github"] }), ctx("bypass"))
        .behavior,
    ).toBe("deny");
    expect(
      evaluate(mcpCall("mcp__gitlab__create_issue"), policyOf({ deny: ["mcp__github"] }), ctx("bypass"))
        .behavior,
    ).toBe("allow");
    expect(
      evaluate(mcpCall("mcp__github__create_issue"), policyOf({ allow: ["mcp__github"] }), ctx()).behavior,
    ).toBe("allow");
    expect(
      evaluate(mcpCall("mcp__github__delete_repo"), policyOf({ allow: ["mcp__github__create_issue"] }), ctx())
        .behavior,
    ).toBe("ask");
    expect(
      evaluate(mcpCall("mcp__github__delete_repo"), policyOf({ allow: ["mcp__github__*"] }), ctx()).behavior,
    ).toBe("allow");
  });

  test("an MCP tool's readOnlyHint does not spare the approval a headless run cannot give", async () => {
    const tool = registry.get("mcp__everything__echo");
    expect(tool?.readOnly).toBe(true);
    const gate = new PermissionGate({
      policy: { ...policyOf(), mode: "acceptEdits" },
      workspaceRoot: WS,
      userHome: HOME,
      home: "/nonexistent",
    });
    const decision = await gate
      .hooks()
      .beforeToolCall?.(
        { id: "c1", name: "mcp__everything__echo", arguments: { message: "x" } },
        { tool, runId: "run", step: 1, signal: new AbortController().signal },
      );
    expect(decision?.action).toBe("deny");
    const allowed = new PermissionGate({
      policy: { ...policyOf({ allow: ["mcp__everything"] }), mode: "acceptEdits" },
      workspaceRoot: WS,
      userHome: HOME,
      home: "/nonexistent",
    });
    const ok = await allowed
      .hooks()
      .beforeToolCall?.(
        { id: "c2", name: "mcp__everything__echo", arguments: { message: "x" } },
        { tool, runId: "run", step: 1, signal: new AbortController().signal },
      );
    expect(ok?.action).toBe("allow");
  });
});
