// The workspace module: a root folder and the only way tools touch files or run commands,
// through the path sandbox, with a scrubbed environment for commands.
export type { CommandOptions, CommandResult, CommandSandbox } from "./command.js";
export { DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_MAX_OUTPUT_BYTES } from "./command.js";
export { CompiledPythonFiles, type CompiledRemoval } from "./compiled-python.js";
export type { DiskLimitHit } from "./disk-watch.js";
export { isSecretName, scrubEnvironment } from "./environment.js";
export { PRIVATE_WRITABLE_DIRS } from "./exec-sandbox/bwrap-args.js";
export { livePlaceholders } from "./exec-sandbox/placeholder-registry.js";
export type {
  ProbeOptions,
  SandboxFacts,
  SandboxLevel,
  SandboxProblem,
  SandboxStatus,
} from "./exec-sandbox/probe.js";
export { probeSandbox } from "./exec-sandbox/probe.js";
export { readRegular } from "./fd-ops.js";
export {
  admitDirectory,
  IGNORE_FILES,
  type IgnoreLayer,
  isIgnored,
  isIgnoredEntry,
  loadIgnoreLayer,
  loadIgnoreLayerSync,
  patternLayer,
} from "./ignore-rules.js";
export { type NestedRepositories, TOOL_FOLDERS } from "./nested-repositories.js";
export { makeFolderWithin, type PlacedEntry, placeWithin } from "./place-within.js";
export type { CommandLimits, NetworkPolicy, PolicyOptions, WorkspacePolicy } from "./policy.js";
export { DEFAULT_COMMAND_LIMITS, withProtectedKinds, workspacePolicy } from "./policy.js";
export { type ChildOptions, endChildren, spawnChild } from "./processes.js";
export {
  coversPath,
  DEFAULT_PROTECTED_KINDS,
  entriesOfKinds,
  installedEntry,
  miseEnvironmentConfigs,
  PROTECTED_LIST,
  type ProtectedEntry,
  type ProtectedKind,
  protectedEntryOf,
  UNTRUSTED_PROTECTED_KINDS,
} from "./protected-list.js";
export { nestedProtectedEntry, type ProtectedTarget, protectedTargets } from "./protected-targets.js";
export { flushFileSystem, WorkspaceRestorer } from "./restore-ops.js";
export type { RootPlaces, RootRisk } from "./root-risk.js";
export { realPathOf, WORKSPACES_DIR, workspaceRootRisk } from "./root-risk.js";
export type { ResolvedPath } from "./sandbox.js";
export type { SearchEngine, SearchMatch, SearchResult } from "./search.js";
export { STEERING_FILES, STEERING_FOLDERS, steeringEntry, steeringUnit } from "./steering-paths.js";
export type { WalkResult } from "./walk.js";
export { Workspace } from "./workspace.js";
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
  TextFileChannel,
  WalkCallOptions,
  WorkspaceOptions,
  WriteResult,
} from "./workspace-types.js";
export { DEFAULT_MAX_READ_BYTES } from "./workspace-types.js";
