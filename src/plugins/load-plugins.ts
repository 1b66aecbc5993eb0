// Loading plugins for a run: each plugin's manifest read, its entry module imported and its
// default export called with the plugin API under a time limit, and what it registered kept.
// Every plugin fails alone: whatever goes wrong leaves that plugin (or that tool) out with a
// report naming it, and the run goes on with the others.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { AgentHooks } from "../agent/index.js";
import { importEsm } from "../core/esm-import.js";
import type { PluginsReport } from "../core/events.js";
import { humanDuration } from "../core/human-duration.js";
import type { ToolDefinition } from "../tools/index.js";
import type { PluginApi, PluginEventListener, PluginHookName, PluginSetup, PluginTool } from "./api.js";
import { readPluginManifest } from "./manifest.js";
import {
  type GuardedListener,
  guardHooks,
  guardListener,
  type PluginProblem,
  type RegisteredHook,
  type ReportPluginProblem,
} from "./plugin-hooks.js";
import { pluginToolDefinition, pluginToolProblem } from "./plugin-tool.js";
import { resolveResonForPlugins, sealPluginCode } from "./reson-specifier.js";
import type { InstalledPlugin } from "./types.js";

/** Setup and each hook call get this long unless config `timeouts.pluginSetupMs`/`pluginHookMs` say otherwise. */
export const DEFAULT_PLUGIN_SETUP_MS = 10_000;
export const DEFAULT_PLUGIN_HOOK_MS = 10_000;

const HOOK_NAMES = new Set<string>(["transformContext", "beforeToolCall", "afterToolCall"]);

export interface LoadPluginsOptions {
  plugins: readonly InstalledPlugin[];
  /** $RESON_HOME: plugins' data folders are under it. */
  home: string;
  /** The workspace's real path. */
  workspace: string;
  /** Config `plugins`: each plugin's own section by name. */
  config?: Readonly<Record<string, unknown>>;
  /** Names plugin tools may not take: the built-in tools', MCP tools'. */
  reservedToolNames: Iterable<string>;
  setupTimeoutMs?: number;
  hookTimeoutMs?: number;
}

/** A plugin that loaded, with where its skills and MCP servers are. */
export interface LoadedPlugin {
  name: string;
  version?: string;
  scope: InstalledPlugin["scope"];
  root: string;
  dataDir: string;
  tools: string[];
  skillsDir?: string;
  mcpFile?: string;
}

/** What the plugins of a run add to its agent, and what the run says of them. */
export interface LoadedPlugins {
  plugins: LoadedPlugin[];
  /** Plugins (or tools of theirs) left out, and why. */
  errors: { plugin: string; message: string }[];
  tools: ToolDefinition[];
  hooks: AgentHooks[];
  /** Each plugin's event listener (a frozen copy per event; failures reported once). */
  listeners: GuardedListener[];
  /** Where hook and listener failures go: to `onProblem` once set (e.g. into the run's events), else kept in `problems`. */
  onProblem: ReportPluginProblem | undefined;
  /** Failures that happened while no one listened (doctor reads them). */
  problems: PluginProblem[];
  /** How long a hook (or a listener's unfinished work at exit) may take. */
  hookTimeoutMs: number;
}

interface Registered {
  tools: PluginTool[];
  hooks: RegisteredHook[];
  listeners: PluginEventListener[];
  /** Misuses of the API found while registering: the plugin is left out for the first. */
  misuse: string | undefined;
}

function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

function deepFrozenCopy(value: unknown): Readonly<Record<string, unknown>> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return Object.freeze({});
  const copy = structuredClone(value) as Record<string, unknown>;
  const freeze = (v: unknown): void => {
    if (typeof v !== "object" || v === null) return;
    Object.freeze(v);
    for (const inner of Object.values(v)) freeze(inner);
  };
  freeze(copy);
  return copy;
}

/** The setup function of an imported entry module: its default export (ESM, or CJS module.exports). */
function setupOf(module: unknown): PluginSetup | undefined {
  const first = (module as { default?: unknown } | null)?.default;
  if (typeof first === "function") return first as PluginSetup;
  const second = (first as { default?: unknown } | null | undefined)?.default;
  return typeof second === "function" ? (second as PluginSetup) : undefined;
}

function pluginApi(
  base: Pick<PluginApi, "name" | "root" | "dataDir" | "workspace" | "config">,
  registered: Registered,
  isOpen: () => boolean,
): PluginApi {
  const api = {
    ...base,
    registerTool(tool: PluginTool) {
      // The agent's tools and hooks are fixed once loading is done: a later call has nowhere to go.
      if (!isOpen()) return;
      const problem = pluginToolProblem(tool);
      if (problem) {
        registered.misuse ??= problem;
        return;
      }
      registered.tools.push(tool);
    },
    on(hook: string, fn: unknown) {
      if (!isOpen()) return;
      if (typeof fn !== "function") {
        registered.misuse ??= `on("${hook}") was given something that is not a function`;
        return;
      }
      if (hook === "event") registered.listeners.push(fn as PluginEventListener);
      else if (HOOK_NAMES.has(hook))
        registered.hooks.push({
          plugin: base.name,
          hook: hook as PluginHookName,
          fn: fn as RegisteredHook["fn"],
        });
      else
        registered.misuse ??= `on("${hook}"): there is no such hook (transformContext, beforeToolCall, afterToolCall, event)`;
    },
  };
  return Object.freeze(api) as PluginApi;
}

/** Calls the plugin's setup; throws (with the reason) when it throws or takes too long. */
async function runSetup(setup: PluginSetup, api: PluginApi, timeoutMs: number): Promise<void> {
  let timeout: NodeJS.Timeout | undefined;
  const pending = Promise.resolve().then(() => setup(api));
  const expired = new Promise<"timeout">((resolve) => {
    timeout = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const outcome = await Promise.race([pending, expired]);
    if (outcome === "timeout") {
      pending.catch(() => {});
      throw new Error(
        `its setup did not finish within ${humanDuration(timeoutMs)} (config timeouts.pluginSetupMs)`,
      );
    }
  } finally {
    clearTimeout(timeout);
  }
}

const disableHint = (name: string) => `; disable it with \`reson plugin disable ${name}\` or fix it`;

export async function loadPlugins(options: LoadPluginsOptions): Promise<LoadedPlugins> {
  const loaded: LoadedPlugins = {
    plugins: [],
    errors: [],
    tools: [],
    hooks: [],
    listeners: [],
    onProblem: undefined,
    problems: [],
    hookTimeoutMs: options.hookTimeoutMs ?? DEFAULT_PLUGIN_HOOK_MS,
  };
  const report: ReportPluginProblem = (problem) => {
    if (loaded.onProblem) return loaded.onProblem(problem);
    loaded.problems.push(problem);
    return true;
  };
  const taken = new Map<string, string>();
  for (const name of options.reservedToolNames) taken.set(name, "a built-in or MCP tool");
  const hooks: RegisteredHook[] = [];
  for (const plugin of options.plugins) {
    const fail = (message: string) =>
      loaded.errors.push({ plugin: plugin.name, message: `${message}${disableHint(plugin.name)}` });
    let manifest: Awaited<ReturnType<typeof readPluginManifest>>;
    try {
      // A trusted project plugin loads from its copy, whose imports stay inside it.
      if (plugin.code) sealPluginCode(plugin.code.dir);
      manifest = await readPluginManifest(plugin.code?.root ?? plugin.root);
    } catch (error) {
      fail(`not loaded: ${messageOf(error)}`);
      continue;
    }
    const dataDir = join(options.home, "plugin-data", manifest.name);
    const registered: Registered = { tools: [], hooks: [], listeners: [], misuse: undefined };
    if (manifest.entry) {
      let setup: PluginSetup | undefined;
      resolveResonForPlugins();
      try {
        setup = setupOf(await importEsm<unknown>(pathToFileURL(manifest.entry).href));
      } catch (error) {
        fail(`not loaded: its entry ${manifest.entry} could not be imported (${messageOf(error)})`);
        continue;
      }
      if (!setup) {
        fail(`not loaded: its entry ${manifest.entry} has no default export function`);
        continue;
      }
      let open = true;
      try {
        await mkdir(dataDir, { recursive: true, mode: 0o700 });
        const api = pluginApi(
          {
            name: manifest.name,
            root: manifest.root,
            dataDir,
            workspace: options.workspace,
            config: deepFrozenCopy(options.config?.[manifest.name]),
          },
          registered,
          () => open,
        );
        await runSetup(setup, api, options.setupTimeoutMs ?? DEFAULT_PLUGIN_SETUP_MS);
      } catch (error) {
        fail(`not loaded: ${messageOf(error)}`);
        continue;
      } finally {
        open = false;
      }
      if (registered.misuse) {
        fail(`not loaded: ${registered.misuse}`);
        continue;
      }
    }
    const tools: string[] = [];
    for (const tool of registered.tools) {
      const owner = tool.name.startsWith("mcp__") ? "MCP tools (mcp__ names)" : taken.get(tool.name);
      if (owner) {
        loaded.errors.push({
          plugin: plugin.name,
          message: `its tool "${tool.name}" was left out: the name is already taken by ${owner}`,
        });
        continue;
      }
      taken.set(tool.name, `the plugin "${plugin.name}"`);
      loaded.tools.push(pluginToolDefinition(plugin.name, tool));
      tools.push(tool.name);
    }
    hooks.push(...registered.hooks);
    for (const fn of registered.listeners) loaded.listeners.push(guardListener(plugin.name, fn, report));
    loaded.plugins.push({
      name: plugin.name,
      scope: plugin.scope,
      root: manifest.root,
      dataDir,
      tools,
      ...((manifest.version ?? plugin.version) ? { version: manifest.version ?? plugin.version } : {}),
      ...(manifest.skillsDir ? { skillsDir: manifest.skillsDir } : {}),
      ...(manifest.mcpFile ? { mcpFile: manifest.mcpFile } : {}),
    });
  }
  loaded.hooks = guardHooks(hooks, loaded.hookTimeoutMs, report);
  return loaded;
}

/** What a run's plugins_loaded event says. */
export function pluginsReport(
  loaded: Pick<LoadedPlugins, "plugins" | "errors">,
  untrusted: readonly { name: string; scope: InstalledPlugin["scope"]; reason: string }[],
): PluginsReport {
  return {
    plugins: loaded.plugins.map((plugin) => ({
      name: plugin.name,
      ...(plugin.version ? { version: plugin.version } : {}),
      scope: plugin.scope,
      tools: plugin.tools,
    })),
    errors: loaded.errors,
    untrusted: untrusted.map((plugin) => ({
      plugin: plugin.name,
      command: `reson plugin trust ${plugin.name}`,
      scope: plugin.scope,
      reason: plugin.reason,
    })),
  };
}
