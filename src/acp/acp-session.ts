// One editor session: a reson session (the same store, ids and turns as the terminal's), the
// agent that runs its prompts (made once, by the runner, with the editor as the one who is
// asked: permissions, questions, and where it offers them its file buffers), the turn in flight
// and its cancel, and the permission mode the editor picked.
import {
  type AgentContext,
  type AvailableCommand,
  type ClientCapabilities,
  type ContentBlock,
  type McpServer,
  methods,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionConfigOption,
  type StopReason,
} from "@agentclientprotocol/sdk";
import { type Agent, type AgentHooks, assertModelTakesImages, type RunResult } from "../agent/index.js";
import { ResonError, toResonError } from "../core/errors.js";
import type { ContextUsageEvent, ResonEvent } from "../core/events.js";
import type { McpServers } from "../mcp/index.js";
import type {
  PermissionAnswer,
  PermissionGate,
  PermissionMode,
  PermissionPrompt,
} from "../permissions/index.js";
import type { ImageContent } from "../providers/index.js";
import { type RunSpec, type SpecAgent, specAgent } from "../runner/index.js";
import type { Store } from "../store/index.js";
import { editorFiles } from "./editor-files.js";
import { editorKeyHint } from "./editor-hints.js";
import { editorServerEntries } from "./editor-mcp.js";
import { editorQuestions } from "./editor-questions.js";
import { permissionAnswer, permissionRequest } from "./permission-request.js";
import { promptTask } from "./prompt-task.js";
import { RunUpdates } from "./run-updates.js";
import { modelChoices, modelOption, requireModelChoice } from "./session-models.js";
import { availableCommands, type CommandOutcome, runCommand, slashCommand } from "./slash-commands.js";
import { stopReason } from "./stop-reason.js";
import { commandPlace } from "./tool-call-view.js";
import { UpdateSender } from "./update-sender.js";

export const LEASE_HOLDER = "reson acp";

export interface SessionSetup {
  id: string;
  /** The session's folder: the editor's cwd (absolute). */
  cwd: string;
  /** What `reson acp` was started with (model, limits, rules, sandbox). */
  spec: Omit<RunSpec, "workspace">;
  allowMcp: readonly string[];
  mcpServers: readonly McpServer[];
  store: Store;
  client: AgentContext;
  capabilities: ClientCapabilities | undefined;
  /** Stops the set-up (MCP servers starting) when the connection closes. */
  signal: AbortSignal;
  /** The editor does not know the session id yet (session/new): its updates wait for announce(). */
  unannounced?: boolean;
  log: (line: string) => void;
}

interface Turn {
  controller: AbortController;
  run?: RunUpdates;
  runId?: string;
  /** Resolves when the turn has ended and its updates are sent. */
  ended: Promise<void>;
}

export class AcpSession {
  readonly id: string;
  readonly updates: UpdateSender;
  #agent!: Agent;
  #gate!: PermissionGate;
  #commands: AvailableCommand[] = [];
  #turn: Turn | undefined;
  #lastContext: ContextUsageEvent | undefined;
  #sandboxShown = false;
  #sandboxWarning: string | undefined;
  #startModel: string | undefined;
  #mcpServers: McpServers | undefined;
  /** The session is in the store (a run of it started). */
  #stored = false;

  private constructor(private readonly setup: SessionSetup) {
    this.id = setup.id;
    this.updates = new UpdateSender(setup.client, setup.id, setup.log, setup.unannounced === true);
  }

  static async open(setup: SessionSetup): Promise<AcpSession> {
    const session = new AcpSession(setup);
    await session.#install(await session.#makeAgent(setup.spec.model));
    session.#startModel = session.model;
    return session;
  }

  /** The session's agent, made by the runner with the editor as the one who is asked. */
  #makeAgent(model: string | undefined): Promise<SpecAgent> {
    const setup = this.setup;
    const askHuman = editorQuestions(
      setup.client,
      setup.id,
      setup.capabilities,
      () => this.#turn?.controller.signal,
    );
    const textFiles = editorFiles(setup.client, setup.id, setup.capabilities?.fs, setup.log);
    return specAgent(
      { ...setup.spec, ...(model ? { model } : {}), workspace: setup.cwd },
      {
        store: setup.store,
        leaseHolder: LEASE_HOLDER,
        promptUser: (prompt) => this.#askPermission(prompt),
        ...(askHuman ? { askHuman } : {}),
        signal: setup.signal,
        sessionId: setup.id,
        // An editor watches every call, as the terminal's user does.
        defaultMode: "default",
        allowMcp: setup.allowMcp,
        mcpServers: editorServerEntries(setup.mcpServers),
        ...(textFiles ? { textFiles } : {}),
        hooks: [this.#previewHook()],
        warn: (message) => this.warn(message),
        keyHint: editorKeyHint,
      },
    );
  }

  async #install(made: SpecAgent): Promise<void> {
    this.#agent = made.agent;
    this.#gate = made.gate;
    this.#sandboxWarning = made.sandboxWarning;
    this.#mcpServers = made.mcpServers;
    const prompts = await made.mcpServers?.prompts(this.setup.signal).catch(() => []);
    this.#commands = availableCommands(made.agent.skills, prompts ?? []);
  }

  /** The model of the session's next tasks. */
  get model(): string {
    return this.#agent.provider.model.id;
  }

  /** The session's options for the editor (the model picker). */
  async configOptions(): Promise<SessionConfigOption[]> {
    const choices = await this.#modelChoices();
    return [modelOption(this.model, choices, this.#agent.provider.model.provider)];
  }

  /** session/set_config_option: the option and value checked against what was offered. */
  async setConfigOption(configId: string, value: unknown): Promise<SessionConfigOption[]> {
    await this.setModel(requireModelChoice(configId, value, await this.#modelChoices()));
    return this.configOptions();
  }

  /**
   * The session's next tasks run with `model` (of the same provider): its agent is made again,
   * in the permission mode the editor picked, and the old one closed. Not during a turn.
   */
  async setModel(model: string): Promise<void> {
    if (this.#turn)
      throw new ResonError("session_busy", `Session ${this.id} is working on a prompt.`, {
        hint: "Change the model when the turn has ended (or cancel it first).",
      });
    await this.#switchModel(model);
  }

  async #switchModel(model: string): Promise<void> {
    if (model === this.model) return;
    const mode = this.mode;
    const old = this.#agent;
    await this.#install(await this.#makeAgent(model));
    this.#gate.setMode(mode);
    // The skills switched off stay off: /skill is for the session, whatever its model.
    this.#agent.skills.keepSwitchedOff(old.skills);
    await old.close();
  }

  #modelChoices(): Promise<string[]> {
    return modelChoices(this.model, this.#startModel ?? this.model, {
      home: this.#agent.loaded.home,
      workspace: this.root,
    });
  }

  get root(): string {
    return this.#agent.workspace.root;
  }

  get mode(): PermissionMode {
    return this.#gate.currentMode;
  }

  get busy(): boolean {
    return this.#turn !== undefined;
  }

  /** A prompt is likely soon: what the first run would do before its model call is done now. */
  prepare(): void {
    this.#agent.prepare();
  }

  /**
   * After session/new or /load has answered: what was held for the editor (warnings made while
   * the session opened) is sent, then the session's commands.
   */
  announce(): void {
    this.updates.release();
    this.announceCommands();
  }

  /** Tells the editor the session's commands. */
  announceCommands(): void {
    this.updates.send({ sessionUpdate: "available_commands_update", availableCommands: this.#commands });
  }

  /** Something the user should know that stopped nothing: a notice where the editor shows them. */
  warn(message: string): void {
    this.setup.log(`warning: ${message}`);
    if (this.setup.capabilities?.session?.notices)
      this.updates.send({ sessionUpdate: "notice", severity: "warning", title: message });
    else
      this.updates.send({
        sessionUpdate: "agent_thought_chunk",
        content: { type: "text", text: `warning: ${message}\n` },
      });
  }

  setMode(mode: PermissionMode): void {
    this.#gate.setMode(mode);
    this.updates.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
  }

  /** A prompt turn: a slash command, or a task run in the session; its updates all sent before it returns. */
  async prompt(blocks: readonly ContentBlock[]): Promise<StopReason> {
    // A prompt sent right after a cancel (the editor's "stop, and do this instead") comes while
    // the cancelled turn is still stopping: it waits for that turn's end instead of failing.
    while (this.#turn?.controller.signal.aborted) await this.#turn.ended;
    if (this.#turn)
      throw new ResonError("session_busy", `Session ${this.id} is still working on a prompt.`, {
        hint: "Wait for it to end, or cancel it (session/cancel) first.",
      });
    const ending = Promise.withResolvers<void>();
    const turn: Turn = { controller: new AbortController(), ended: ending.promise };
    this.#turn = turn;
    try {
      const { text: task, images } = promptTask(blocks, this.root);
      const command = images.length === 0 ? slashCommand(task, this.#commands) : undefined;
      assertModelTakesImages(this.#agent.provider.model, images.length);
      const outcome: CommandOutcome = command
        ? await runCommand(command, {
            agent: this.#agent,
            mcpServers: this.#mcpServers,
            signal: turn.controller.signal,
            gate: this.#gate,
            store: this.setup.store,
            sessionId: this.id,
            lastContext: this.#lastContext,
            rewind: { root: this.root, updates: this.updates, ask: (request) => this.#ask(request) },
          })
        : { kind: "task", task, images };
      if (outcome.kind === "text") {
        this.#say(outcome.text);
        return "end_turn";
      }
      if (outcome.kind === "model") {
        await this.#switchModel(outcome.model);
        this.updates.send({
          sessionUpdate: "config_option_update",
          configOptions: await this.configOptions(),
        });
        this.announceCommands();
        this.#say(`model: ${this.model} (for the next tasks)`);
        return "end_turn";
      }
      return await this.#run(turn, outcome);
    } catch (error) {
      // A cancelled turn ends `cancelled` (ACP's rule), whatever the cancel cut short: a
      // /compact's summary call, an MCP prompt being fetched.
      if (!turn.controller.signal.aborted) throw error;
      const failure = toResonError(error);
      if (failure.code !== "aborted") this.setup.log(`a cancelled turn ended with ${failure.message}`);
      return "cancelled";
    } finally {
      await this.updates.flush();
      this.#turn = undefined;
      ending.resolve();
    }
  }

  /** Stops the turn in flight at its next safe point; the run stays resumable (/resume). */
  cancel(reason = new ResonError("aborted", "Cancelled from the editor.")): void {
    this.#turn?.controller.abort(reason);
  }

  /** Cancels the turn in flight and closes the agent (its MCP servers stop). */
  async close(reason?: ResonError): Promise<void> {
    this.cancel(reason);
    await this.#agent.close();
  }

  #say(text: string): void {
    this.updates.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  }

  async #run(
    turn: Turn,
    outcome: { kind: "task"; task: string; images?: ImageContent[] } | { kind: "resume" },
  ): Promise<StopReason> {
    const run = new RunUpdates(
      this.updates,
      this.root,
      (message) => this.warn(message),
      commandPlace(this.#sandboxWarning),
    );
    turn.run = run;
    const onEvent = (event: ResonEvent) => {
      if (event.type === "run_start") {
        turn.runId = event.runId;
        this.#stored = true;
        this.#showSandbox();
      }
      if (event.type === "context_usage") this.#lastContext = event;
      run.listener(event);
    };
    const options = { signal: turn.controller.signal, onEvent };
    let result: RunResult;
    if (outcome.kind === "resume") {
      result = await this.#agent.resume(this.id, options);
      if (result.alreadyEnded) this.#say(`The last run of this session (${result.runId}) already completed.`);
    } else {
      // Looked up once: after a run has started here, the session is in the store.
      const stored = this.#stored || (await this.setup.store.sessions.get(this.id)) !== undefined;
      result = await this.#agent.run(outcome.task, {
        ...options,
        ...(outcome.images?.length ? { images: outcome.images } : {}),
        ...(stored ? { session: this.id } : { session: "new", newSessionId: this.id }),
      });
    }
    await this.#sendUsage();
    return stopReason(result, run.lastStepStop);
  }

  /** Once per session, when commands do not run in the OS sandbox: said, never given up silently. */
  #showSandbox(): void {
    if (this.#sandboxShown || !this.#sandboxWarning) return;
    this.#sandboxShown = true;
    this.warn(this.#sandboxWarning);
  }

  /** The terminal's status line: context use, and the session's cost where it is known. */
  async #sendUsage(): Promise<void> {
    const context = this.#lastContext;
    if (!context) return;
    const usage = (await this.setup.store.sessions.get(this.id))?.usage;
    const priced = usage && !usage.unpricedTokens ? { cost: { amount: usage.costUsd, currency: "USD" } } : {};
    this.updates.send({
      sessionUpdate: "usage_update",
      used: context.estTokens,
      size: context.windowTokens,
      ...priced,
    });
  }

  /** A question of reson's own (a /rewind) through session/request_permission; undefined when unanswered. */
  async #ask(request: RequestPermissionRequest): Promise<RequestPermissionResponse | undefined> {
    const signal = this.#turn?.controller.signal;
    try {
      return await this.setup.client.request(
        methods.client.session.requestPermission,
        request,
        signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : {},
      );
    } catch (error) {
      if (!signal?.aborted)
        this.setup.log(`the editor did not answer a permission request: ${String(error)}`);
      return undefined;
    }
  }

  async #askPermission(prompt: PermissionPrompt): Promise<PermissionAnswer> {
    const signal = this.#turn?.controller.signal;
    const cancelled: PermissionAnswer = { kind: "deny", note: "The user cancelled the turn." };
    if (signal?.aborted) return cancelled;
    const response = await this.#ask(
      permissionRequest(prompt, this.id, this.root, commandPlace(this.#sandboxWarning)),
    );
    if (response) return permissionAnswer(response);
    if (signal?.aborted) return cancelled;
    return { kind: "deny", note: "The editor did not answer the permission request." };
  }

  /** After the gate let a call through: its diff (write_file, edit_file) taken right before it runs. */
  #previewHook(): AgentHooks {
    return {
      beforeToolCall: async (call, info) => {
        const turn = this.#turn;
        // A sub-agent's calls are its own run's, not shown as this turn's.
        if (!turn?.run || info.runId !== turn.runId) return undefined;
        const preview = await info.preview?.(call.arguments).catch(() => undefined);
        turn.run.toolStarting(call.id, preview?.ok ? preview.change : undefined);
        return undefined;
      },
    };
  }
}
