// What a plugin's code sees of reson: the object its entry module's default export is called
// with. Deliberately small: its own name, folders and config section, tools it registers, the
// three loop hooks, and a read-only view of the run's events. Nothing else of reson's internals.
import type { AgentHooks } from "../agent/index.js";
import type { ResonEvent } from "../core/events.js";

/** A JSON Schema object (a TypeBox schema is one) describing a tool's arguments. */
export type PluginToolParameters = Record<string, unknown>;

/** What a command run through `ctx.run` produced. */
export interface PluginCommandResult {
  /** stdout and stderr interleaved as written (the workspace runner merges them), masked of secrets. */
  output: string;
  /** null when the command was ended by a signal or timed out. */
  exitCode: number | null;
  timedOut: boolean;
  /** Set when the OS sandbox refused something the command tried ("blocked by sandbox: …"). */
  sandboxDenial?: string;
}

export interface PluginToolContext {
  signal: AbortSignal;
  runId: string;
  toolCallId: string;
  /** The run's workspace folder (absolute). */
  workspace: string;
  /**
   * Runs a shell command in the workspace exactly as execute_command does: in the OS sandbox
   * when the run has one, with the environment scrubbed of keys, and stopped after `timeoutMs`
   * (default 120 s).
   */
  run(command: string, options?: { timeoutMs?: number }): Promise<PluginCommandResult>;
}

export interface PluginTool {
  /** [A-Za-z0-9_-]{1,64}; must not be the name of a built-in, MCP or other plugin's tool. */
  name: string;
  description: string;
  /** The arguments' JSON Schema (TypeBox or plain); checked before `execute` is called. */
  parameters: PluginToolParameters;
  /** true: the tool changes nothing, so the permission gate lets it run like read_file. Default false. */
  readOnly?: boolean;
  /**
   * false: what it returns comes from the user's own files or the plugin itself, never from the
   * network or another party. Default true: its results are untrusted content (they mark the run
   * untrusted) and, unless readOnly, its calls count as sending data out once the run is.
   */
  external?: boolean;
  /** The returned text is what the model sees; a throw is a failed call with its message. */
  execute(args: Record<string, unknown>, ctx: PluginToolContext): Promise<string> | string;
}

/** The loop's hooks, as a plugin registers them (their meaning is AgentHooks'). */
export type PluginHookName = "transformContext" | "beforeToolCall" | "afterToolCall";
export type PluginHook<Name extends PluginHookName> = NonNullable<AgentHooks[Name]>;

/** Receives a frozen copy of each event of the runs the plugin takes part in. */
export type PluginEventListener = (event: Readonly<ResonEvent>) => void | Promise<void>;

export interface PluginApi {
  /** The plugin's name (plugin.json). */
  readonly name: string;
  /** The plugin's folder: ${PLUGIN_ROOT}. */
  readonly root: string;
  /** The plugin's own writable folder, $RESON_HOME/plugin-data/<name> (0700): ${PLUGIN_DATA}. */
  readonly dataDir: string;
  /** The workspace folder of the runs (absolute). */
  readonly workspace: string;
  /** Its own config section, `plugins.<name>` of reson's config files ({} when there is none). */
  readonly config: Readonly<Record<string, unknown>>;
  registerTool(tool: PluginTool): void;
  on<Name extends PluginHookName>(hook: Name, fn: PluginHook<Name>): void;
  on(hook: "event", fn: PluginEventListener): void;
}

/** The default export of a plugin's entry module. */
export type PluginSetup = (api: PluginApi) => void | Promise<void>;

/** Types a plugin's default export (it returns its argument unchanged). */
export function definePlugin(setup: PluginSetup): PluginSetup {
  return setup;
}
