// The only extension points of the loop: transformContext, beforeToolCall, afterToolCall.
// Hooks run in order of registration; each sees what the previous one produced.
import type { UntrustedSource } from "../core/events.js";
import type { ChatRequest } from "../providers/index.js";
import type { ToolCallRequest, ToolDefinition, ToolPreview, ToolResult } from "../tools/index.js";

export interface HookInfo {
  runId: string;
  step: number;
  signal: AbortSignal;
  /** Set once the run has read untrusted content: the reads that made it so. */
  untrusted?: readonly UntrustedSource[];
}

/**
 * `record`: why, for the trace (e.g. which permission rule from which file decided). A deny's
 * `hint` says what would let the call through; it goes with the reason to the model and the user.
 */
export type ToolCallDecision =
  | { action: "allow"; record?: Record<string, unknown> | object }
  | { action: "deny"; reason: string; hint?: string; record?: Record<string, unknown> | object }
  | { action: "modify"; arguments: Record<string, unknown>; record?: Record<string, unknown> | object };

export interface ToolCallInfo extends HookInfo {
  /** Undefined when the model named a tool that does not exist. */
  tool: ToolDefinition | undefined;
  /**
   * What the call would change with these arguments (a file's text before and after, secret
   * values masked), computed without changing anything; undefined for a tool without a preview.
   */
  preview?: (args: Record<string, unknown>) => Promise<ToolPreview | undefined>;
  /** The user's secrets the call's arguments would fill in, by name (absent: none). */
  secrets?: readonly string[];
}

export interface AgentHooks {
  /** Sees (and may replace) exactly what is about to be sent to the model. */
  transformContext?: (request: ChatRequest, info: HookInfo) => ChatRequest | Promise<ChatRequest>;
  /** Allow, deny (the reason goes back to the model), or change the arguments. */
  beforeToolCall?: (
    call: ToolCallRequest,
    info: ToolCallInfo,
  ) => ToolCallDecision | undefined | Promise<ToolCallDecision | undefined>;
  /** May replace the result before it is recorded and shown to the model. */
  afterToolCall?: (
    call: ToolCallRequest,
    result: ToolResult,
    info: ToolCallInfo,
  ) => ToolResult | undefined | Promise<ToolResult | undefined>;
}
