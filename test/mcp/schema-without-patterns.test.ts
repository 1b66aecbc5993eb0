// An MCP server's schema is checked without its regular expressions: a server's `^(a+)+$` cannot
// stall the loop on one argument, and what the patterns allowed is never refused.
import { describe, expect, it } from "vitest";
import type { McpConnection } from "../../src/mcp/connection.js";
import { mcpToolDefinition } from "../../src/mcp/mcp-tool.js";
import { schemaWithoutPatterns } from "../../src/mcp/schema-without-patterns.js";
import { validateArguments } from "../../src/tools/validation.js";

const EVIL = "^(a+)+$";

describe("schemaWithoutPatterns", () => {
  it("drops pattern keywords at every depth and keeps a property named pattern", () => {
    const schema = {
      type: "object",
      properties: {
        pattern: { type: "string", pattern: EVIL },
        list: { type: "array", items: { type: "string", pattern: EVIL } },
        either: { anyOf: [{ type: "string", pattern: EVIL }, { type: "number" }] },
        map: {
          type: "object",
          patternProperties: { [EVIL]: { type: "string" } },
          additionalProperties: false,
        },
      },
      required: ["pattern"],
      $defs: { name: { type: "string", pattern: EVIL } },
    };
    expect(schemaWithoutPatterns(schema)).toEqual({
      type: "object",
      properties: {
        pattern: { type: "string" },
        list: { type: "array", items: { type: "string" } },
        either: { anyOf: [{ type: "string" }, { type: "number" }] },
        map: { type: "object" },
      },
      required: ["pattern"],
      $defs: { name: { type: "string" } },
    });
    // The server's schema itself is untouched.
    expect(schema.properties.pattern.pattern).toBe(EVIL);
  });

  it("checks an MCP tool's arguments without the server's regular expressions, and shows the model the whole schema", () => {
    const tool = mcpToolDefinition({
      name: "mcp__evil__lookup",
      server: "evil",
      secretScopeUrl: "mcp://evil",
      // Never called: only the definition's schemas are looked at.
      connection: {} as McpConnection,
      info: {
        name: "lookup",
        description: "Looks a name up.",
        inputSchema: {
          type: "object",
          properties: { name: { type: "string", pattern: EVIL }, count: { type: "integer" } },
          required: ["name"],
        },
        readOnlyHint: true,
      },
    });
    expect(JSON.stringify(tool.parameters)).toContain(EVIL);
    // With the pattern this would backtrack for minutes (2^40 steps).
    const checked = validateArguments(tool.name, tool.checkedParameters!, { name: `${"a".repeat(40)}b` });
    expect(checked.ok).toBe(true);
    // The rest of the schema still holds.
    const wrong = validateArguments(tool.name, tool.checkedParameters!, { count: "three" });
    expect(wrong.ok).toBe(false);
  });
});
