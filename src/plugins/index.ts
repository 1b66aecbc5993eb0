// Public surface of the plugins module: Agent Plugins packages with reson's tools and hooks.
export { type PluginManifest, RESON_EXTENSION, readPluginManifest } from "./manifest.js";
export type { InstalledPlugin, PluginScope } from "./types.js";
