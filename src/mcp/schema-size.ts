// How much of the context a set of tools takes: the tokens of what the provider is sent for
// each (name, description, JSON Schema), estimated the way the context budget is.
import { estimateTokens } from "../core/tokens.js";
import type { ToolDefinition } from "../tools/index.js";

export function toolSchemaTokens(tool: Pick<ToolDefinition, "name" | "description" | "parameters">): number {
  return estimateTokens(
    JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters }),
  );
}

export function toolsSchemaTokens(tools: readonly ToolDefinition[]): number {
  return tools.reduce((sum, tool) => sum + toolSchemaTokens(tool), 0);
}
