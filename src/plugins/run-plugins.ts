// The plugins of one agent, as every place that makes an agent needs them: discovered (two small
// file reads when there are none, and nothing else), loaded, and turned into the parts
// createAgent takes (tools, hooks, skill folders, the report of its runs' first events), the
// MCP servers they bring, and a way to hand their failures and listeners to the agent.
import { type AgentHooks, type AgentOptions, type HostEvent, SUBAGENT_TOOL } from "../agent/index.js";
import { BROWSER_TOOL_NAMES } from "../browser/index.js";
import { loadConfig } from "../config/index.js";
import type { EventListener, PluginsReport } from "../core/events.js";
import { type PluginMcpSource, READ_RESOURCE, TOOL_SEARCH } from "../mcp/index.js";
import { RECALL_TOOL } from "../memory/index.js";
import { createBuiltinTools } from "../tools/index.js";
import { type DiscoveredPlugins, discoverPlugins, type UntrustedPlugin } from "./discover.js";
import { trustPluginCode } from "./install.js";
import type { LoadedPlugins } from "./load-plugins.js";
import { readPluginManifest } from "./manifest.js";

/** What an agent must offer so its plugins can report into its runs and hear their events. */
export interface PluginHost {
  emitInRun(runId: string, event: HostEvent): boolean;
  subscribe(listener: EventListener): () => void;
}

export interface RunPlugins {
  /** What withPlugins adds to createAgent's options. */
  agentOptions: {
    tools: NonNullable<AgentOptions["tools"]>;
    hooks: AgentHooks[];
    plugins: PluginsReport;
    pluginSkillFolders: NonNullable<AgentOptions["pluginSkillFolders"]>;
  };
  /** Their mcp.json files, for the MCP setup. */
  mcpServers: PluginMcpSource[];
  report: PluginsReport;
  /** Sends hook and listener failures into the agent's runs, and the runs' events to the plugins' listeners. */
  attach(host: PluginHost): void;
  /** Waits (at most the hook timeout) for listeners still at work: call before the process exits. */
  settle(): Promise<void>;
}

export interface RunPluginsOptions {
  home: string;
  /** The workspace's real path. */
  workspace: string;
  env?: NodeJS.ProcessEnv;
  /**
   * Asks the user whether to trust a plugin that is not trusted in its present form (a
   * project's, or a user's folder, in the terminal); yes trusts it (remembered with its hash)
   * and loads it. Absent: not loaded.
   */
  askTrust?: (plugin: UntrustedPlugin) => Promise<boolean>;
}

/** Every tool name a plugin may not take (MCP tools are kept apart by their mcp__ prefix). */
function reservedToolNames(): string[] {
  return [
    ...createBuiltinTools().map((tool) => tool.name),
    "skill",
    RECALL_TOOL,
    SUBAGENT_TOOL,
    TOOL_SEARCH,
    READ_RESOURCE,
    ...BROWSER_TOOL_NAMES,
  ];
}

function hasAny(found: DiscoveredPlugins): boolean {
  return found.load.length > 0 || found.untrusted.length > 0 || found.problems.length > 0;
}

/** The loaded plugins of a workspace; undefined when it has none registered (the common case, kept cheap). */
export async function pluginsForRun(options: RunPluginsOptions): Promise<RunPlugins | undefined> {
  const found = await discoverPlugins({ home: options.home, workspace: options.workspace });
  if (!hasAny(found)) return undefined;
  if (options.askTrust) await askForTrust(found, options, options.askTrust);
  const loaded = await loadDiscovered(found, options);
  const { pluginsReport } = await import("./load-plugins.js");
  const report = pluginsReport(loaded, found.untrusted);
  for (const problem of found.problems)
    report.errors.push({ plugin: problem.name ?? "(plugins registry)", message: problem.message });
  return {
    agentOptions: {
      tools: loaded.tools,
      hooks: loaded.hooks,
      plugins: report,
      pluginSkillFolders: loaded.plugins.flatMap((plugin) =>
        plugin.skillsDir ? [{ path: plugin.skillsDir, plugin: plugin.name }] : [],
      ),
    },
    mcpServers: loaded.plugins.flatMap((plugin) =>
      plugin.mcpFile
        ? [{ plugin: plugin.name, file: plugin.mcpFile, root: plugin.root, dataDir: plugin.dataDir }]
        : [],
    ),
    report,
    attach(host) {
      loaded.onProblem = ({ runId, ...problem }) =>
        host.emitInRun(runId, { type: "plugin_error", ...problem });
      for (const { listener } of loaded.listeners) host.subscribe(listener);
    },
    settle: async () => {
      await Promise.all(loaded.listeners.map((listener) => listener.settled(loaded.hookTimeoutMs)));
    },
  };
}

/**
 * Moves the plugins the user trusts now from `untrusted` to `load` (from the copy
 * trusting makes), remembering the trust; one that changed since it was hashed stays out.
 */
async function askForTrust(
  found: DiscoveredPlugins,
  options: RunPluginsOptions,
  ask: NonNullable<RunPluginsOptions["askTrust"]>,
): Promise<void> {
  const still: DiscoveredPlugins["untrusted"] = [];
  for (const plugin of found.untrusted) {
    if (!(await ask(plugin))) {
      still.push(plugin);
      continue;
    }
    try {
      const code = await trustPluginCode({
        home: options.home,
        workspace: options.workspace,
        scope: plugin.scope,
        name: plugin.name,
        root: plugin.root,
        expected: plugin.hash,
        signal: AbortSignal.timeout(60_000),
      });
      const { hash: _hash, reason: _reason, ...installed } = plugin;
      found.load.push({ ...installed, code: { dir: code.dir, root: code.root } });
    } catch (error) {
      found.problems.push({ name: plugin.name, message: (error as Error).message });
    }
  }
  found.untrusted = still;
}

/**
 * The agent's options with its plugins' parts added: their tools after the caller's, their hooks
 * before the caller's (so the permission gate decides on the arguments a plugin's hook left).
 */
export function withPlugins(options: AgentOptions, plugins: RunPlugins | undefined): AgentOptions {
  if (!plugins) return options;
  const own =
    options.hooks === undefined ? [] : Array.isArray(options.hooks) ? options.hooks : [options.hooks];
  return {
    ...options,
    tools: [...(options.tools ?? []), ...plugins.agentOptions.tools],
    hooks: [...plugins.agentOptions.hooks, ...own],
    plugins: plugins.agentOptions.plugins,
    pluginSkillFolders: plugins.agentOptions.pluginSkillFolders,
  };
}

/** Loads what discovery found may be loaded (the loader itself is imported only now). */
export async function loadDiscovered(
  found: DiscoveredPlugins,
  options: RunPluginsOptions,
): Promise<LoadedPlugins> {
  const { loadPlugins } = await import("./load-plugins.js");
  if (found.load.length === 0)
    return loadPlugins({
      plugins: [],
      home: options.home,
      workspace: options.workspace,
      reservedToolNames: [],
    });
  const { config } = await loadConfig({
    workspace: options.workspace,
    ...(options.env ? { env: options.env } : {}),
  });
  return loadPlugins({
    plugins: found.load,
    home: options.home,
    workspace: options.workspace,
    config: config.plugins,
    reservedToolNames: reservedToolNames(),
    ...(config.timeouts.pluginSetupMs ? { setupTimeoutMs: config.timeouts.pluginSetupMs } : {}),
    ...(config.timeouts.pluginHookMs ? { hookTimeoutMs: config.timeouts.pluginHookMs } : {}),
  });
}

/**
 * The `skills/` folders of the plugins a run would load, read from their manifests without
 * running any plugin code (for listings such as `reson skills`).
 */
export async function pluginSkillFolders(
  options: RunPluginsOptions,
): Promise<{ path: string; plugin: string }[]> {
  const found = await discoverPlugins({ home: options.home, workspace: options.workspace });
  const folders: { path: string; plugin: string }[] = [];
  for (const plugin of found.load) {
    const manifest = await readPluginManifest(plugin.code?.root ?? plugin.root).catch(() => undefined);
    if (manifest?.skillsDir) folders.push({ path: manifest.skillsDir, plugin: plugin.name });
  }
  return folders;
}
