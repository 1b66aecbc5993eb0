// The tools module: the tool contract, the registry every call goes through (validation,
// truncation, statistics), the rendering of results for history, and the built-in tools.
export type { BuiltinToolsOptions } from "./builtin/index.js";
export {
  COMMAND_OUTPUT_BYTES,
  commandProtection,
  commandWithSecrets,
  createBuiltinTools,
  DEFAULT_READ_LIMIT,
  MAX_COMMAND_TIMEOUT_MS,
} from "./builtin/index.js";
export type {
  Goal,
  GoalChange,
  GoalRenderOptions,
  GoalStatus,
  GoalTreeJSON,
  GoalTreeOptions,
} from "./goal-tree.js";
export { GoalTree, ROOT_TITLE_CHARS } from "./goal-tree.js";
export type { ToolRegistryOptions } from "./registry.js";
export { orderByUse, ToolRegistry } from "./registry.js";
export type { HistoryTextOptions } from "./render.js";
export { errorText, historyText, toolResultText } from "./render.js";
export type { TruncatedText, TruncateOptions, TruncationLimits } from "./truncate.js";
export { DEFAULT_TRUNCATION_LIMITS, truncateOutput } from "./truncate.js";
export type {
  ArtifactMeta,
  ArtifactPage,
  AskHuman,
  FileChange,
  Hop,
  HumanQuestion,
  PreviewContext,
  SecretAccess,
  SecretSubstitution,
  ToolCallRequest,
  ToolContext,
  ToolDefinition,
  ToolOutput,
  ToolPreview,
  ToolResult,
  ToolResultMeta,
  ToolSpec,
  ToolStats,
  TruncationInfo,
  TruncationMode,
} from "./types.js";
export type { ValidationOutcome } from "./validation.js";
export { describeArguments, validateArguments } from "./validation.js";
