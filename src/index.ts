// The reson library: `import { createAgent } from "reson"` runs the same loop as the CLI.

export type { ToolCallDecision } from "./agent/index.js";
export {
  Agent,
  type AgentHooks,
  type AgentOptions,
  createAgent,
  type RunOptions,
  type RunResult,
} from "./agent/index.js";
export { type ErrorCode, ResonError, type SerializedError } from "./core/errors.js";
export type { ResonEvent, ResonEventType, RunStatus } from "./core/events.js";
export type { Usage } from "./core/usage.js";
export type { ProviderName } from "./providers/index.js";
export type { ToolContext, ToolDefinition, ToolOutput, ToolResult } from "./tools/index.js";
