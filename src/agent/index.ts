// Public surface of the agent module: the loop, its hooks, and createAgent.
export {
  Agent,
  type AgentOptions,
  createAgent,
  findTrace,
  openDefaultStore,
  type RunOptions,
} from "./agent.js";
export type { AgentHooks, HookInfo, ToolCallDecision, ToolCallInfo } from "./hooks.js";
export type { LoopSnapshot } from "./recorder.js";
export type { LoopLimits, RunResult } from "./types.js";
export { type WorkspaceStanding, workspaceStanding } from "./workspace-trust.js";
