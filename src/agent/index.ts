// Public surface of the agent module: the loop, its hooks, and createAgent.
export { Agent } from "./agent.js";
export type { AgentOptions, ResumeOptions, RunOptions } from "./agent-options.js";
export { createAgent, openDefaultStore } from "./create-agent.js";
export type { AgentHooks, HookInfo, ToolCallDecision, ToolCallInfo } from "./hooks.js";
export type { LoopSnapshot, TrustStepData } from "./recorder.js";
export { conversationTurns } from "./resume.js";
export {
  answeredRewind,
  MAX_REWIND_CHOICES,
  type RewindAnswer,
  type RewindChoice,
  type RewindOption,
  rewindChoices,
  rewindOptions,
  type ShownText,
} from "./rewind-choices.js";
export { describeRewind, rewindChangesNothing } from "./rewind-description.js";
export { type RunDiff, runDiff } from "./run-diff.js";
export { HeldLease } from "./run-lease.js";
export { findTrace, titleOf } from "./run-lookup.js";
export {
  applyRewind,
  completeInterruptedRewinds,
  conflictError,
  type PreparedRewind,
  prepareRewind,
  type RewindRequest,
  type RewindResult,
} from "./run-rewind.js";
export type { HopCheck } from "./run-state.js";
export { CHANNEL_MESSAGE_SOURCE, describeSource, UNTRUSTED_CONSEQUENCES } from "./run-trust.js";
export type { SessionCompaction, SessionExchange } from "./session-history.js";
export { recentExchanges } from "./session-history.js";
export { pruneSnapshots, type SnapshotGcReport } from "./snapshot-gc.js";
export { workspaceSnapshots } from "./step-snapshots.js";
export { SUBAGENT_TOOL } from "./subagent-tool.js";
export { assertModelTakesImages, IMAGE_TYPES, MAX_IMAGE_BYTES, taskImage } from "./task-images.js";
export type { HostEvent, LoopLimits, RunResult } from "./types.js";
export { type WorkspaceStanding, workspaceStanding } from "./workspace-trust.js";
