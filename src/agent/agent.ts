// createAgent: the runtime as a library. Loads the config, resolves the model, opens the
// workspace and the tools once; each `run` is one loop with its own id and events.
import { type LoadedConfig, loadConfig, type PartialConfig } from "../config/index.js";
import { baselineSystemPrompt } from "../context/index.js";
import { ResonError, toResonError } from "../core/errors.js";
import { EventBus, type EventListener, type ResonEvent } from "../core/events.js";
import { ulid } from "../core/ids.js";
import {
  createProvider,
  type Provider,
  type ProviderName,
  resolveProviderSettings,
} from "../providers/index.js";
import { createBuiltinTools, type ToolDefinition, ToolRegistry } from "../tools/index.js";
import { Workspace } from "../workspace/index.js";
import type { AgentHooks } from "./hooks.js";
import { runLoop } from "./loop.js";
import type { RunResult } from "./types.js";

export interface AgentOptions {
  /** The folder the agent works in; default the current directory. */
  workspace?: string;
  provider?: ProviderName;
  model?: string;
  baseUrl?: string;
  /** Else taken from the provider's usual environment variable. */
  apiKey?: string;
  maxIterations?: number;
  /** Any other configuration, with the precedence of flags. */
  config?: PartialConfig;
  hooks?: AgentHooks | AgentHooks[];
  /** Tools added to the built-in ones (same name replaces). */
  tools?: ToolDefinition[];
  /** Appended to the system prompt. */
  instructions?: string;
  env?: NodeJS.ProcessEnv;
}

export interface RunOptions {
  signal?: AbortSignal;
  onEvent?: EventListener;
}

export class Agent {
  private readonly bus = new EventBus();
  private readonly hooks: AgentHooks[];

  constructor(
    readonly workspace: Workspace,
    readonly provider: Provider,
    readonly tools: ToolRegistry,
    readonly loaded: LoadedConfig,
    private readonly options: AgentOptions,
  ) {
    this.hooks =
      options.hooks === undefined ? [] : Array.isArray(options.hooks) ? options.hooks : [options.hooks];
  }

  /** Receives the events of every run of this agent. */
  subscribe(listener: EventListener): () => void {
    return this.bus.subscribe(listener);
  }

  async run(task: string, options: RunOptions = {}): Promise<RunResult> {
    const runId = ulid();
    const signal = options.signal ?? new AbortController().signal;
    const bus = new EventBus();
    bus.subscribe((event) => this.bus.emit(event));
    if (options.onEvent) bus.subscribe(options.onEvent);
    const { config } = this.loaded;
    bus.emit({
      type: "run_start",
      runId,
      step: 0,
      ts: Date.now(),
      task,
      provider: this.provider.model.provider,
      model: this.provider.model.id,
      workspace: this.workspace.root,
      maxIterations: config.maxIterations,
    });
    for (const message of this.loaded.warnings)
      bus.emit({ type: "warning", runId, step: 0, ts: Date.now(), message });
    return runLoop({
      runId,
      task,
      systemPrompt: baselineSystemPrompt({
        workspaceRoot: this.workspace.root,
        platform: `${process.platform} ${process.arch}`,
        date: new Date().toISOString().slice(0, 10),
        ...(this.options.instructions ? { instructions: this.options.instructions } : {}),
      }),
      provider: this.provider,
      tools: this.tools,
      workspace: this.workspace,
      hooks: this.hooks,
      limits: {
        maxIterations: config.maxIterations,
        circuitBreakerThreshold: config.circuitBreakerThreshold,
      },
      bus,
      signal,
    });
  }

  /** The run's events as an async iterable; `result` settles when the run ends. */
  stream(
    task: string,
    options: Omit<RunOptions, "onEvent"> = {},
  ): AsyncIterable<ResonEvent> & {
    result: Promise<RunResult>;
  } {
    const queue: ResonEvent[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    const result = this.run(task, {
      ...options,
      onEvent: (event) => {
        queue.push(event);
        wake?.();
      },
    }).finally(() => {
      ended = true;
      wake?.();
    });
    async function* iterate(): AsyncGenerator<ResonEvent> {
      for (;;) {
        const next = queue.shift();
        if (next) {
          yield next;
          continue;
        }
        if (ended) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    }
    return { [Symbol.asyncIterator]: iterate, result };
  }
}

async function openWorkspace(dir: string): Promise<Workspace> {
  try {
    return await Workspace.open(dir);
  } catch (error) {
    const cause = toResonError(error);
    throw new ResonError("workspace_invalid", cause.message, {
      cause,
      ...(cause.hint ? { hint: cause.hint } : {}),
      details: { path: dir },
    });
  }
}

export async function createAgent(options: AgentOptions = {}): Promise<Agent> {
  const env = options.env ?? process.env;
  const workspace = await openWorkspace(options.workspace ?? process.cwd());
  const flags: PartialConfig = { ...options.config };
  if (options.provider) flags.provider = options.provider;
  if (options.model) flags.model = options.model;
  if (options.baseUrl) flags.baseUrl = options.baseUrl;
  if (options.maxIterations !== undefined) flags.maxIterations = options.maxIterations;
  const loaded = await loadConfig({ workspace: workspace.root, env, flags });
  const { config } = loaded;

  const settings = await resolveProviderSettings(
    {
      ...(config.provider ? { provider: config.provider } : {}),
      ...(config.model ? { model: config.model } : {}),
      ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    },
    env,
  );
  if (config.contextWindow) settings.contextWindow = config.contextWindow;
  if (config.maxOutputTokens) settings.maxTokens = config.maxOutputTokens;
  const provider = await createProvider(settings, {
    retry: config.retry,
    timeouts: {
      ...(config.timeouts.headersMs ? { headersTimeoutMs: config.timeouts.headersMs } : {}),
      ...(config.timeouts.idleMs ? { idleTimeoutMs: config.timeouts.idleMs } : {}),
    },
  });

  const tools = new ToolRegistry({ maxOutputChars: config.tools.maxOutputChars });
  for (const tool of createBuiltinTools({ commandTimeoutMs: config.tools.commandTimeoutMs }))
    tools.register(tool);
  for (const tool of options.tools ?? []) tools.register(tool);
  return new Agent(workspace, provider, tools, loaded, options);
}
