// The agent of a run as a host that is not the terminal runs it (a service's worker, an
// editor's session): from its spec (workspace, model, limits, preset, rules), with the same
// permission gate as a headless `reson run` (mode acceptEdits unless the host, the spec or a
// settings file says otherwise), and approvals and questions sent to whoever serves the run.
import { realpathSync } from "node:fs";
import { type Agent, type AgentHooks, type AgentOptions, createAgent } from "../agent/index.js";
import { ResonError } from "../core/errors.js";
import type { McpServerEntry, McpServers } from "../mcp/index.js";
import type { PermissionGate, PermissionGateOptions, PermissionMode } from "../permissions/index.js";
import type { ProviderName } from "../providers/index.js";
import type { Store } from "../store/index.js";
import type { AskHuman } from "../tools/index.js";
import type { TextFileChannel } from "../workspace/index.js";
import { gateOptions, loadGate, sandboxSetup } from "./permission-setup.js";
import { startRunExtensions } from "./run-extensions.js";
import type { RunSpec } from "./run-spec.js";
import { sessionGrants } from "./session-grants.js";

export interface SpecAgentOptions {
  store: Store;
  /** What holds the run's lease, as others are told ("reson serve", "reson worker"). */
  leaseHolder: string;
  /** Asks whoever serves the run; absent: a call that needs approval is denied (headless). */
  promptUser?: PermissionGateOptions["promptUser"];
  askHuman?: AskHuman;
  env?: NodeJS.ProcessEnv;
  /** Where the run's set-up warnings go (an MCP server left out); default stderr. */
  warn?: (message: string) => void;
  /** Stops the set-up (MCP servers starting) when the run is cancelled or the host stops. */
  signal?: AbortSignal;
  /** The run's session: what its user allowed "for this session" holds for this run too. */
  sessionId?: string;
  /** The mode when neither the spec nor a settings file names one; default acceptEdits. */
  defaultMode?: PermissionMode;
  /** Project MCP servers that may start without approval (--allow-mcp). */
  allowMcp?: readonly string[];
  /** MCP servers the host brings (an editor's), started like the user's own. */
  mcpServers?: readonly McpServerEntry[];
  /** An editor's buffers for the file tools, behind the workspace's checks. */
  textFiles?: TextFileChannel;
  /** The host's own hooks, after the gate's: their beforeToolCall sees only calls it let through. */
  hooks?: readonly AgentHooks[];
  /** Values the host holds (serve's token) that the run masks as the user's secrets. */
  maskedValues?: readonly { name: string; value: string }[];
  /** Where a provider's key comes from, in the host's words (AgentOptions.keyHint). */
  keyHint?: AgentOptions["keyHint"];
}

/** An agent and the gate in front of its tools (a host that switches modes keeps it). */
export interface SpecAgent {
  agent: Agent;
  gate: PermissionGate;
  /** Set when commands do not run in a working OS sandbox: what runs them instead, and what follows. */
  sandboxWarning?: string;
  /** The MCP servers started for the agent (closed with it): their prompts are a host's commands. */
  mcpServers?: McpServers;
}

export async function agentForSpec(spec: RunSpec, options: SpecAgentOptions): Promise<Agent> {
  return (await specAgent(spec, options)).agent;
}

export async function specAgent(spec: RunSpec, options: SpecAgentOptions): Promise<SpecAgent> {
  let workspaceRoot: string;
  try {
    workspaceRoot = realpathSync(spec.workspace);
  } catch (error) {
    throw new ResonError("workspace_invalid", `The workspace folder ${spec.workspace} does not exist.`, {
      hint: "Create the folder on the machine that runs the run, or give another one.",
      cause: error,
    });
  }
  const sandbox = await sandboxSetup(spec.sandbox ?? "on", options.promptUser !== undefined);
  const gate = await loadGate(
    {
      allow: spec.allow ?? [],
      deny: spec.deny ?? [],
      ...(spec.permissionMode ? { permissionMode: spec.permissionMode } : {}),
    },
    workspaceRoot,
    {
      defaultMode: options.defaultMode ?? "acceptEdits",
      sandbox: sandbox.state,
      ...(options.promptUser ? { promptUser: options.promptUser } : {}),
      ...(options.sessionId ? await sessionGrants(options.store, options.sessionId) : {}),
    },
  );
  const agentOptions: AgentOptions = {
    workspace: workspaceRoot,
    ...(spec.provider ? { provider: spec.provider as ProviderName } : {}),
    ...(spec.model ? { model: spec.model } : {}),
    ...(spec.baseUrl ? { baseUrl: spec.baseUrl } : {}),
    ...(spec.maxIterations ? { maxIterations: spec.maxIterations } : {}),
    ...(spec.limits && Object.keys(spec.limits).length > 0 ? { limits: spec.limits } : {}),
    ...(spec.preset ? { preset: spec.preset } : {}),
    ...(spec.trustWorkspace ? { trustWorkspace: true } : {}),
    ...(gate.currentMode === "plan" ? { readOnlyWorkspace: true } : {}),
    ...gateOptions(gate),
    ...(options.hooks ? { hooks: [gate.hooks(), ...options.hooks] } : {}),
    ...sandbox.agent,
    ...(options.askHuman ? { askHuman: options.askHuman } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.textFiles ? { textFiles: options.textFiles } : {}),
    ...(options.maskedValues ? { maskedValues: options.maskedValues } : {}),
    ...(options.keyHint ? { keyHint: options.keyHint } : {}),
    store: options.store,
    leaseHolder: options.leaseHolder,
  };
  // The plugins of the machine that runs the run (the user's, the workspace's trusted ones)
  // and its MCP servers: no one is there to approve a project's or to log in, so those are
  // left out with a warning.
  const extensions = await startRunExtensions({
    workspace: workspaceRoot,
    allowMcp: options.allowMcp ?? [],
    ...(options.mcpServers ? { hostServers: options.mcpServers } : {}),
    signal: options.signal ?? new AbortController().signal,
    warn: options.warn ?? ((message: string) => process.stderr.write(`warning: ${message}\n`)),
    ...(options.env ? { env: options.env } : {}),
  });
  let agent: Agent;
  try {
    agent = await createAgent(extensions.agentOptions(agentOptions));
  } catch (error) {
    await extensions.close();
    throw error;
  }
  agent.onClose(() => extensions.close());
  extensions.attach(agent);
  return {
    agent,
    gate,
    ...(sandbox.agent.sandboxSummary ? { sandboxWarning: sandbox.agent.sandboxSummary } : {}),
    ...(extensions.mcp.servers ? { mcpServers: extensions.mcp.servers } : {}),
  };
}
