// What createAgent and each run take: the options of an agent, of a run and of a resume, and
// what an agent keeps of how it was made so that its sub-agents are made the same way.
import type { PartialConfig, Preset } from "../config/index.js";
import type { EventListener, PluginsReport, UntrustedSource } from "../core/events.js";
import type { RunLimits } from "../core/usage.js";
import type {
  CreateProviderOptions,
  ImageContent,
  ProviderName,
  ProviderSettings,
} from "../providers/index.js";
import type { SecretNameInfo, SecretVault } from "../secrets/index.js";
import type { MessageContext, Store } from "../store/index.js";
import type { AskHuman, SecretAccess, ToolDefinition } from "../tools/index.js";
import type { NestedRepositories, TextFileChannel } from "../workspace/index.js";
import type { AgentHooks } from "./hooks.js";
import type { HeldLease } from "./run-lease.js";
import type { HopCheck } from "./run-state.js";

export interface AgentOptions {
  /** The folder the agent works in; default the current directory. */
  workspace?: string;
  provider?: ProviderName;
  model?: string;
  baseUrl?: string;
  /** Else taken from the provider's usual environment variable; never stored. */
  apiKey?: string;
  maxIterations?: number;
  /**
   * Hard limits on what each run may spend, its sub-agents included: tokens, cost, wall time.
   * Checked around every model call (the time also by a timer that stops the call in flight);
   * a run over its limit ends "failed" with `budget_exceeded`. Default: a preset's limits, else none.
   */
  limits?: RunLimits;
  /** Any other configuration, with the precedence of flags. */
  config?: PartialConfig;
  hooks?: AgentHooks | AgentHooks[];
  /**
   * What the caller's plugin loader made of the plugins (their tools and hooks come in `tools`
   * and `hooks`): announced in a plugins_loaded event right after each run's run_start.
   */
  plugins?: PluginsReport;
  /** Loaded plugins' `skills/` folders: their skills join the catalogue after the user's. */
  pluginSkillFolders?: readonly { path: string; plugin: string }[];
  /** Tools added to the built-in ones (same name replaces). */
  tools?: ToolDefinition[];
  /** Appended to the system prompt. */
  instructions?: string;
  env?: NodeJS.ProcessEnv;
  /** Keep runs in the store so they can be listed and resumed (default true). */
  persist?: boolean;
  /** A store to use instead of opening the default one ($RESON_HOME/reson.db or RESON_DATABASE_URL). */
  store?: Store;
  /** Which tools the model is offered (e.g. plan mode offers no write tools); default all. */
  offerTool?: (name: string) => boolean;
  /**
   * Whether a command only reads (the permission gate's read-only set): such calls need no
   * snapshot of the workspace around them. Default: every command may change files.
   */
  commandOnlyReads?: (command: string) => boolean;
  /**
   * Decides the requests a tool makes that its call did not name (a redirect, a page's own
   * navigation): the permission gate's rules, the run's trust. Absent: the tools' own checks only.
   */
  checkHop?: HopCheck;
  /**
   * The secrets tools may use as <secret>name</secret>; default those of
   * $RESON_HOME/secrets.json. Pass `SecretVault.empty()` for none.
   */
  secrets?: SecretVault;
  /**
   * Values besides the user's secrets and the provider's key that the run must never show (an
   * MCP server's token): masked as `<secret>name</secret>` wherever the user's secrets are.
   */
  maskedValues?: readonly { name: string; value: string }[];
  /**
   * Where a provider's key comes from, in the words of the host (an editor's user has no
   * --api-key to pass): said when the key is missing or rejected. Default the terminal's.
   */
  keyHint?: (provider: ProviderName) => string;
  /**
   * "on" (default): commands run in the OS sandbox, and are refused where none works (fail
   * closed); "off": commands run as plain processes (the caller has its own containment, or
   * approves each command).
   */
  sandbox?: "on" | "off";
  /** Plan and explore agents: the workspace is read-only for file tools and commands alike. */
  readOnlyWorkspace?: boolean;
  /**
   * The repositories below the workspace's root as the permission gate found them (gateOptions):
   * the workspace protects the same ones without looking again.
   */
  nestedRepositories?: NestedRepositories;
  /**
   * An editor's buffers for the file tools' reads and writes (its unsaved changes seen, its
   * undo history kept), after every check of the workspace; default the files on disk.
   */
  textFiles?: TextFileChannel;
  /**
   * true: work in a broad folder (the home folder, a folder above it, or one holding
   * $RESON_HOME) although the user has not trusted it. Default false: such a workspace is
   * refused (`workspace_untrusted`) unless the user trusted it in the interactive terminal.
   * `/`, system folders and $RESON_HOME itself are refused whatever this says.
   */
  trustWorkspace?: boolean;
  /** false: no long-term memory or experiences for this agent (default: config `memory.enabled`). */
  memory?: boolean;
  /** The sandbox line of the run start (default: what the sandbox probe found, or "off"). */
  sandboxSummary?: string;
  /**
   * A preset (agent type) by name (`explore`, `plan`, `analyst`, `evaluate`, `default`, or one
   * from presets.json), or given whole: its model, instructions, tools, read-only and limits
   * apply where these options say nothing else.
   */
  preset?: string | Preset;
  /**
   * How ask_human reaches the user: resolves with the answer ("" when the user declined), or
   * undefined when no one is there. Absent: ask_human tells the model to decide for itself.
   */
  askHuman?: AskHuman;
  /**
   * What holds the leases of this agent's runs, as a process that finds a run busy is told
   * ("reson run", "reson resume", "worker"); default "reson library".
   */
  leaseHolder?: string;
}

/** What an agent knows of the user's secrets: names for the prompt, access for the tools. */
export interface AgentSecrets {
  access: SecretAccess;
  names: SecretNameInfo[];
  warnings: readonly string[];
}

export interface RunOptions {
  signal?: AbortSignal;
  onEvent?: EventListener;
  /**
   * Which session the run belongs to: "new" (default), "latest" (the newest session of this
   * workspace, whose turns become the history), or a session id.
   */
  session?: "new" | "latest" | string;
  /** With session "new": its id, when the host named the session before its first run (an editor's). */
  newSessionId?: string;
  /** Envelope facts of the task turn (channel, sender…); default the terminal. */
  envelope?: Partial<MessageContext>;
  /**
   * Images that come with the task (checked by taskImage), sent to the model after its text and
   * stored in its turn; a model that reads text only refuses the run before it starts.
   */
  images?: readonly ImageContent[];
  /**
   * The task itself is untrusted content (a chat message from someone other than the owner):
   * the run starts untrusted, for this reason.
   */
  untrustedTask?: UntrustedSource;
  /** The run's id (a queued run's, known before it starts); default a new one. */
  runId?: string;
  /**
   * The run's lease, already taken (a worker claims a queued run with it): the run writes
   * under it and leaves it held at the end, for the caller to let go.
   */
  lease?: HeldLease;
}

export interface ResumeOptions
  extends Omit<RunOptions, "session" | "newSessionId" | "envelope" | "runId" | "images"> {
  /**
   * Take the run over although its lease is held by a process that is still alive, once that
   * lease has expired (a stopped or stuck process). A lease that has not expired is never taken.
   */
  force?: boolean;
}

/** How createAgent made an agent, kept so its sub-agents are made the same way. */
export interface SubagentSetup {
  /** As given to createAgent, before its preset was applied. */
  options: AgentOptions;
  env: NodeJS.ProcessEnv;
  commandSandbox: "on" | "off";
  settings: ProviderSettings;
  providerOptions: CreateProviderOptions;
}

/** An agent's options with its preset applied (the preset's instructions after the caller's). */
export function withPreset(options: AgentOptions, preset: Preset): AgentOptions {
  const instructions = [options.instructions, preset.instructions].filter(Boolean).join("\n\n");
  return { ...options, preset, ...(instructions ? { instructions } : {}) };
}
