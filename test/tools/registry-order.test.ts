// Tool order by use: specs(order) puts the named tools first, the rest after in registration
// order, and orderByUse turns the project's statistics into that order.
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { orderByUse, type ToolDefinition, ToolRegistry } from "../../src/tools/index.js";

const tool = (name: string): ToolDefinition => ({
  name,
  description: `the ${name} tool`,
  parameters: Type.Object({}),
  readOnly: true,
  execute: async () => ({ content: name }),
});

function registry(): ToolRegistry {
  const r = new ToolRegistry();
  for (const name of ["list_files", "read_file", "write_file", "grep", "execute_command"])
    r.register(tool(name));
  return r;
}

describe("tool order", () => {
  it("specs() without an order is registration order", () => {
    expect(
      registry()
        .specs()
        .map((s) => s.name),
    ).toEqual(["list_files", "read_file", "write_file", "grep", "execute_command"]);
    expect(
      registry()
        .specs([])
        .map((s) => s.name),
    ).toEqual(
      registry()
        .specs()
        .map((s) => s.name),
    );
  });

  it("specs(order) puts the named tools first; unknown and repeated names are skipped; the rest keep registration order", () => {
    const specs = registry().specs(["grep", "gone_tool", "read_file", "grep"]);
    expect(specs.map((s) => s.name)).toEqual([
      "grep",
      "read_file",
      "list_files",
      "write_file",
      "execute_command",
    ]);
    expect(specs[0]).toEqual({ name: "grep", description: "the grep tool", parameters: Type.Object({}) });
  });

  it("orderByUse: most calls first, ties by the latest call then by name; unused tools left out", () => {
    const stats = [
      { tool: "read_file", calls: 3, lastCallAt: 10 },
      { tool: "grep", calls: 9, lastCallAt: 1 },
      { tool: "write_file", calls: 3, lastCallAt: 20 },
      { tool: "edit_file", calls: 3, lastCallAt: 20 },
      { tool: "glob", calls: 0, lastCallAt: null },
    ];
    const order = orderByUse(stats);
    expect(order).toEqual(["grep", "edit_file", "write_file", "read_file"]);
    expect(stats[0]?.tool).toBe("read_file"); // the input is not reordered
    expect(
      registry()
        .specs(order)
        .map((s) => s.name),
    ).toEqual(["grep", "write_file", "read_file", "list_files", "execute_command"]);
  });

  it("the same statistics give the same order every time (prompt caches keep hitting)", () => {
    const stats = [
      { tool: "b", calls: 1, lastCallAt: 5 },
      { tool: "a", calls: 1, lastCallAt: 5 },
    ];
    expect(orderByUse(stats)).toEqual(["a", "b"]);
    expect(orderByUse([...stats].reverse())).toEqual(["a", "b"]);
  });
});
