// The workspace module: a root folder and the only way tools touch files or run commands,
// through the path sandbox, with a scrubbed environment for commands.
export type { CommandOptions, CommandResult, CommandSandbox } from "./command.js";
export { DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_MAX_OUTPUT_BYTES } from "./command.js";
export { isSecretName, scrubEnvironment } from "./environment.js";
export { PRIVATE_WRITABLE_DIRS } from "./exec-sandbox/bwrap-args.js";
export type {
  ProbeOptions,
  SandboxFacts,
  SandboxLevel,
  SandboxProblem,
  SandboxStatus,
} from "./exec-sandbox/probe.js";
export { probeSandbox } from "./exec-sandbox/probe.js";
export { makeFolderWithin, type PlacedEntry, placeWithin } from "./place-within.js";
export type { CommandLimits, NetworkPolicy, PolicyOptions, WorkspacePolicy } from "./policy.js";
export { DEFAULT_COMMAND_LIMITS, DEFAULT_PROTECTED, workspacePolicy } from "./policy.js";
export { type ChildOptions, endChildren, spawnChild } from "./processes.js";
export type { RootPlaces, RootRisk } from "./root-risk.js";
export { realPathOf, WORKSPACES_DIR, workspaceRootRisk } from "./root-risk.js";
export type { ResolvedPath } from "./sandbox.js";
export type { SearchEngine, SearchMatch, SearchResult } from "./search.js";
export { STEERING_FILES, STEERING_FOLDERS, steeringEntry, steeringProtection } from "./steering-paths.js";
export type { WalkResult } from "./walk.js";
export type {
  DirEntry,
  EntryKind,
  GlobOptions,
  GlobResult,
  PathInfo,
  ReadTextOptions,
  SearchOptions,
  SignalOption,
  TextFile,
  WalkCallOptions,
  WorkspaceOptions,
  WriteResult,
} from "./workspace.js";
export { DEFAULT_MAX_READ_BYTES, Workspace } from "./workspace.js";
