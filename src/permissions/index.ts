// Public surface of the permissions module: the pure rule engine (rules, modes, evaluate),
// the settings loader, and the policy description for `/permissions`.
export { commandOnlyReads } from "./actions.js";
export { commandPatternRegex, exactCommandPattern } from "./command-pattern.js";
export { evaluate } from "./evaluate.js";
export {
  type DecisionRecord,
  type PermissionAnswer,
  PermissionGate,
  type PermissionGateOptions,
  type PermissionPrompt,
  type SessionGrant,
  sessionGrant,
} from "./gate.js";
export {
  HOME_PROTECTED_DIRS,
  HOME_PROTECTED_FILES,
  protectedPathReason,
  workspaceProtectedEntry,
} from "./guards.js";
export { type OfferOptions, parseMode, toolsOfferedInMode } from "./modes.js";
export { allowRulesFor, narrowAllowRule } from "./narrow-rule.js";
export {
  type CreatePolicyOptions,
  createPolicy,
  describeHeld,
  describePolicy,
  type PolicySource,
} from "./policy.js";
export {
  grantProject,
  PROJECT_GRANTS_FILE,
  type ProjectGrants,
  projectGrants,
  projectGrantsPath,
} from "./project-grants.js";
export { isReadOnlyCommand } from "./read-only-commands.js";
export { type ParsedRule, parseRule, ruleSourceLabel } from "./rule.js";
export {
  defaultUserHome,
  type LoadPermissionSettingsOptions,
  loadPermissionSettings,
  type PermissionFlags,
  realRoot,
  settingsFiles,
} from "./settings.js";
export { type ParsedCommandLine, parseCommandLine } from "./shell-parse.js";
export { approveTemplateSettings } from "./template-grants.js";
export { CLAUDE_TOOL_NAMES, KNOWN_TOOLS, READ_ONLY_TOOLS, WRITE_TOOLS } from "./tool-names.js";
export * from "./types.js";
