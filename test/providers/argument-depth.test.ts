// Tool arguments nested too deep to copy are dropped from the reply the run keeps, and only
// there: the wire's own message is left as it came (a new message is made, its other blocks shared).
import type { AssistantMessage } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { flattenDeepArguments, MAX_ARGUMENT_DEPTH } from "../../src/providers/argument-depth.js";

function nested(depth: number): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

function reply(...args: Record<string, unknown>[]): AssistantMessage {
  return {
    role: "assistant",
    content: [
      { type: "text", text: "calling" },
      ...args.map((a, i) => ({
        type: "toolCall" as const,
        id: `call_${i}`,
        name: "write_file",
        arguments: a,
      })),
    ],
    api: "openai-completions",
    provider: "openai-compatible",
    model: "fake-model",
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "toolUse",
    timestamp: 0,
  };
}

describe("arguments nested too deep", () => {
  it("are {} with why in the message returned, and left as they came in the wire's message", () => {
    const deep = { path: nested(MAX_ARGUMENT_DEPTH + 10) };
    const shallow = { path: "a.txt", lines: [[["three deep"]]] };
    const wire = reply(deep, shallow);
    const before = structuredClone(wire);

    const kept = flattenDeepArguments(wire);

    expect(wire).toEqual(before);
    expect(wire.content[1]).toMatchObject({ arguments: deep });
    expect(kept.content[1]).toMatchObject({
      id: "call_0",
      arguments: {},
      rawArguments: `(arguments nested more than ${MAX_ARGUMENT_DEPTH} levels deep, not kept)`,
    });
    expect(kept.content[2]).toMatchObject({ arguments: shallow });
    expect(kept.content[0]).toEqual({ type: "text", text: "calling" });
  });

  it("leave a message with none as it is", () => {
    const wire = reply({ path: "a.txt" });
    expect(flattenDeepArguments(wire)).toBe(wire);
  });
});
