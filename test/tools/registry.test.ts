import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResonError } from "../../src/core/errors.js";
import {
  historyText,
  type ToolContext,
  type ToolDefinition,
  ToolRegistry,
  type ToolResult,
  toolResultText,
  truncateOutput,
} from "../../src/tools/index.js";
import { Workspace } from "../../src/workspace/index.js";
import { makeTempLayout, type TempLayout } from "../workspace/temp-dirs.js";

let layout: TempLayout;
let workspace: Workspace;

beforeAll(async () => {
  layout = await makeTempLayout();
  workspace = await Workspace.open(layout.root);
});

afterAll(async () => {
  await layout.cleanup();
});

const echoParams = Type.Object(
  {
    text: Type.String({ description: "what to echo" }),
    times: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
    loud: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const echoTool: ToolDefinition<typeof echoParams> = {
  name: "echo",
  description: "Echoes text.",
  parameters: echoParams,
  readOnly: true,
  async execute(args) {
    const text = args.text.repeat(args.times ?? 1);
    return { content: args.loud ? text.toUpperCase() : text, longTermMemory: `echoed ${args.text}` };
  },
};

function tool(
  name: string,
  execute: ToolDefinition["execute"],
  extra: Partial<ToolDefinition> = {},
): ToolDefinition {
  return { name, description: name, parameters: Type.Object({}), readOnly: true, execute, ...extra };
}

function ctx(signal = new AbortController().signal): ToolContext {
  return { workspace, signal, runId: "run-1", toolCallId: "x" };
}

function call(registry: ToolRegistry, name: string, args: Record<string, unknown>, signal?: AbortSignal) {
  return registry.execute({ id: "call-1", name, arguments: args }, ctx(signal));
}

describe("ToolRegistry", () => {
  it("lists tools and gives the provider name, description and parameters", () => {
    const registry = new ToolRegistry().register(echoTool);
    expect(registry.list().map((t) => t.name)).toEqual(["echo"]);
    expect(registry.specs()).toEqual([{ name: "echo", description: "Echoes text.", parameters: echoParams }]);
    expect(registry.get("echo")).toBe(echoTool);
    expect(registry.get("nope")).toBeUndefined();
  });

  it("refuses a duplicate or malformed tool name", () => {
    const registry = new ToolRegistry().register(echoTool);
    expect(() => registry.register(echoTool)).toThrow(/already registered/);
    expect(() => registry.register({ ...echoTool, name: "bad name" })).toThrow(ResonError);
  });

  it("answers an unknown tool with tool_not_found listing the available names", async () => {
    const registry = new ToolRegistry()
      .register(echoTool)
      .register(tool("other", async () => ({ content: "" })));
    const result = await call(registry, "ech", {});
    expect(result).toMatchObject({ ok: false, content: "", meta: { tool: "ech", truncated: false } });
    expect(result.error?.code).toBe("tool_not_found");
    expect(result.error?.hint).toBe("Available tools: echo, other.");
  });

  it("runs a tool and returns its content, memory line and timing", async () => {
    const result = await call(new ToolRegistry().register(echoTool), "echo", { text: "hi", times: 2 });
    expect(result).toMatchObject({
      ok: true,
      content: "hihi",
      longTermMemory: "echoed hi",
      meta: { tool: "echo" },
    });
    expect(result.meta.durationMs).toBeGreaterThanOrEqual(0);
    expect(result.error).toBeUndefined();
  });

  it("coerces primitive strings the way pi-ai does", async () => {
    const result = await call(new ToolRegistry().register(echoTool), "echo", {
      text: 42,
      times: "3",
      loud: "true",
    });
    expect(result).toMatchObject({ ok: true, content: "424242" });
  });

  it("explains invalid arguments field by field, with what was received and the signature", async () => {
    const result = await call(new ToolRegistry().register(echoTool), "echo", {
      times: "many",
      colour: "red",
    });
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe("tool_invalid_arguments");
    const message = result.error?.message ?? "";
    expect(message).toContain("- colour: unknown argument");
    expect(message).toContain("- text: missing (required)");
    expect(message).toContain('- times: expected integer, received "many"');
    expect(result.error?.hint).toBe("Call it as echo(text: string, times?: integer, loud?: boolean).");
  });

  it("reports a bound violation with the received value", async () => {
    const result = await call(new ToolRegistry().register(echoTool), "echo", { text: "a", times: 9 });
    expect(result.error?.message).toContain("- times: must be <= 5, received 9");
  });

  it("refuses arguments that are not an object", async () => {
    const registry = new ToolRegistry().register(echoTool);
    const result = await registry.execute({ id: "1", name: "echo", arguments: [] as never }, ctx());
    expect(result.error?.code).toBe("tool_invalid_arguments");
  });

  it("turns a thrown ResonError into its serialized form", async () => {
    const registry = new ToolRegistry().register(
      tool("boom", async () => {
        throw new ResonError("file_not_found", "x.txt does not exist.", { hint: "Look first." });
      }),
    );
    const result = await call(registry, "boom", {});
    expect(result).toMatchObject({
      ok: false,
      content: "",
      error: { code: "file_not_found", message: "x.txt does not exist.", hint: "Look first." },
    });
  });

  it("turns any other throw into tool_failed", async () => {
    const registry = new ToolRegistry().register(
      tool("crash", async () => {
        throw new TypeError("cannot read x of undefined");
      }),
    );
    const result = await call(registry, "crash", {});
    expect(result.error).toEqual({
      code: "tool_failed",
      message: "crash failed: cannot read x of undefined",
    });
  });

  it("turns a tool that returns nothing into tool_failed", async () => {
    const registry = new ToolRegistry().register(tool("empty", async () => undefined as never));
    expect((await call(registry, "empty", {})).error?.code).toBe("tool_failed");
  });

  it("keeps the content of a failure that has output", async () => {
    const registry = new ToolRegistry().register(
      tool("fails", async () => ({
        content: "some output",
        error: new ResonError("command_failed", "exit 1"),
      })),
    );
    const result = await call(registry, "fails", {});
    expect(result).toMatchObject({ ok: false, content: "some output", error: { code: "command_failed" } });
    expect(toolResultText(result)).toBe("Error [command_failed]: exit 1\n\nsome output");
  });

  it("returns aborted without running when the signal is already aborted", async () => {
    let ran = false;
    const registry = new ToolRegistry().register(
      tool("t", async () => {
        ran = true;
        return { content: "" };
      }),
    );
    const controller = new AbortController();
    controller.abort();
    const result = await call(registry, "t", {}, controller.signal);
    expect(result.error?.code).toBe("aborted");
    expect(ran).toBe(false);
  });

  it("returns aborted as soon as the signal fires, even if the tool ignores it", async () => {
    const registry = new ToolRegistry().register(tool("hang", () => new Promise(() => {})));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const result = await call(registry, "hang", {}, controller.signal);
    expect(result).toMatchObject({ ok: false, error: { code: "aborted" } });
  });

  it("counts calls, successes, failures and time per tool", async () => {
    const registry = new ToolRegistry()
      .register(echoTool)
      .register(tool("idle", async () => ({ content: "" })));
    await call(registry, "echo", { text: "a" });
    await call(registry, "echo", { text: "b" });
    await call(registry, "echo", {});
    await call(registry, "missing", {});
    const stats = registry.stats();
    expect(stats.echo).toMatchObject({ calls: 3, successes: 2, failures: 1 });
    expect(stats.echo?.totalDurationMs).toBeGreaterThanOrEqual(0);
    expect(stats.echo?.lastCallAt).toBeTypeOf("number");
    expect(stats.idle).toEqual({ calls: 0, successes: 0, failures: 0, totalDurationMs: 0 });
    expect(stats.missing).toBeUndefined();
  });
});

describe("central truncation", () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");

  it("cuts long output at a line, says how much was cut and passes the tool's hint", async () => {
    const registry = new ToolRegistry({ maxOutputLines: 10 }).register(
      tool("long", async () => ({
        content: lines(25),
        truncationHint: (cut) => `Call long with offset=${cut.shownLines + 1}.`,
      })),
    );
    const result = await call(registry, "long", {});
    expect(result.meta.truncated).toBe(true);
    expect(result.content).toBe(
      `${lines(10)}\n\n[Output truncated: 15 more lines (120 characters) not shown. Call long with offset=11.]`,
    );
  });

  it("cuts by characters too, and inside a single huge line", () => {
    const cut = truncateOutput("x".repeat(500), { maxLines: 100, maxChars: 100 }, { hint: "More." });
    expect(cut.truncated).toBe(true);
    expect(cut.text.startsWith(`${"x".repeat(100)}\n\n[Output truncated:`)).toBe(true);
    expect(cut.text).toContain("(400 characters) not shown. More.]");
  });

  it("leaves short output alone", async () => {
    const result = await call(new ToolRegistry().register(echoTool), "echo", { text: "short" });
    expect(result.meta.truncated).toBe(false);
    expect(result.content).toBe("short");
  });

  it("keeps head and tail for tools whose end matters", async () => {
    const registry = new ToolRegistry({ maxOutputLines: 10 }).register(
      tool("cmd", async () => ({ content: lines(100) }), { truncation: "head_and_tail" }),
    );
    const result = await call(registry, "cmd", {});
    expect(result.content.startsWith(`${lines(5)}\n\n[Output truncated: 90 lines`)).toBe(true);
    expect(result.content.endsWith("line 96\nline 97\nline 98\nline 99\nline 100")).toBe(true);
  });

  it("marks a result truncated when the tool cut its own output", async () => {
    const registry = new ToolRegistry().register(
      tool("capped", async () => ({ content: "a", truncated: true })),
    );
    expect((await call(registry, "capped", {})).meta.truncated).toBe(true);
  });
});

describe("rendering results for the model", () => {
  const base = { meta: { tool: "t", durationMs: 1, truncated: false } };

  it("shows content on success and a compact error on failure", () => {
    expect(toolResultText({ ...base, ok: true, content: "done" })).toBe("done");
    expect(toolResultText({ ...base, ok: true, content: "" })).toBe("(no output)");
    const failed: ToolResult = {
      ...base,
      ok: false,
      content: "",
      error: { code: "edit_no_match", message: "old_string was not found.", hint: "Read the file again." },
    };
    expect(toolResultText(failed)).toBe(
      "Error [edit_no_match]: old_string was not found.\nHint: Read the file again.",
    );
  });

  it("shows the full output once, then only the long-term line", () => {
    const result: ToolResult = {
      ...base,
      ok: true,
      content: "a very long page",
      longTermMemory: "visited the page",
      includeOutputOnlyOnce: true,
    };
    expect(historyText(result, { firstShow: true })).toBe("a very long page");
    expect(historyText(result, { firstShow: false })).toBe("visited the page");
    const failed: ToolResult = { ...result, ok: false, error: { code: "tool_failed", message: "It broke." } };
    expect(historyText(failed, { firstShow: false })).toBe(
      "Error [tool_failed]: It broke.\nvisited the page",
    );
  });

  it("keeps the full output in history when the tool did not ask for once-only", () => {
    const result: ToolResult = { ...base, ok: true, content: "file text", longTermMemory: "read f" };
    expect(historyText(result, { firstShow: false })).toBe("file text");
  });
});
