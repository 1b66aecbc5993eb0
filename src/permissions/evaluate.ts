// The decision for one tool call: deny rules first (from any source), then the structural
// limits of plan mode, then the guards and ask rules, then allow rules and the read-only
// set, and last the mode's default. For execute_command every subcommand and every redirect
// target is decided on its own and the strictest answer wins. Pure: no I/O, never throws.
import { resolve } from "node:path";
import { isWithin } from "../core/path-within.js";
import { normalizeCommandText } from "./command-pattern.js";
import {
  commandWriteTargets,
  criticalTargetReason,
  findDeleteTargets,
  protectedPathReason,
  recursiveRmTargets,
  resolveUserPath,
} from "./guards.js";
import { matchesPathPattern } from "./path-pattern.js";
import { isReadOnlyCommand } from "./read-only-commands.js";
import { ruleSourceLabel } from "./rule.js";
import { hasSubstitutionMark, parseCommandLine, type SimpleCommand } from "./shell-parse.js";
import {
  BROWSER_NAVIGATE_TOOL,
  COMMAND_TOOL,
  FETCH_TOOL,
  isDelegatingTool,
  isReadOnlyTool,
  isWriteTool,
  PATH_TOOLS,
} from "./tool-names.js";
import type {
  DecidingRule,
  Decision,
  EvaluationContext,
  PartDecision,
  PermissionMode,
  Policy,
  Rule,
  RuleList,
  ToolCall,
} from "./types.js";
import { isDangerousVariable, stripWrappers } from "./wrappers.js";

type ActionKind = "read" | "write" | "command" | "other";

interface Action {
  kind: ActionKind;
  tool: string;
  part: string;
  path?: string;
  command?: {
    /** Wrappers stripped, words as written: what allow rules see. */
    text: string;
    /** More spellings deny and ask rules also see (quotes removed, wrappers kept). */
    variants: string[];
    readOnly: boolean;
  };
  /** web_fetch, browser_navigate: the host the request goes to. */
  host?: string;
  /** Set when the action must be asked whatever the rules and mode (unless denied). */
  guard?: string;
  /** With a guard: how a headless run, which cannot ask, gets the action through. */
  headlessHint?: string;
  /** Set when neither an allow rule nor the read-only set may approve the action. */
  noAutoAllow?: string;
}

export function evaluate(call: ToolCall, policy: Policy, context: EvaluationContext): Decision {
  const mode = context.mode ?? policy.mode;
  try {
    if (call.tool === COMMAND_TOOL) return evaluateCommand(call.arguments, policy, context, mode);
    return decideAction(toolAction(call, context), policy, context, mode);
  } catch (error) {
    // Fail closed: a bug here must cost a question, never a silent allow.
    return {
      behavior: mode === "dontAsk" || mode === "plan" ? "deny" : "ask",
      reason: `the permission check failed (${error instanceof Error ? error.message : String(error)})`,
      decidedBy: "guard",
    };
  }
}

function toolAction(call: ToolCall, context: EvaluationContext): Action {
  const kind: ActionKind =
    isReadOnlyTool(call.tool, context.readOnlyTools) || isDelegatingTool(call.tool)
      ? "read"
      : isWriteTool(call.tool)
        ? "write"
        : "other";
  const action: Action = { kind, tool: call.tool, part: call.tool };
  if (call.tool === FETCH_TOOL || call.tool === BROWSER_NAVIGATE_TOOL)
    return fetchAction(action, call.arguments);
  const pathArg = PATH_TOOLS[call.tool];
  if (pathArg === undefined) return action;
  const value = isRecord(call.arguments) ? call.arguments[pathArg] : undefined;
  if (typeof value !== "string" || value === "") {
    if (kind === "write") return { ...action, guard: "the call names no file to write" };
    return { ...action, path: context.workspaceRoot };
  }
  const path = resolve(context.workspaceRoot, value);
  const part = `${call.tool} ${value}`;
  if (kind !== "write") return { ...action, part, path };
  const guard = protectedPathReason(path);
  return { ...action, part, path, ...(guard ? { guard } : {}) };
}

function fetchAction(action: Action, args: unknown): Action {
  const url = isRecord(args) ? args.url : undefined;
  let host: string | undefined;
  try {
    host = typeof url === "string" ? new URL(url).hostname.toLowerCase().replace(/\.$/, "") : undefined;
  } catch {
    host = undefined;
  }
  return host ? { ...action, part: `${action.tool} ${host}`, host } : action;
}

function hostMatches(host: string | undefined, pattern: string): boolean {
  if (host === undefined) return false;
  if (pattern.startsWith("*.")) {
    const base = pattern.slice(2);
    return host === base || host.endsWith(`.${base}`);
  }
  return host === pattern;
}

function evaluateCommand(
  args: unknown,
  policy: Policy,
  context: EvaluationContext,
  mode: PermissionMode,
): Decision {
  const command = isRecord(args) ? args.command : undefined;
  if (typeof command !== "string")
    return decideAction(
      { kind: "command", tool: COMMAND_TOOL, part: "(no command)", guard: "the call has no command string" },
      policy,
      context,
      mode,
    );
  const actions = commandActions(command, context);
  if (context.sandbox === "none") actions.push(unsandboxedAction());
  const parts: PartDecision[] = actions.map((action) => ({
    part: action.part,
    ...decideAction(action, policy, context, mode),
  }));
  return combine(parts);
}

/**
 * Whether a command line only reads, by the same list that lets read-only commands run without
 * a rule: every part a read-only command, every redirect harmless, nothing reson is unsure of.
 * Pure, like evaluate; a command it cannot read counts as one that writes.
 */
export function commandOnlyReads(command: string, context: EvaluationContext): boolean {
  try {
    return commandActions(command, context).every(
      (action) =>
        action.guard === undefined &&
        (action.kind === "read" || (action.kind === "command" && action.command?.readOnly === true)),
    );
  } catch {
    return false;
  }
}

function commandActions(command: string, context: EvaluationContext): Action[] {
  const parsed = parseCommandLine(command);
  const actions: Action[] = [];
  const gitNeedsCare = parsed.commands.some((c) => c.words[0]?.value === "cd") && parsed.commands.some(isGit);
  let cwd: string | undefined = context.workspaceRoot;
  for (const simple of parsed.commands) {
    const stripped = stripWrappers(simple.words);
    const args = stripped.words.map((word) => word.value);
    const text = normalizeCommandText(stripped.words.map((word) => word.raw).join(" "));
    const variants = [
      normalizeCommandText(args.join(" ")),
      normalizeCommandText(simple.words.map((word) => word.raw).join(" ")),
    ];
    // git after cd may run another repository's hooks, so it is no longer read-only.
    const readOnly = isReadOnlyCommand(args) && !(args[0] === "git" && gitNeedsCare);
    const action: Action = {
      kind: "command",
      tool: COMMAND_TOOL,
      part: text || "(redirect only)",
      command: { text, variants, readOnly },
    };
    const dangerous = stripped.assignments.filter(isDangerousVariable);
    if (dangerous.length > 0) action.noAutoAllow = `it sets ${dangerous.join(", ")}`;
    const guard = commandGuard(args, cwd, context);
    if (guard) action.guard = guard;
    actions.push(action);
    for (const redirect of simple.redirects) {
      if (!/^(>|>>|>\||&>|&>>|<>)$/.test(redirect.op)) continue;
      actions.push(redirectAction(redirect.op, redirect.target.value, cwd, context));
    }
    if (args[0] === "cd") cwd = nextCwd(args[1], cwd, context);
  }
  if (parsed.problems.length > 0)
    actions.push({
      kind: "command",
      tool: COMMAND_TOOL,
      part: normalizeCommandText(command).slice(0, 200),
      command: { text: normalizeCommandText(command), variants: [], readOnly: false },
      guard: `reson cannot read this command with certainty: ${unique(parsed.problems).join("; ")}`,
    });
  if (actions.length === 0)
    actions.push({
      kind: "command",
      tool: COMMAND_TOOL,
      part: "(empty)",
      command: { text: "", variants: [], readOnly: true },
    });
  return actions;
}

const UNSANDBOXED_REASON =
  "no OS sandbox works on this machine, so this command would run OUTSIDE any sandbox";
const UNSANDBOXED_HEADLESS_HINT =
  "Run `reson doctor` to see what is missing (usually: apt-get install bubblewrap), or pass --sandbox off to run commands without an OS sandbox.";

/** The extra part of every command when no sandbox can hold it: always asked, never auto-allowed. */
function unsandboxedAction(): Action {
  return {
    kind: "command",
    tool: COMMAND_TOOL,
    part: "(no sandbox)",
    command: { text: "", variants: [], readOnly: false },
    guard: UNSANDBOXED_REASON,
    headlessHint: UNSANDBOXED_HEADLESS_HINT,
  };
}

function isGit(simple: SimpleCommand): boolean {
  return stripWrappers(simple.words).words[0]?.value === "git";
}

function commandGuard(
  args: string[],
  cwd: string | undefined,
  context: EvaluationContext,
): string | undefined {
  let words = args;
  // For the critical guard, look through privilege wrappers too.
  while (words[0] === "sudo" || words[0] === "doas") {
    words = words.slice(1);
    while (words[0]?.startsWith("-")) words = words.slice(/^-[ugCDhpr]$/.test(words[0]) ? 2 : 1);
  }
  for (const target of [...recursiveRmTargets(words), ...findDeleteTargets(words)]) {
    // Subshells hide where `cd` leaves us, so check from the workspace root as well.
    const reason =
      criticalTargetReason(target, cwd, context) ??
      criticalTargetReason(target, context.workspaceRoot, context);
    if (reason) return `recursive delete of a critical path: ${reason}`;
  }
  for (const target of commandWriteTargets(words)) {
    const reason = protectedPathReason(
      resolveUserPath(target, cwd ?? context.workspaceRoot, context.userHome),
    );
    if (reason) return `the command writes a protected path: ${reason}`;
  }
  return undefined;
}

const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);

function redirectAction(
  op: string,
  target: string,
  cwd: string | undefined,
  context: EvaluationContext,
): Action {
  const part = `${op} ${target}`;
  const base: Action = { kind: "write", tool: "write_file", part };
  if (HARMLESS_TARGETS.has(target) || /^\/dev\/fd\/\d+$/.test(target)) return { ...base, kind: "read" };
  const unexpanded = target.replace(/^\$\{HOME\}|^\$HOME(?![A-Za-z0-9_])/, "~");
  if (/[$`]/.test(unexpanded) || hasSubstitutionMark(unexpanded))
    return { ...base, guard: `the redirect target ${target} depends on a variable or substitution` };
  if (cwd === undefined && !unexpanded.startsWith("/") && !unexpanded.startsWith("~"))
    return { ...base, guard: `the redirect target ${target} is relative to a directory reson cannot know` };
  const path = resolveUserPath(target, cwd ?? context.workspaceRoot, context.userHome);
  const guard = protectedPathReason(path);
  return { ...base, path, ...(guard ? { guard } : {}) };
}

function nextCwd(
  target: string | undefined,
  cwd: string | undefined,
  context: EvaluationContext,
): string | undefined {
  if (target === undefined || target === "~") return context.userHome;
  if (target === "-" || /[$`*?[]/.test(target) || hasSubstitutionMark(target)) return undefined;
  if (cwd === undefined && !target.startsWith("/") && !target.startsWith("~")) return undefined;
  return resolveUserPath(target, cwd ?? context.workspaceRoot, context.userHome);
}

function decideAction(
  action: Action,
  policy: Policy,
  context: EvaluationContext,
  mode: PermissionMode,
): Decision {
  const deny = findRule(policy, "deny", action, context);
  if (deny) return byRule("deny", deny, `denied by rule ${deny.text}`);

  if (mode === "plan" && blockedInPlan(action))
    return {
      behavior: "deny",
      reason: `plan mode does not change anything: ${describeKind(action)} is not allowed`,
      decidedBy: "mode",
      modeDefault: "plan",
    };

  const verdict = decideUndenied(action, policy, context, mode);
  if (verdict.behavior !== "ask") return verdict;
  if (mode === "dontAsk")
    return {
      ...verdict,
      behavior: "deny",
      reason: `dontAsk mode denies what would be asked: ${verdict.reason}`,
    };
  // Only the mode's default gives way to an allow rule; anything else asks again next time.
  return verdict.decidedBy === "mode" && !action.noAutoAllow ? verdict : { ...verdict, alwaysAsked: true };
}

function decideUndenied(
  action: Action,
  policy: Policy,
  context: EvaluationContext,
  mode: PermissionMode,
): Decision {
  if (action.guard)
    return {
      behavior: "ask",
      reason: action.guard,
      decidedBy: "guard",
      ...(action.headlessHint ? { headlessHint: action.headlessHint } : {}),
    };
  const ask = findRule(policy, "ask", action, context);
  if (ask) return byRule("ask", ask, `rule ${ask.text} asks`);
  if (!action.noAutoAllow) {
    const allow = findRule(policy, "allow", action, context);
    if (allow) return byRule("allow", allow, `allowed by rule ${allow.text}`);
    if (action.kind === "read") {
      const reason = isDelegatingTool(action.tool)
        ? "it starts sub-agents, whose every call is checked on its own"
        : "read-only tool";
      return { behavior: "allow", reason, decidedBy: "read_only" };
    }
    if (action.command?.readOnly)
      return { behavior: "allow", reason: "read-only command", decidedBy: "read_only" };
  }
  const why = action.noAutoAllow ? ` (${action.noAutoAllow})` : "";
  const modeDecision = (behavior: Decision["behavior"], reason: string): Decision => ({
    behavior,
    reason: reason + why,
    decidedBy: "mode",
    modeDefault: mode,
  });
  switch (mode) {
    case "bypass":
      return modeDecision("allow", "bypass mode allows what no rule denies");
    case "dontAsk":
      return modeDecision("deny", `dontAsk mode denies ${describeKind(action)} that no rule allows`);
    case "acceptEdits":
      if (
        action.kind === "write" &&
        action.path !== undefined &&
        isWithin(action.path, context.workspaceRoot)
      )
        return modeDecision("allow", "acceptEdits mode allows file edits inside the workspace");
      // In the sandbox a command can write only the workspace (and a private /tmp): the
      // same reach as the edits this mode accepts.
      if (context.sandbox === "enforced" && (action.kind === "command" || isRedirect(action)))
        return modeDecision("allow", "acceptEdits mode allows commands inside the OS sandbox");
      return modeDecision("ask", `acceptEdits mode asks before ${describeKind(action)}`);
    default:
      return modeDecision("ask", `${mode} mode asks before ${describeKind(action)}`);
  }
}

function isRedirect(action: Action): boolean {
  return action.tool === "write_file" && action.part.startsWith(">");
}

function blockedInPlan(action: Action): boolean {
  if (action.kind === "write" || action.kind === "other") return true;
  return action.kind === "command" && action.command?.readOnly !== true;
}

function describeKind(action: Action): string {
  switch (action.kind) {
    case "write":
      return action.tool === "write_file" && action.part.startsWith(">")
        ? `writing ${action.part.replace(/^\S+ /, "")} by redirection`
        : `writing ${action.path ?? "a file"}`;
    case "command":
      return `running \`${action.part}\``;
    case "read":
      return `reading with ${action.tool}`;
    default:
      return `calling ${action.tool}`;
  }
}

function findRule(
  policy: Policy,
  list: RuleList,
  action: Action,
  context: EvaluationContext,
): Rule | undefined {
  return policy.rules.find((rule) => rule.list === list && ruleMatches(rule, action, context));
}

function ruleMatches(rule: Rule, action: Action, context: EvaluationContext): boolean {
  const toolMatches = rule.toolPattern
    ? rule.toolPattern.test(action.tool)
    : rule.tools.includes(action.tool);
  if (!toolMatches) return false;
  const matcher = rule.matcher;
  switch (matcher.kind) {
    case "any":
      return true;
    case "command": {
      if (!action.command) return false;
      const texts =
        rule.list === "allow" ? [action.command.text] : [action.command.text, ...action.command.variants];
      return texts.some((text) => matcher.regex.test(text));
    }
    case "domain":
      return hostMatches(action.host, matcher.pattern);
    case "path":
      return (
        action.path !== undefined &&
        matchesPathPattern(action.path, matcher.pattern, rule.list, {
          workspaceRoot: context.workspaceRoot,
          userHome: context.userHome,
          sourceRoot: rule.source.root,
        })
      );
  }
}

function byRule(behavior: RuleList, rule: Rule, reason: string): Decision {
  const deciding: DecidingRule = { text: rule.text, list: rule.list, source: ruleSourceLabel(rule) };
  return { behavior, reason: `${reason} (${deciding.source})`, decidedBy: "rule", rule: deciding };
}

/** The strictest part decides: any deny denies, else any ask asks, else all are allowed. */
function combine(parts: PartDecision[]): Decision {
  const pick = parts.find((p) => p.behavior === "deny") ?? parts.find((p) => p.behavior === "ask");
  const strip = ({ part: _part, ...decision }: PartDecision): Decision => decision;
  if (pick) {
    const decision = strip(pick);
    const prefix = parts.length > 1 ? `${pick.part}: ` : "";
    const alwaysAsked = parts.some((p) => p.behavior === "ask" && p.alwaysAsked);
    return { ...decision, reason: prefix + decision.reason, parts, ...(alwaysAsked ? { alwaysAsked } : {}) };
  }
  const byRulePart = parts.find((p) => p.decidedBy === "rule");
  const byModePart = parts.find((p) => p.decidedBy === "mode");
  const first = byRulePart ?? byModePart ?? parts[0]!;
  const reason =
    parts.length === 1
      ? first.reason
      : `every part is allowed (${parts.map((p) => `${p.part}: ${p.reason}`).join("; ")})`;
  return { ...strip(first), reason, parts };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
