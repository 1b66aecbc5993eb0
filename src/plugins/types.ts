// What reson knows of a plugin before it loads any of its code: where it lies, at which scope,
// where it came from, and whether the user wants it.
export type PluginScope = "user" | "project";

export interface InstalledPlugin {
  /** The name in its plugin.json (unique per scope; a project's plugin of a user plugin's name shadows it). */
  name: string;
  scope: PluginScope;
  /** The plugin's folder (absolute, real path): where plugin.json lies. */
  root: string;
  /** What `reson plugin add` was given: "npm:<spec>", or "path:<folder>". */
  source: string;
  version?: string;
  enabled: boolean;
  /** A trusted project plugin's copy of what it runs (`dir`), and its folder in it (`root`): where it loads from. */
  code?: { dir: string; root: string };
}
