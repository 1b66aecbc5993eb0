// Tool arguments nested too deep to keep: a model (or a page that steers it) can send thousands
// of brackets, which JSON.parse reads but JSON.stringify, structuredClone and every recursive
// walk after it cannot (the stack runs out), so the run failed with an internal error. Such a
// call keeps {} as its arguments and says why in `rawArguments`, as invalid JSON does: the
// tool's validation answers the model, and the run goes on.
import type { AssistantMessage } from "@mariozechner/pi-ai";
import type { ToolCall } from "./types.js";

/** Deeper than any tool's schema nests; far below what a recursive walk can take. */
export const MAX_ARGUMENT_DEPTH = 64;

/** Whether `value` has objects or arrays nested more than `limit` levels deep (walked without recursion). */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    if (next.value === null || typeof next.value !== "object") continue;
    if (next.depth >= limit) return true;
    for (const child of Object.values(next.value)) stack.push({ value: child, depth: next.depth + 1 });
  }
  return false;
}

/**
 * The message with each tool call whose arguments nest too deep given {} instead: a new
 * message (the wire's own is left as it came), sharing the blocks it keeps.
 */
export function flattenDeepArguments(message: AssistantMessage): AssistantMessage {
  let flattened = false;
  const content = message.content.map((block): AssistantMessage["content"][number] => {
    if (block.type !== "toolCall" || !nestedDeeperThan(block.arguments, MAX_ARGUMENT_DEPTH)) return block;
    flattened = true;
    const call: ToolCall = {
      ...(block as ToolCall),
      arguments: {},
      rawArguments: `(arguments nested more than ${MAX_ARGUMENT_DEPTH} levels deep, not kept)`,
    };
    return call;
  });
  return flattened ? { ...message, content } : message;
}
