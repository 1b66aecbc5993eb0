// reson's tool names, how Claude Code's names map onto them, and which tools only read.
import { BROWSER_TOOL_NAMES } from "../browser/index.js";

export const READ_ONLY_TOOLS = [
  "list_files",
  "read_file",
  "glob",
  "grep",
  "read_artifact",
  "goal",
  // Asking the user changes nothing; it is never gated.
  "ask_human",
] as const;
export const WRITE_TOOLS = ["write_file", "edit_file"] as const;
export const COMMAND_TOOL = "execute_command";
export const FETCH_TOOL = "web_fetch";
export const BROWSER_NAVIGATE_TOOL = "browser_navigate";
/** In a rule, `browser` covers every browser tool and `browser(domain:…)` navigation to those hosts. */
export const BROWSER_FAMILY = "browser";
/** Every browser tool, as the browser module names them. */
export const BROWSER_TOOLS: readonly string[] = BROWSER_TOOL_NAMES;

/** Built-in tools a rule may name without a warning. */
export const KNOWN_TOOLS: readonly string[] = [
  ...READ_ONLY_TOOLS,
  ...WRITE_TOOLS,
  COMMAND_TOOL,
  FETCH_TOOL,
  BROWSER_FAMILY,
  ...BROWSER_TOOLS,
  "skill",
  "subagent",
];

/** Tools whose rule specifier is a path pattern, and the argument holding the path. */
export const PATH_TOOLS: Readonly<Record<string, string>> = {
  read_file: "path",
  list_files: "path",
  glob: "path",
  grep: "path",
  write_file: "path",
  edit_file: "path",
};

const READ_FAMILY = ["read_file", "list_files", "glob", "grep"] as const;
const WRITE_FAMILY = ["edit_file", "write_file"] as const;

interface ClaudeMapping {
  /** Tools a bare rule (`Edit`) covers. */
  bare: readonly string[];
  /** Tools a path-scoped rule covers (Claude applies Read/Edit path rules to all read/edit tools). */
  scoped: readonly string[];
  /** Extra tools a path-scoped *deny* covers (a Read deny also blocks writing the path). */
  denyAlso?: readonly string[];
}

export const CLAUDE_TOOL_NAMES: Readonly<Record<string, ClaudeMapping>> = {
  Bash: { bare: [COMMAND_TOOL], scoped: [COMMAND_TOOL] },
  Read: { bare: ["read_file"], scoped: READ_FAMILY, denyAlso: WRITE_FAMILY },
  Edit: { bare: ["edit_file"], scoped: WRITE_FAMILY },
  MultiEdit: { bare: ["edit_file"], scoped: WRITE_FAMILY },
  Write: { bare: ["write_file"], scoped: WRITE_FAMILY },
  Glob: { bare: ["glob"], scoped: ["glob"] },
  Grep: { bare: ["grep"], scoped: ["grep"] },
  LS: { bare: ["list_files"], scoped: ["list_files"] },
  WebFetch: { bare: [FETCH_TOOL], scoped: [FETCH_TOOL] },
  AskUserQuestion: { bare: ["ask_human"], scoped: ["ask_human"] },
};

/** Claude Code tools reson has no counterpart for: rules naming them are dropped with a warning. */
export const CLAUDE_ONLY_TOOLS: readonly string[] = [
  "WebSearch",
  "NotebookEdit",
  "NotebookRead",
  "TodoWrite",
  "TodoRead",
  "Task",
  "Agent",
  "Skill",
  "Cd",
  "KillShell",
  "BashOutput",
  "ExitPlanMode",
];

/**
 * Tools that only start other runs (sub-agents) whose every call passes the same checks: they
 * need no approval of their own (a deny rule still stops them).
 */
export const DELEGATING_TOOLS: readonly string[] = ["subagent"];

export function isDelegatingTool(tool: string): boolean {
  return DELEGATING_TOOLS.includes(tool);
}

export function isReadOnlyTool(tool: string, extra: readonly string[] = []): boolean {
  return (READ_ONLY_TOOLS as readonly string[]).includes(tool) || extra.includes(tool);
}

export function isWriteTool(tool: string): boolean {
  return (WRITE_TOOLS as readonly string[]).includes(tool);
}

/** A tool an MCP server provides (`mcp__<server>__<tool>`). */
export function isMcpTool(tool: string): boolean {
  return tool.startsWith("mcp__");
}
