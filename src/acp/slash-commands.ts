// The editor's slash commands: the terminal's that make sense beside an editor (/compact,
// /resume, /cost, /context, /skills, /skill, /permissions, /model, /rewind), and every skill the user may invoke
// by name (`/name what to do`), offered in available_commands_update. A line that names none
// of them is a task, so a prompt that begins with a path ("/usr/lib is full…") is not lost.
import type { AvailableCommand } from "@agentclientprotocol/sdk";
import type { Agent } from "../agent/index.js";
import type { ContextUsageEvent } from "../core/events.js";
import { formatCost } from "../core/usage.js";
import type { McpPromptCommand, McpServers } from "../mcp/index.js";
import { describePolicy, type PermissionGate } from "../permissions/index.js";
import type { ImageContent } from "../providers/index.js";
import { formatSkillList, type SkillSet, userInvokedTask } from "../skills/index.js";
import type { Store } from "../store/index.js";
import { editorRewind, type RewindScope } from "./rewind-command.js";

const BUILT_IN: readonly AvailableCommand[] = [
  {
    name: "compact",
    description: "Summarise the session so far; the newest task and its work stay whole",
    input: { hint: "what the summary should keep (optional)" },
  },
  {
    name: "resume",
    description: "Continue this session's last run where it stopped (after a cancel or a crash)",
  },
  { name: "cost", description: "Tokens and cost of this session" },
  { name: "context", description: "How full the context of the last model call was" },
  { name: "skills", description: "The skills found here, where from, on or off" },
  {
    name: "skill",
    description: "Switch a skill on or off for this session",
    input: { hint: "<name> on|off" },
  },
  { name: "permissions", description: "The permission rules in force and where each came from" },
  {
    name: "model",
    description: "The session's model; with an id, the model of the next tasks (same provider)",
    input: { hint: "model id (optional)" },
  },
  {
    name: "rewind",
    description:
      "The steps that changed files; with N, put files (and conversation) back to before it; undo undoes the last",
    input: { hint: "N [--files-only] | undo (optional)" },
  },
];

export function availableCommands(
  skills: SkillSet,
  mcpPrompts: readonly McpPromptCommand[] = [],
): AvailableCommand[] {
  const invocable = skills
    .enabled()
    .filter((skill) => skill.userInvocable && !BUILT_IN.some((command) => command.name === skill.name))
    .map((skill) => ({ name: skill.name, description: skill.description, input: { hint: "what to do" } }));
  // An MCP server's prompts, as the terminal's /mcp__server__prompt: the prompt's text is the task.
  const prompts = mcpPrompts.map((command) => ({
    name: command.name,
    description: command.prompt.description ?? `${command.server}'s prompt ${command.prompt.name}`,
    ...(command.prompt.arguments.length > 0
      ? { input: { hint: command.prompt.arguments.map((argument) => argument.name).join(" ") } }
      : {}),
  }));
  return [...BUILT_IN, ...invocable, ...prompts];
}

export interface SlashCommand {
  name: string;
  args: string;
}

/** The command a prompt names, when its first word is one of the session's commands. */
export function slashCommand(task: string, commands: readonly AvailableCommand[]): SlashCommand | undefined {
  const match = /^\/([A-Za-z0-9_.:-]+)(?:\s+([\s\S]*))?$/.exec(task.trim());
  if (!match || !commands.some((command) => command.name === match[1])) return undefined;
  return { name: match[1]!, args: (match[2] ?? "").trim() };
}

export interface CommandScope {
  agent: Agent;
  /** The session's MCP servers, whose prompts are commands. */
  mcpServers: McpServers | undefined;
  signal: AbortSignal;
  gate: PermissionGate;
  store: Store;
  sessionId: string;
  lastContext: ContextUsageEvent | undefined;
  /** What /rewind needs beyond the above: the editor to show the rewind and ask. */
  rewind: Pick<RewindScope, "root" | "updates" | "ask">;
}

/** What a command comes to: text for the user, a task to run, the last run to resume, or a model to switch to. */
export type CommandOutcome =
  | { kind: "text"; text: string }
  | { kind: "task"; task: string; images?: ImageContent[] }
  | { kind: "resume" }
  | { kind: "model"; model: string };

export async function runCommand(command: SlashCommand, scope: CommandScope): Promise<CommandOutcome> {
  const text = (value: string): CommandOutcome => ({ kind: "text", text: value });
  const session = await scope.store.sessions.get(scope.sessionId);
  switch (command.name) {
    case "resume":
      return session ? { kind: "resume" } : text("Nothing to resume: this session has no run yet.");
    case "compact": {
      if (!session) return text("Nothing to compact: this session has no turns yet.");
      // Cancelled with the turn: the summary call stops and nothing is compacted.
      const done = await scope.agent.compactSession(scope.sessionId, {
        signal: scope.signal,
        ...(command.args ? { focus: command.args } : {}),
      });
      return text(
        `Compacted ${done.turns} turns into a ${done.summaryChars}-character summary; the next task sees about ${done.afterTokens} tokens of history instead of ${done.beforeTokens}.`,
      );
    }
    case "cost": {
      const usage = session?.usage;
      if (!usage) return text("No model call yet in this session.");
      return text(
        `${usage.totalTokens} tokens (input ${usage.input}, output ${usage.output}, cache read ${usage.cacheRead}) · ${formatCost(usage)}`,
      );
    }
    case "context": {
      const context = scope.lastContext;
      if (!context) return text("No model call yet in this session.");
      const share =
        context.windowTokens > 0 ? Math.round((100 * context.estTokens) / context.windowTokens) : 0;
      return text(
        `context ${share}% of the window: ${context.estTokens} tokens (estimated) · budget ${context.budgetTokens} · window ${context.windowTokens}`,
      );
    }
    case "skills":
      return text(formatSkillList(scope.agent.skills));
    case "skill": {
      const [name, state] = command.args.split(/\s+/);
      if (!name || (state !== "on" && state !== "off")) return text("Usage: /skill <name> on|off");
      return text(
        scope.agent.skills.setEnabled(name, state === "on")
          ? `Skill ${name} is ${state} for this session.`
          : `No skill named ${name}; /skills lists them.`,
      );
    }
    case "permissions":
      return text(describePolicy(scope.gate.currentPolicy));
    case "rewind":
      return text(
        await editorRewind(command.args, { store: scope.store, sessionId: scope.sessionId, ...scope.rewind }),
      );
    case "model": {
      const model = scope.agent.provider.model;
      return command.args
        ? { kind: "model", model: command.args }
        : text(`model: ${model.id} (${model.provider})`);
    }
  }
  if (command.name.startsWith("mcp__") && scope.mcpServers)
    return {
      kind: "task",
      task: await scope.mcpServers.promptTask(command.name, command.args, scope.signal),
    };
  const skill = scope.agent.skills.get(command.name);
  if (!skill) return text(`Unknown command /${command.name}.`);
  return { kind: "task", task: await userInvokedTask(skill, command.args, scope.agent.workspace.root) };
}
