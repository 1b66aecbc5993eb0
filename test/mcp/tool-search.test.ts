import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { McpServers, TOOL_SEARCH, toolOffer, toolsSchemaTokens } from "../../src/mcp/index.js";
import type { ToolDefinition } from "../../src/tools/index.js";
import { Workspace } from "../../src/workspace/index.js";
import { makeTempLayout } from "../workspace/temp-dirs.js";
import { testServer } from "./servers.js";

const server = testServer({ MCP_TEST_MANY: "60" });
let servers: McpServers;
let tools: ToolDefinition[];

beforeAll(async () => {
  servers = await McpServers.start([{ name: "many", scope: "user", source: "test", config: server.config }], {
    env: {},
    cwd: process.cwd(),
    signal: new AbortController().signal,
  });
  tools = servers.tools();
}, 60_000);
afterAll(async () => {
  await servers.close();
  server.remove();
});

describe("tool search for a server of many tools", () => {
  test("over the share of the budget, MCP tools are deferred behind tool_search; the decision holds for the session", () => {
    const offer = toolOffer(tools, 0.1);
    const schemaTokens = toolsSchemaTokens(tools);
    expect(offer.decide(schemaTokens * 5)).toMatchObject({ deferred: true });
    expect(offer.offered("mcp__many__filler_1")).toBe(false);
    expect(offer.offered(TOOL_SEARCH)).toBe(true);
    expect(offer.offered("read_file")).toBe(true);
    // A later, larger budget does not change what is offered (prompt caches keep hitting).
    expect(offer.decide(schemaTokens * 100).deferred).toBe(true);
  });

  test("under the share, every MCP tool is offered and tool_search is not", () => {
    const offer = toolOffer(tools, 0.1);
    expect(offer.decide(toolsSchemaTokens(tools) * 20).deferred).toBe(false);
    expect(offer.offered("mcp__many__filler_1")).toBe(true);
    expect(offer.offered(TOOL_SEARCH)).toBe(false);
  });

  test("tool_search lists every tool by name in its description and answers with full schemas", async () => {
    const offer = toolOffer(tools, 0.1);
    expect(offer.searchTool.description).toContain("- mcp__many__filler_59: Filler tool number 59");
    expect(offer.searchTool.description.length).toBeLessThan(toolsSchemaTokens(tools) * 4);
    const layout = await makeTempLayout();
    const ctx = {
      workspace: await Workspace.open(layout.root),
      signal: new AbortController().signal,
      runId: "r",
      toolCallId: "c",
    };
    const byName = await offer.searchTool.execute(
      { query: "select:mcp__many__filler_7,mcp__many__echo" },
      ctx,
    );
    const lines = byName.content
      .split("\n")
      .slice(1)
      .map((l) => JSON.parse(l));
    expect(lines.map((l: { name: string }) => l.name).sort()).toEqual([
      "mcp__many__echo",
      "mcp__many__filler_7",
    ]);
    expect(lines[0].parameters.properties).toBeDefined();
    const byWords = await offer.searchTool.execute({ query: "environment variable", limit: 2 }, ctx);
    expect(byWords.content).toContain("mcp__many__env");
  });
});
