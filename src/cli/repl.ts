// The interactive terminal's session (repl-command.ts starts it). One readline interface reads
// tasks, slash commands and permission answers; each task is a run in the same session,
// streamed as it arrives; Ctrl-C cancels the run in flight, twice at an empty prompt (or
// Ctrl-D) exits. Everything is in the store as it happens, so `reson --continue` reopens the
// session, showing its last exchanges first.
import {
  type Agent,
  type AgentOptions,
  createAgent,
  type RunResult,
  recentExchanges,
} from "../agent/index.js";
import { ResonError, toResonError } from "../core/errors.js";
import type { ContextUsageEvent, EventListener, ResonEvent } from "../core/events.js";
import { addUsage, emptyUsage, formatCost, type Usage } from "../core/usage.js";
import type { McpServers } from "../mcp/index.js";
import { describePolicy, PERMISSION_MODES, type PermissionGate, parseMode } from "../permissions/index.js";
import type { ProviderName } from "../providers/index.js";
import {
  approveProjectServer,
  gateOptions,
  type RunExtensions,
  type SandboxSetup,
  startRunExtensions,
  terminalAuthorize,
} from "../runner/index.js";
import { formatSkillList } from "../skills/index.js";
import type { Store } from "../store/index.js";
import type { HumanQuestion } from "../tools/index.js";
import { answerFromLine, answerPrompt } from "./ask-human.js";
import { didYouMean } from "./did-you-mean.js";
import { EXIT_INTERRUPTED } from "./exit-codes.js";
import { formatTokens } from "./format.js";
import { approveProjectPlugin } from "./plugin-trust-prompt.js";
import { humanRenderer } from "./render-human.js";
import { LineReader, Spinner } from "./repl-input.js";
import { REPLAYED_EXCHANGES, replayText } from "./repl-replay.js";
import { terminalRewind } from "./repl-rewind.js";
import type { ReplArgs } from "./run-args.js";
import { nothingToResume, reportError } from "./run-command.js";
import { sessionsCommand } from "./store-commands.js";
import { outsideText, printable } from "./terminal-text.js";

const SLASH_HELP = `Commands:
  /help                  this list
  /model [id]            show the model; with an id, use that model for the next tasks
  /goal                  the goal tree of the last run
  /context               context use of the last model call and its system prompt sections
  /cost                  tokens and cost of this session
  /sessions              recent sessions
  /resume <id> [--force] continue a run that stopped (--force: take it over from a stopped
                         process whose lease expired)
  /permissions           rules in force and where each came from
  /permissions mode <m>  switch mode: ${PERMISSION_MODES.join(" | ")}
  /compact [focus]       summarise the session so far (the newest turns stay whole)
  /rewind [undo]         put the files (and the conversation) back as they were before a
                         recent step; undo: put back what the latest rewind changed
  /skills                the skills found here, where from, on or off, and any warnings
  /skill <name> on|off   switch a skill for this session
  /mcp__<server>__<prompt> [args]  an MCP server's prompt, run as a task
  /clear                 start a new session for the next task
  /exit                  leave (the session is saved; \`reson --continue\` reopens it)
Anything else is a task for the agent. Ctrl-C cancels a running task; Ctrl-C twice or Ctrl-D exits.
`;

const COMMANDS = [
  "/help",
  "/model",
  "/goal",
  "/context",
  "/cost",
  "/sessions",
  "/resume",
  "/permissions",
  "/compact",
  "/rewind",
  "/skills",
  "/skill",
  "/clear",
  "/exit",
];

interface SectionData {
  section: string;
  source: string | null;
  injectedChars: number;
  truncated: boolean;
  sha256: string;
}

/** The REPL's state across tasks. */
export class Repl {
  agent!: Agent;
  /** The session the next task joins: "new" or a session id. */
  session = "new";
  sessionUsage: Usage = emptyUsage();
  lastRunId: string | undefined;
  lastGoalTree: string | undefined;
  lastContext: ContextUsageEvent | undefined;
  model = "";
  controller: AbortController | undefined;
  interruptsAtPrompt = 0;
  exiting = false;
  /** True while ask_human waits for an answer: Ctrl-C then skips the question, not the run. */
  askingHuman = false;
  readonly spinner: Spinner;
  readonly reader: LineReader;
  readonly color: boolean;
  private midLine = false;

  constructor(
    readonly args: ReplArgs,
    readonly store: Store,
    readonly gate: PermissionGate,
    readonly workspaceRoot: string,
  ) {
    const tty = process.stdin.isTTY === true && process.stdout.isTTY === true;
    this.color = tty && !process.env.NO_COLOR && process.env.TERM !== "dumb";
    this.spinner = new Spinner(tty && process.stderr.isTTY ? process.stderr : undefined);
    this.reader = new LineReader({
      input: process.stdin,
      output: process.stdout,
      terminal: tty,
      onInterrupt: () => this.interrupt(),
    });
  }

  write(text: string): void {
    this.spinner.stop();
    process.stdout.write(text);
  }

  dim(text: string): string {
    return this.color ? `\u001b[2m${text}\u001b[0m` : text;
  }

  interrupt(): void {
    if (this.askingHuman && this.reader.waiting) {
      this.write("\n(question skipped)\n");
      this.reader.cancelRead("");
      return;
    }
    if (this.controller) {
      if (this.controller.signal.aborted) {
        this.write("\nreson: interrupted again, exiting now.\n");
        process.exit(EXIT_INTERRUPTED);
      }
      this.write("\n^C cancelling the step in flight…\n");
      this.controller.abort(new ResonError("aborted", "Interrupted by Ctrl-C."));
      // A permission prompt waiting for an answer gives up (the call is denied).
      if (this.reader.waiting) this.reader.cancelRead(null);
      return;
    }
    if (this.reader.currentLine) {
      this.reader.clearLine();
      this.interruptsAtPrompt = 0;
      return;
    }
    this.interruptsAtPrompt++;
    if (this.interruptsAtPrompt >= 2) {
      this.exiting = true;
      this.reader.cancelRead(null);
      return;
    }
    this.write("\n(press Ctrl-C again or Ctrl-D to exit)\n");
    this.reader.cancelRead("");
  }

  /** How commands run (the --sandbox choice against what the machine supports). */
  sandbox: SandboxSetup["agent"] = {};
  /**
   * The session's plugins and MCP servers, set up with the first agent (each later agent gets
   * the same ones) and closed when reson exits.
   */
  extensions: Promise<RunExtensions> | undefined;

  async createAgent(model?: string): Promise<void> {
    const args = this.args;
    const io = { write: (text: string) => this.write(text), read: (q: string) => this.reader.read(q) };
    this.extensions ??= startRunExtensions({
      workspace: this.workspaceRoot,
      allowMcp: args.allowMcp,
      signal: new AbortController().signal,
      askTrust: (plugin) => approveProjectPlugin(plugin, io),
      ask: (entry, review) => approveProjectServer(entry, review, io),
      warn: (message) => this.write(`warning: ${outsideText(process.stdout)(message)}\n`),
      authorize: terminalAuthorize((text) => this.write(text)),
    }).catch((error: unknown) => {
      // Set up again by the next agent (a required server may start then).
      this.extensions = undefined;
      throw error;
    });
    const extensions = await this.extensions;
    const options: AgentOptions = {
      workspace: this.workspaceRoot,
      ...(args.provider ? { provider: args.provider as ProviderName } : {}),
      ...(model ? { model } : {}),
      ...(args.baseUrl ? { baseUrl: args.baseUrl } : {}),
      ...(args.apiKey ? { apiKey: args.apiKey } : {}),
      ...(args.maxIterations ? { maxIterations: args.maxIterations } : {}),
      ...(Object.keys(args.limits).length > 0 ? { limits: args.limits } : {}),
      ...(args.preset ? { preset: args.preset } : {}),
      ...(args.trustWorkspace ? { trustWorkspace: true } : {}),
      ...(args.browserHeaded ? { config: { browser: { headless: false } } } : {}),
    };
    const previous = this.agent?.skills;
    this.agent = await createAgent(
      extensions.agentOptions({
        ...options,
        leaseHolder: "reson (terminal)",
        store: this.store,
        ...gateOptions(this.gate),
        ...this.sandbox,
        askHuman: (question) => this.askHuman(question),
      }),
    );
    extensions.attach(this.agent);
    // The skills switched off stay off: /skill is for the session, whatever its model.
    if (previous) this.agent.skills.keepSwitchedOff(previous);
    this.model = `${this.agent.provider.model.provider}/${this.agent.provider.model.id}`;
  }

  /** ask_human: the question is on screen (the renderer showed it); reads the answer. */
  async askHuman(question: HumanQuestion): Promise<{ answer: string } | undefined> {
    this.spinner.stop();
    this.askingHuman = true;
    try {
      const line = await this.reader.read(answerPrompt(question));
      // The end of input: no one is there to answer.
      if (line === null) return undefined;
      return { answer: answerFromLine(line, question.choices) };
    } finally {
      this.askingHuman = false;
    }
  }

  /** Renders a run's events: the shared human renderer, a spinner, and what /goal, /context keep. */
  listener(): EventListener {
    const render = humanRenderer({ out: process.stdout, err: process.stdout, color: this.color });
    return (event: ResonEvent) => {
      this.spinner.stop();
      switch (event.type) {
        case "run_start":
          this.session = event.sessionId;
          this.lastRunId = event.runId;
          return;
        case "goal_changed":
          this.lastGoalTree = event.tree;
          break;
        case "context_usage":
          this.lastContext = event;
          break;
        case "run_end":
          this.sessionUsage = addUsage(this.sessionUsage, event.usage);
          break;
      }
      render(event);
      if (event.type === "text_delta") this.midLine = !event.delta.endsWith("\n");
      if (event.type === "tool_result" || event.type === "run_end") this.midLine = false;
      if (this.midLine) return;
      if (event.type === "phase" && event.phase === "call_provider") this.spinner.start("thinking…");
      if (event.type === "tool_call") this.spinner.start(`${event.name}…`);
    };
  }

  async launch(start: (signal: AbortSignal, onEvent: EventListener) => Promise<RunResult>): Promise<void> {
    const controller = new AbortController();
    this.controller = controller;
    this.midLine = false;
    try {
      const result = await start(controller.signal, this.listener());
      if (result.alreadyEnded) this.write(nothingToResume(result));
      if (result.status !== "completed" && result.error?.code !== "lease_lost")
        this.write(`  continue it with: /resume ${result.runId}\n`);
    } catch (error) {
      this.spinner.stop();
      reportError(toResonError(error));
    } finally {
      this.spinner.stop();
      this.controller = undefined;
    }
    if (this.midLine) this.write("\n");
    this.write(`${this.dim(await this.statusLine())}\n`);
  }

  async statusLine(): Promise<string> {
    const context = this.lastContext;
    const used =
      context && context.windowTokens > 0
        ? `context ${Math.round((100 * context.estTokens) / context.windowTokens)}% of ${formatTokens(context.windowTokens)}`
        : "context —";
    const usage = await this.usage();
    return `${this.model} · ${used} · ${formatTokens(usage.totalTokens)} tokens · ${formatCost(usage)} this session`;
  }

  /** The session's usage as the store has it (includes earlier REPLs), else what this one saw. */
  async usage(): Promise<Usage> {
    if (this.session === "new") return this.sessionUsage;
    const record = await this.store.sessions.get(this.session).catch(() => undefined);
    return record && record.usage.totalTokens >= this.sessionUsage.totalTokens
      ? record.usage
      : this.sessionUsage;
  }

  /** Shows the last exchanges of a session this terminal continues. */
  async replay(sessionId: string): Promise<void> {
    const replay = await recentExchanges(this.store, sessionId, REPLAYED_EXCHANGES);
    this.write(replayText(replay, { safe: outsideText(process.stdout), dim: (text) => this.dim(text) }));
  }

  async runTask(task: string): Promise<void> {
    const session = this.session;
    await this.launch((signal, onEvent) => this.agent.run(task, { session, signal, onEvent }));
  }

  /** Handles a slash command; false means exit. */
  async command(line: string): Promise<boolean> {
    const [name = "", ...rest] = line.trim().split(/\s+/);
    const arg = rest.join(" ");
    switch (name) {
      case "/help":
        this.write(SLASH_HELP);
        return true;
      case "/exit":
      case "/quit":
        return false;
      case "/model":
        if (!arg) {
          this.write(`model: ${this.model}\n`);
          return true;
        }
        try {
          await this.createAgent(arg);
          this.write(`model: ${this.model} (for the next tasks)\n`);
        } catch (error) {
          reportError(toResonError(error));
        }
        return true;
      case "/goal":
        this.write(
          this.lastGoalTree
            ? `${outsideText(process.stdout)(this.lastGoalTree)}\n`
            : "No goal tree yet in this session.\n",
        );
        return true;
      case "/context":
        await this.showContext();
        return true;
      case "/cost": {
        const usage = await this.usage();
        this.write(
          `session ${this.session === "new" ? "(new)" : this.session}: ${formatTokens(usage.totalTokens)} tokens ` +
            `(input ${formatTokens(usage.input)}, output ${formatTokens(usage.output)}, cache read ${formatTokens(usage.cacheRead)}) · ${formatCost(usage)}\n`,
        );
        return true;
      }
      case "/sessions":
        await sessionsCommand(["-n", "10"]);
        return true;
      case "/resume": {
        const force = rest.includes("--force");
        const id = rest.filter((word) => word !== "--force").join(" ");
        if (!id) {
          this.write("Usage: /resume <id> [--force]  (`/sessions` lists them)\n");
          return true;
        }
        // Where the conversation stands first; an id that names nothing is reported by the resume.
        const found = await this.store.resolveId(id).catch(() => undefined);
        const sessionId = !found
          ? undefined
          : found.kind === "session"
            ? found.session.id
            : found.trace.sessionId;
        if (sessionId) await this.replay(sessionId);
        await this.launch((signal, onEvent) =>
          this.agent.resume(id, { signal, onEvent, ...(force ? { force: true } : {}) }),
        );
        return true;
      }
      case "/permissions":
        this.permissions(rest);
        return true;
      case "/clear":
        this.session = "new";
        this.sessionUsage = emptyUsage();
        this.lastGoalTree = undefined;
        this.lastContext = undefined;
        this.write("The next task starts a new session.\n");
        return true;
      case "/compact":
        await this.compact(arg);
        return true;
      case "/rewind":
        await terminalRewind(
          this.store,
          { write: (text) => this.write(text), read: (prompt) => this.reader.read(prompt) },
          {
            sessionId: this.session === "new" ? undefined : this.session,
            workspace: this.workspaceRoot,
            undo: arg === "undo",
          },
        );
        return true;
      case "/skills":
        this.write(`${formatSkillList(this.agent.skills)}\n`);
        return true;
      case "/skill":
        this.skill(rest);
        return true;
      default:
        if (name.startsWith("/mcp__")) {
          const servers = (await this.extensions)?.mcp.servers;
          if (servers) {
            await this.mcpPrompt(servers, name.slice(1), arg);
            return true;
          }
        }
        this.write(
          `Unknown command ${printable(name)}.${didYouMean(name, COMMANDS)} Commands: ${COMMANDS.join(", ")}.\n`,
        );
        return true;
    }
  }

  /** `/mcp__server__prompt args`: the MCP prompt's text, run as a task. */
  async mcpPrompt(servers: McpServers, name: string, argumentText: string): Promise<void> {
    let task: string;
    try {
      task = await servers.promptTask(name, argumentText, new AbortController().signal);
    } catch (error) {
      reportError(toResonError(error));
      return;
    }
    await this.runTask(task);
  }

  /** `/skill <name> on|off`: switches a skill for this session. */
  skill(rest: string[]): void {
    const [skillName, state] = rest;
    if (!skillName || (state !== "on" && state !== "off")) {
      this.write("Usage: /skill <name> on|off  (`/skills` lists them)\n");
      return;
    }
    if (!this.agent.skills.setEnabled(skillName, state === "on")) {
      this.write(`No skill named ${skillName}. \`/skills\` lists them.\n`);
      return;
    }
    this.write(`Skill ${skillName} is ${state} for this session.\n`);
  }

  async compact(focus: string): Promise<void> {
    if (this.session === "new") {
      this.write("Nothing to compact: this session has no turns yet.\n");
      return;
    }
    try {
      const done = await this.agent.compactSession(this.session, focus ? { focus } : {});
      this.write(
        `Compacted ${done.turns} turns into a ${done.summaryChars}-character summary; ` +
          `the history the next task sees: ${formatTokens(done.beforeTokens)} -> ${formatTokens(done.afterTokens)} tokens (estimated).\n`,
      );
    } catch (error) {
      reportError(toResonError(error));
    }
  }

  permissions(rest: string[]): void {
    if (rest[0] === "mode") {
      const mode = parseMode(rest[1] ?? "");
      if (!mode) {
        this.write(`Usage: /permissions mode <${PERMISSION_MODES.join(" | ")}>\n`);
        return;
      }
      this.gate.setMode(mode);
      this.write(`Permission mode: ${mode}\n`);
      return;
    }
    this.write(`${describePolicy(this.gate.currentPolicy)}\n`);
    if (this.gate.currentMode !== this.gate.currentPolicy.mode)
      this.write(`Mode now: ${this.gate.currentMode} (set in this session)\n`);
  }

  async showContext(): Promise<void> {
    const context = this.lastContext;
    if (!context || !this.lastRunId) {
      this.write("No model call yet in this session.\n");
      return;
    }
    this.write(
      `context ${formatTokens(context.estTokens)} tokens (estimated) · budget ${formatTokens(context.budgetTokens)} · window ${formatTokens(context.windowTokens)}\n`,
    );
    const steps = await this.store.steps.list(this.lastRunId);
    const last = steps.filter((s) => s.kind === "model_call").at(-1);
    const sections = (last?.data as { context?: { sections?: SectionData[] } } | undefined)?.context
      ?.sections;
    if (!sections) return;
    this.write("system prompt sections:\n");
    for (const s of sections) {
      this.write(
        `  ${s.section}${s.source ? ` (${s.source})` : ""}: ${s.injectedChars} chars${s.truncated ? ", cut" : ""} · sha256 ${s.sha256.slice(0, 12)}\n`,
      );
    }
  }

  async loop(): Promise<void> {
    for (;;) {
      const line = await this.reader.read("reson> ");
      if (line === null || this.exiting) return;
      const text = line.trim();
      if (!text) continue;
      this.interruptsAtPrompt = 0;
      if (text.startsWith("/")) {
        if (!(await this.command(text))) return;
        continue;
      }
      await this.runTask(text);
    }
  }
}
