// createAgent: loads the config, resolves the preset and the model, opens the workspace, the
// tools, the secrets and the store once, and wires learning; the Agent it returns runs tasks.
import { mkdir, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { BrowserPool, createBrowserTools } from "../browser/index.js";
import {
  allowedPrivateHosts,
  channelCredentials,
  type LoadedConfig,
  loadConfig,
  loadPresets,
  type PartialConfig,
  type Preset,
  pickPreset,
  resonHome,
} from "../config/index.js";
import { RECALL_TOOL, recallTool } from "../memory/index.js";
import {
  cachedEmbedder,
  createEmbeddingProvider,
  createProvider,
  type EmbeddingProvider,
  resolveEmbeddingSettings,
  resolveProviderSettings,
} from "../providers/index.js";
import { SecretVault } from "../secrets/index.js";
import { discoverSkills, SkillSet } from "../skills/index.js";
import { openStore, type Store } from "../store/index.js";
import type { SecretAccess } from "../tools/index.js";
import { probeSandbox, type Workspace } from "../workspace/index.js";
import { Agent } from "./agent.js";
import { type AgentOptions, type AgentSecrets, withPreset } from "./agent-options.js";
import { agentTools } from "./agent-tools.js";
import { assertCostCountable } from "./budget.js";
import { Learning } from "./learning.js";
import { secretAccess } from "./secret-access.js";
import { SUBAGENT_TOOL } from "./subagent-tool.js";
import { openWorkspace, workspaceStanding } from "./workspace-trust.js";

/** The preset asked for (by name, from the built-in ones and the presets.json files), if any. */
export async function resolvePreset(
  options: AgentOptions,
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<Preset | undefined> {
  if (options.preset === undefined) return undefined;
  if (typeof options.preset !== "string") return options.preset;
  const root = await realpath(dir).catch(() => dir);
  return pickPreset(await loadPresets({ home: resonHome(env), workspace: root }), options.preset);
}

/**
 * The store runs go to: RESON_DATABASE_URL, else $RESON_HOME/reson.db. A host that holds run
 * leases of its own TTL (reson worker, reson serve) gives it: see OpenStoreOptions.leaseTtlMs.
 */
export function openDefaultStore(
  home: string,
  env: NodeJS.ProcessEnv = process.env,
  options: { leaseTtlMs?: number } = {},
): Promise<Store> {
  const databaseUrl = env.RESON_DATABASE_URL?.trim();
  return openStore({ home, ...(databaseUrl ? { databaseUrl } : {}), ...options });
}

export async function createAgent(options: AgentOptions = {}): Promise<Agent> {
  const env = options.env ?? process.env;
  const commandSandbox = options.sandbox ?? "on";
  // The probe runs a command in bubblewrap; started now, it overlaps the rest of the setup.
  if (commandSandbox === "on") void probeSandbox();
  const dir = options.workspace ?? process.cwd();
  const preset = await resolvePreset(options, dir, env);
  const readOnly = options.readOnlyWorkspace ?? preset?.readOnly ?? false;
  const workspace = await openWorkspace(dir, {
    env,
    commandSandbox,
    policy: {
      resonHome: resonHome(env),
      readOnly,
      ...(options.nestedRepositories ? { nested: options.nestedRepositories } : {}),
    },
    ...(options.textFiles ? { textFiles: options.textFiles } : {}),
  });
  const standing = await workspaceStanding(workspace.root, env);
  if (standing.kind === "refused") throw standing.error;
  if (standing.kind === "needs_trust" && options.trustWorkspace !== true) throw standing.error;
  // reson's own folder inside the workspace is hidden from commands by a mount over it, which
  // needs it to exist: made now, or a command could create it with settings of its choosing.
  if (workspace.policy.sealed.length > 0) await mkdir(resonHome(env), { recursive: true, mode: 0o700 });
  const flags: PartialConfig = { ...options.config };
  if (options.provider) flags.provider = options.provider;
  const model = options.model ?? preset?.model;
  if (model) flags.model = model;
  if (options.baseUrl) flags.baseUrl = options.baseUrl;
  const maxIterations = options.maxIterations ?? preset?.maxIterations;
  if (maxIterations !== undefined) flags.maxIterations = maxIterations;
  const persist = options.persist ?? true;
  const store = options.store ?? (persist ? await openDefaultStore(resonHome(env), env) : undefined);
  try {
    return await assembleAgent(options, { env, workspace, preset, readOnly, commandSandbox, flags, store });
  } catch (error) {
    // Nothing holds the store it opened: a failed set-up must not leave it open.
    if (!options.store) await store?.close().catch(() => {});
    throw error;
  }
}

interface AgentParts {
  env: NodeJS.ProcessEnv;
  workspace: Workspace;
  preset: Preset | undefined;
  readOnly: boolean;
  commandSandbox: "on" | "off";
  flags: PartialConfig;
  store: Store | undefined;
}

/** The rest of createAgent once the workspace and the store are open. */
async function assembleAgent(options: AgentOptions, parts: AgentParts): Promise<Agent> {
  const { env, workspace, preset, readOnly, commandSandbox, flags, store } = parts;
  // A registered workspace's settings count like a config file of the user's own.
  const registered = await store?.workspaces.byPath(workspace.root);
  const loaded = await loadConfig({
    workspace: workspace.root,
    env,
    flags,
    ...(registered && Object.keys(registered.settings).length > 0
      ? { workspaceSettings: { name: `workspace ${registered.name} settings`, values: registered.settings } }
      : {}),
  });
  const { config } = loaded;

  const settings = await resolveProviderSettings(
    {
      ...(config.provider ? { provider: config.provider } : {}),
      ...(config.model ? { model: config.model } : {}),
      ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    },
    env,
    options.keyHint ? { keyHint: options.keyHint } : {},
  );
  if (config.contextWindow) settings.contextWindow = config.contextWindow;
  if (config.maxOutputTokens) settings.maxTokens = config.maxOutputTokens;
  const providerOptions = {
    retry: config.retry,
    timeouts: {
      ...(config.timeouts.headersMs ? { headersTimeoutMs: config.timeouts.headersMs } : {}),
      ...(config.timeouts.idleMs ? { idleTimeoutMs: config.timeouts.idleMs } : {}),
    },
    ...(options.keyHint
      ? {
          hints: {
            auth: `Check the API key for ${settings.provider}: ${options.keyHint(settings.provider)}.`,
          },
        }
      : {}),
  };
  const provider = await createProvider(settings, providerOptions);
  assertCostCountable(options.limits?.maxCostUsd ?? preset?.limits?.maxCostUsd, provider.model);
  const summaryProvider =
    config.summaryModel && config.summaryModel !== provider.model.id
      ? await createProvider({ ...settings, model: config.summaryModel }, providerOptions)
      : provider;

  const skills = new SkillSet(
    await discoverSkills({
      workspaceRoot: workspace.root,
      home: loaded.home,
      userHome: homedir(),
      ...(options.pluginSkillFolders ? { pluginFolders: options.pluginSkillFolders } : {}),
    }),
  );
  // Not for a read-only agent: browsing acts on the world.
  const browsers =
    config.browser.enabled && !readOnly
      ? new BrowserPool({ ...config.browser, allowPrivateHosts: allowedPrivateHosts(config) }, workspace)
      : undefined;
  const { tools, allowed } = await agentTools({
    config,
    preset,
    readOnly,
    commandSandbox,
    extra: [...(options.tools ?? []), ...(browsers ? createBrowserTools(browsers) : [])],
    skills,
    contextWindow: provider.model.contextWindow,
  });
  const vault = options.secrets ?? (await SecretVault.load(join(loaded.home, "secrets.json"), { env }));
  const secrets: AgentSecrets = {
    access: secretAccess(vault, workspace.root, [
      { name: "provider_api_key", value: settings.apiKey },
      ...channelCredentials(config.channels),
      ...(options.maskedValues ?? []),
    ]),
    names: vault.names(),
    warnings: vault.warnings,
  };
  const agent = new Agent(
    workspace,
    provider,
    tools,
    loaded,
    store,
    preset ? withPreset(options, preset) : options,
    !options.store,
    summaryProvider,
    skills,
    secrets,
    // Not for read-only agents: a delegated sub-agent may write.
    allowed(SUBAGENT_TOOL, false) ? { options, env, commandSandbox, settings, providerOptions } : undefined,
  );
  agent.browsers = browsers;
  if (store && config.memory.enabled && options.memory !== false) {
    agent.learning = new Learning({
      store,
      projectKey: agent.projectKey,
      reflector: summaryProvider,
      redact: (text) => secrets.access.redact(text),
      ...(await embedderFor(config, env, store, secrets.access)),
      settings: config.memory,
    });
    // The model can search memory and experiences in its own words (read-only).
    if (!tools.has(RECALL_TOOL) && allowed(RECALL_TOOL, true)) tools.register(recallTool(agent.learning));
  }
  return agent;
}

/** The embedding model of memory search, cached in the store; none configured: full text only. */
export async function embedderFor(
  config: LoadedConfig["config"],
  env: NodeJS.ProcessEnv,
  store: Store,
  secrets: SecretAccess,
): Promise<{ embedder?: EmbeddingProvider }> {
  const resolved = resolveEmbeddingSettings(config, env);
  if (!resolved.settings) return {};
  const provider = createEmbeddingProvider(resolved.settings, { retry: config.retry });
  const cache = {
    get: (model: string, hashes: readonly string[]) => store.memory.cachedEmbeddings(model, hashes),
    put: (model: string, entries: ReadonlyArray<{ hash: string; vec: Float32Array }>) =>
      store.memory.cacheEmbeddings(
        model,
        entries.map((entry) => ({ hash: entry.hash, vector: entry.vec })),
      ),
  };
  return { embedder: cachedEmbedder(provider, cache, { redact: (text) => secrets.redact(text) }) };
}
