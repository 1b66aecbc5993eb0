// The workspaces module: registered folders by name, the default workspace, templates. Above
// the store (where registrations are kept) and the workspace sandbox (which says which folders
// may be one); the CLI and `reson serve` use it.
export { deletionRefusal } from "./deletion.js";
export {
  type CreatedWorkspace,
  type CreateWorkspaceInput,
  DEFAULT_TEMPLATE,
  DEFAULT_WORKSPACE_NAME,
  type RemoveOptions,
  type ResolvedWorkspace,
  rootHolding,
  WorkspaceManager,
  type WorkspaceManagerOptions,
} from "./manager.js";
export { assertWorkspaceName, looksLikeWorkspaceId, WORKSPACE_ID_PREFIX } from "./names.js";
export { changedSettings, type SettingsChange } from "./settings.js";
export { BUILTIN_TEMPLATES, listTemplates, type TemplateInfo, userTemplatesDir } from "./templates.js";
