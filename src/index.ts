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
export { matchUrlPattern } from "./core/url-pattern.js";
export type { RunLimits, Usage } from "./core/usage.js";
export {
  definePlugin,
  type PluginApi,
  type PluginCommandResult,
  type PluginEventListener,
  type PluginHookName,
  type PluginSetup,
  type PluginTool,
  type PluginToolContext,
} from "./plugins/index.js";
export type { ProviderName } from "./providers/index.js";
export { SecretVault } from "./secrets/index.js";
export type {
  AskHuman,
  FileChange,
  HumanQuestion,
  PreviewContext,
  ToolContext,
  ToolDefinition,
  ToolOutput,
  ToolPreview,
  ToolResult,
} from "./tools/index.js";
export { probeSandbox, type SandboxStatus } from "./workspace/index.js";
