// The decision for one tool call: deny rules first (from any source), then the structural
// limits of plan mode, then the guards and ask rules, then allow rules and the read-only
// set, and last the mode's default. For execute_command every subcommand and every redirect
// target is decided on its own and the strictest answer wins. Pure: no I/O, never throws.
import { isWithin } from "../core/path-within.js";
import { type Action, commandActions, MISSING_COMMAND, toolAction } from "./actions.js";
import { narrowAllowRule } from "./narrow-rule.js";
import { matchesPathPattern } from "./path-pattern.js";
import { parseRule, ruleSourceLabel } from "./rule.js";
import { COMMAND_TOOL, isDelegatingTool } from "./tool-names.js";
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
import { hostMatches, untrustedHold } from "./untrusted.js";

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

function evaluateCommand(
  args: unknown,
  policy: Policy,
  context: EvaluationContext,
  mode: PermissionMode,
): Decision {
  const actions = commandActions(args, context);
  if (!actions) return decideAction(MISSING_COMMAND, policy, context, mode);
  const parts: PartDecision[] = actions.map((action) => ({
    part: action.part,
    ...decideAction(action, policy, context, mode),
  }));
  return combine(parts);
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
  if (verdict.behavior === "allow") {
    const held = context.untrusted ? untrustedHold(action, verdict, policy, context) : undefined;
    return held ? heldBack(held, action, policy, context, mode) : verdict;
  }
  const way = withWayThrough(verdict, action, context);
  if (verdict.behavior !== "ask") return way;
  // Asked by the mode or a rule anyway: still say what the trust rules would hold back.
  const hold = context.untrusted ? untrustedHold(action, verdict, policy, context) : undefined;
  const unblocked = hold ? { ...way, untrustedHold: hold } : way;
  if (mode === "dontAsk")
    return {
      ...unblocked,
      behavior: "deny",
      reason: `dontAsk mode denies what would be asked: ${verdict.reason}`,
    };
  // Only the mode's default gives way to an allow rule; anything else asks again next time.
  return verdict.decidedBy === "mode" && !action.noAutoAllow
    ? unblocked
    : { ...unblocked, alwaysAsked: true };
}

/**
 * An action the rules would allow, held back because the run read untrusted content: asked (in
 * dontAsk denied), with the narrowest allow rule that would name it where one would.
 */
function heldBack(
  why: string,
  action: Action,
  policy: Policy,
  context: EvaluationContext,
  mode: PermissionMode,
): Decision {
  const decision: Decision = {
    behavior: mode === "dontAsk" ? "deny" : "ask",
    reason: `${why}, and this run has read untrusted content (${context.untrusted})`,
    decidedBy: "untrusted",
    untrustedHold: why,
  };
  const text = narrowAllowRule(action, context.workspaceRoot);
  const parsed = text
    ? parseRule(text, "allow", { kind: "session", root: context.workspaceRoot })
    : undefined;
  if (text && parsed?.ok) {
    const withRule = { ...policy, rules: [parsed.rule, ...policy.rules] };
    const verdict = decideUndenied(action, withRule, context, mode);
    if (verdict.behavior === "allow" && !untrustedHold(action, verdict, withRule, context))
      return { ...decision, allowRule: text };
  }
  return { ...decision, alwaysAsked: true };
}

/**
 * The verdict with what would let the action through: the sandbox that refuses it anyway, or,
 * where the mode's default decided, the narrowest allow rule, kept only if it parses and
 * matches the action (a rule that would not take effect is never offered).
 */
function withWayThrough(verdict: Decision, action: Action, context: EvaluationContext): Decision {
  if (action.refusedBySandbox) return { ...verdict, refusedBySandbox: action.refusedBySandbox };
  if (verdict.decidedBy !== "mode" || action.noAutoAllow) return verdict;
  const text = narrowAllowRule(action, context.workspaceRoot);
  if (text === undefined) return verdict;
  const parsed = parseRule(text, "allow", { kind: "session", root: context.workspaceRoot });
  if (!parsed.ok || !ruleMatches(parsed.rule, action, context)) return verdict;
  return { ...verdict, allowRule: text };
}

function decideUndenied(
  action: Action,
  policy: Policy,
  context: EvaluationContext,
  mode: PermissionMode,
): Decision {
  if (action.guard) return { behavior: "ask", reason: action.guard, decidedBy: "guard" };
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
      // In the sandbox a command can write only the workspace (and a private /tmp), and not the
      // protected list there (read-only mounts, placeholders for what does not exist yet): no
      // more than the edits this mode accepts without asking.
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
    const { allowRule: _rule, refusedBySandbox: _refused, ...decision } = strip(pick);
    // An ask names every part that asks (a deny, the first that denies: one is enough).
    const named = pick.behavior === "ask" ? parts.filter((p) => p.behavior === "ask") : [pick];
    const reason = parts.length > 1 ? named.map((p) => `${p.part}: ${p.reason}`).join("; ") : decision.reason;
    const alwaysAsked = parts.some((p) => p.behavior === "ask" && p.alwaysAsked);
    const held = named.find((p) => p.untrustedHold)?.untrustedHold;
    return {
      ...decision,
      reason,
      parts,
      ...(alwaysAsked ? { alwaysAsked } : {}),
      ...(held ? { untrustedHold: held } : {}),
    };
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
