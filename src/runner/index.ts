// The run orchestrator shared by the terminal, `reson serve`, `reson worker` and `reson acp`: what a run is
// to be (its spec), the permission gate and sandbox in front of its tools, and the agent that
// starts or resumes it (Agent.run / Agent.resume: the same code for every host).
export { agentForSpec, type SpecAgent, type SpecAgentOptions, specAgent } from "./agent-for-spec.js";
export {
  approveProjectServer,
  decideMcpOffer,
  type McpSetup,
  type McpSetupOptions,
  mcpLogFile,
  startMcp,
  terminalAuthorize,
  userAllowedProjectServers,
  withMcpOffer,
} from "./mcp-setup.js";
export {
  gateOptions,
  loadGate,
  loadPolicy,
  type PermissionFlagArgs,
  type SandboxSetup,
  sandboxSetup,
} from "./permission-setup.js";
export { type RunExtensions, type RunExtensionsOptions, startRunExtensions } from "./run-extensions.js";
export {
  type ChannelMessage,
  ChannelMessageSchema,
  RunSettingsFields,
  type RunSpec,
  RunSpecSchema,
} from "./run-spec.js";
