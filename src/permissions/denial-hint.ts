// What a run that cannot ask says about a call it had to deny: the flags that would let the
// call through in this mode and sandbox, each checked by deciding the call again with it, or,
// when none would, why not. A call asked every time (a protected path, a critical delete, an
// ask rule) gets no rule recipe: only a person at the terminal can let it through.
import { evaluate } from "./evaluate.js";
import { allowRulesFor, blockingParts } from "./narrow-rule.js";
import { parseRule } from "./rule.js";
import { isMcpTool } from "./tool-names.js";
import type { Decision, EvaluationContext, Policy, Rule, ToolCall } from "./types.js";

export interface HeadlessDenial {
  /** Why the call was denied, for the model and the user. */
  reason: string;
  /** What would let it through, or why nothing would. */
  hint: string;
}

const NOT_ASKED = "This run cannot ask for approval (headless).";
const INTERACTIVE = "approve it in the interactive terminal (`reson`), or do it yourself";

export function headlessDenial(
  call: ToolCall,
  decision: Decision,
  policy: Policy,
  context: EvaluationContext,
): HeadlessDenial {
  const reason = `${decision.reason.replace(/\.?$/, ".")} ${NOT_ASKED}`;
  return { reason, hint: wayThrough(call, decision, policy, context) };
}

function wayThrough(call: ToolCall, decision: Decision, policy: Policy, context: EvaluationContext): string {
  const refused = blockingParts(decision).find((part) => part.refusedBySandbox)?.refusedBySandbox;
  if (refused) return `No rule or mode lets it through: ${refused}.`;
  const rules = workingRules(call, decision, policy, context);
  const bypass = passes(call, policy, { ...context, mode: "bypass" });
  if (rules)
    return (
      `Allow it with ${allowFlags(rules)} (or the same ${rules.length === 1 ? "rule" : "rules"} in ` +
      `.reson/settings.json)${bypass ? ", or run with --permission-mode bypass" : ""}.`
    );
  if (context.sandbox === "none") {
    const unsandboxed = { ...context, sandbox: "off" as const };
    const after = evaluate(call, policy, unsandboxed);
    const extra = after.behavior === "allow" ? [] : workingRules(call, after, policy, unsandboxed);
    if (after.behavior === "allow" || extra)
      return (
        "No OS sandbox works on this machine: run `reson doctor` to see what is missing " +
        "(usually: apt-get install bubblewrap), or pass --sandbox off" +
        `${extra && extra.length > 0 ? ` with ${allowFlags(extra)}` : ""} to run it without an OS sandbox.`
      );
  }
  if (blockingParts(decision).some((part) => part.decidedBy === "untrusted"))
    return (
      `After untrusted content no mode lets this through, only a rule naming it or a person: ${INTERACTIVE}` +
      (isMcpTool(call.tool)
        ? "; or, if what this MCP server reaches is yours, mark it trusted in $RESON_HOME/config.json (mcp.servers.<name>.trusted)"
        : "") +
      "."
    );
  if (bypass) return "No allow rule covers it; only --permission-mode bypass lets it through.";
  const askRule = blockingParts(decision).find((part) => part.decidedBy === "rule")?.rule;
  if (askRule)
    return `The ask rule ${askRule.text} (${askRule.source}) asks every time, whatever the mode: ${INTERACTIVE}, or remove that rule.`;
  return `No rule or mode lets a run that cannot ask do this: it is asked every time; ${INTERACTIVE}.`;
}

/** The per-part allow rules of `decision`, if adding them as flags lets the call through. */
function workingRules(
  call: ToolCall,
  decision: Decision,
  policy: Policy,
  context: EvaluationContext,
): string[] | undefined {
  const rules = allowRulesFor(decision);
  if (!rules) return undefined;
  const added = rules.flatMap((text): Rule[] => {
    const parsed = parseRule(text, "allow", { kind: "flags", root: context.workspaceRoot });
    return parsed.ok ? [parsed.rule] : [];
  });
  return passes(call, { ...policy, rules: [...added, ...policy.rules] }, context) ? rules : undefined;
}

function passes(call: ToolCall, policy: Policy, context: EvaluationContext): boolean {
  return evaluate(call, policy, context).behavior === "allow";
}

function allowFlags(rules: readonly string[]): string {
  return rules.map((rule) => `--allow ${quoteForShell(rule)}`).join(" ");
}

function quoteForShell(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
