// The MCP module: server definitions (reson config and a project's .mcp.json) and their
// approval, connections to servers over stdio and HTTP, their tools as reson tools, and the
// tool search that keeps large tool sets out of the context.
export {
  type ApprovalState,
  approvalState,
  approve,
  definitionHash,
  MCP_APPROVALS_FILE,
} from "./approval.js";
export type {
  McpCallOptions,
  McpCallResult,
  McpConnection,
  McpContent,
  McpProgress,
  McpPromptInfo,
  McpResourceContents,
  McpResourceInfo,
  McpStatus,
  McpToolInfo,
} from "./connection.js";
export { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_STARTUP_TIMEOUT_MS } from "./connection.js";
export type { McpScope, McpServerEntry } from "./definitions.js";
export { mcpServerEntries, PROJECT_MCP_FILE, readProjectMcpFile } from "./definitions.js";
export { expandServer } from "./expand.js";
export type { Authorize } from "./oauth.js";
export { FileOAuthProvider, oauthFile, waitForCallback } from "./oauth.js";
export { openSdkConnection } from "./open-connection.js";
export { type PluginMcpSource, pluginServerEntries } from "./plugin-servers.js";
export type { ProjectServerReview, SelectServersOptions, ServerSelection } from "./project-approval.js";
export { selectServers } from "./project-approval.js";
export type { McpPromptCommand } from "./prompts.js";
export { promptArguments } from "./prompts.js";
export { READ_RESOURCE } from "./resource-tool.js";
export { toolSchemaTokens, toolsSchemaTokens } from "./schema-size.js";
export type { SdkConnection } from "./sdk-connection.js";
export { type ServerFiles, serverFiles } from "./server-files.js";
export type { StartedServer, StartServersOptions } from "./servers.js";
export { McpServers } from "./servers.js";
export { MAX_TOOL_NAME_CHARS, mcpToolName } from "./tool-name.js";
export type { ToolOffer, ToolOfferDecision } from "./tool-search.js";
export { searchTools, TOOL_SEARCH, toolOffer } from "./tool-search.js";
