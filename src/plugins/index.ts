// Public surface of the plugins module: Agent Plugins packages with reson's tools and hooks.
export type {
  PluginApi,
  PluginCommandResult,
  PluginEventListener,
  PluginHook,
  PluginHookName,
  PluginSetup,
  PluginTool,
  PluginToolContext,
  PluginToolParameters,
} from "./api.js";
export { definePlugin } from "./api.js";
export {
  type DiscoveredPlugins,
  type DiscoverPluginsOptions,
  discoverPlugins,
  type UntrustedPlugin,
} from "./discover.js";
export {
  type AddedPlugin,
  type AddPluginOptions,
  addPlugin,
  findPlugin,
  type PluginChangeOptions,
  type PluginPlaces,
  pluginNeedsTrust,
  pluginPrefix,
  type RemovedPlugin,
  removePlugin,
  setPluginEnabled,
  trustRegisteredPlugin,
  updatablePlugins,
} from "./install.js";
export { type ListedPlugin, listPlugins, type PluginList, type PluginStatus } from "./install-list.js";
export { findNpm, type NpmCommand } from "./install-npm.js";
export { type PluginSpec, parsePluginSpec } from "./install-spec.js";
export type { LoadedPlugin, LoadedPlugins, LoadPluginsOptions } from "./load-plugins.js";
export { type PluginManifest, RESON_EXTENSION, readPluginManifest } from "./manifest.js";
export {
  PLUGINS_FILE,
  type PluginRecord,
  type RegistryRead,
  readRegistry,
  registryPath,
  userPluginsDir,
  writeRegistry,
} from "./registry-file.js";
export {
  loadDiscovered,
  type PluginHost,
  pluginSkillFolders,
  pluginsForRun,
  type RunPlugins,
  type RunPluginsOptions,
  withPlugins,
} from "./run-plugins.js";
export { isPluginTrusted, PLUGIN_TRUST_FILE, pluginHash, trustPlugin } from "./trust.js";
export type { InstalledPlugin, PluginScope } from "./types.js";
