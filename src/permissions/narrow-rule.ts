// The narrowest allow rule for one thing a call does (a command, a write, a fetch), in the
// syntax users write, and the rules that would let a whole decision through: one per part
// that asked, never the bare tool where a part can be named.
import { isAbsolute, relative } from "node:path";
import { exactCommandPattern } from "./command-pattern.js";
import { escapeGlob } from "./path-pattern.js";
import { BROWSER_NAVIGATE_TOOL, COMMAND_TOOL, FETCH_TOOL, isWriteTool, PATH_TOOLS } from "./tool-names.js";
import type { Decision } from "./types.js";

/** What a rule can name of one action. */
export interface RuleTarget {
  tool: string;
  /** The absolute path written or read. */
  path?: string;
  /** The host a fetch or a navigation goes to. */
  host?: string;
  /** The command as allow rules see it (wrappers stripped). */
  command?: { text: string };
}

/**
 * The rule covering just this action: a command by its exact text (`execute_command(make
 * build)`), a file write by Claude Code's `Edit(./path)` (which covers write_file, edit_file and a
 * redirect into the file), a fetch by its host; the bare tool only when nothing narrower names it.
 */
export function narrowAllowRule(target: RuleTarget, workspaceRoot: string): string | undefined {
  if (target.tool === COMMAND_TOOL) {
    const text = target.command?.text ?? "";
    return text === "" ? undefined : `${COMMAND_TOOL}(${exactCommandPattern(text)})`;
  }
  if (target.path !== undefined) {
    const pattern = pathPattern(target.path, workspaceRoot);
    if (isWriteTool(target.tool)) return `Edit(${pattern})`;
    if (target.tool in PATH_TOOLS) return `${target.tool}(${pattern})`;
  }
  if (target.host !== undefined) {
    if (target.tool === FETCH_TOOL) return `${FETCH_TOOL}(domain:${target.host})`;
    if (target.tool === BROWSER_NAVIGATE_TOOL) return `browser(domain:${target.host})`;
  }
  return target.tool;
}

/**
 * The rules that would let the call of `decision` through: the allow rule of every part that
 * asked (or was denied by the mode), each once. Undefined when one of those parts has none
 * (a guard, an ask or deny rule, a path the sandbox refuses), where no rule would help.
 */
export function allowRulesFor(decision: Decision): string[] | undefined {
  const rules: string[] = [];
  for (const part of blockingParts(decision)) {
    if (part.allowRule === undefined) return undefined;
    if (!rules.includes(part.allowRule)) rules.push(part.allowRule);
  }
  return rules.length > 0 ? rules : undefined;
}

/** The parts that made the decision what it is (every part that asks, for an ask), or the call. */
export function blockingParts(decision: Decision): Decision[] {
  return decision.parts?.filter((part) => part.behavior === decision.behavior) ?? [decision];
}

/** `./rel` inside the workspace (glob characters escaped), `//abs` outside it. */
function pathPattern(path: string, workspaceRoot: string): string {
  const rel = relative(workspaceRoot, path);
  if (rel === "" || rel === ".." || rel.startsWith("../") || isAbsolute(rel)) return `/${escapeGlob(path)}`;
  return `./${escapeGlob(rel)}`;
}
