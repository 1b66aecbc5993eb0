// The permission gate: the rule engine as the loop's beforeToolCall hook. Every call is
// evaluated against the policy; "ask" goes to the user through `promptUser` (given by the
// terminal), or, in a headless run, is denied with a hint naming what would let it through
// (denial-hint.ts). The decision, and the rule and file behind it, are recorded with the call.
import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type AgentHooks, describeSource, type ToolCallDecision } from "../agent/index.js";
import { writeFileAtomic } from "../core/atomic-write.js";
import type { UntrustedSource } from "../core/events.js";
import type { Hop, ToolPreview } from "../tools/index.js";
import type { NestedRepositories, ProtectedEntry } from "../workspace/index.js";
import { commandOnlyReads } from "./actions.js";
import { headlessDenial } from "./denial-hint.js";
import { evaluate } from "./evaluate.js";
import { allowRulesFor } from "./narrow-rule.js";
import { grantProject } from "./project-grants.js";
import { parseRule } from "./rule.js";
import { realRoot } from "./settings.js";
import { BROWSER_NAVIGATE_TOOL, FETCH_TOOL, isMcpTool, isWriteTool } from "./tool-names.js";
import type { Decision, EvaluationContext, PermissionMode, Policy, Rule, SandboxState } from "./types.js";

export type PermissionAnswer =
  | { kind: "allow_once" }
  | { kind: "allow_session" }
  /** Also written to .reson/settings.local.json. */
  | { kind: "allow_project" }
  /** Also written to $RESON_HOME/settings.json. */
  | { kind: "allow_user" }
  | { kind: "deny"; note?: string }
  /** Denied, and the same rules written as deny rules to .reson/settings.local.json. */
  | { kind: "deny_project" }
  /** Run with these arguments instead (only the tool's editableParams may differ). */
  | { kind: "edit"; arguments: Record<string, unknown> };

export interface PermissionPrompt {
  /** The run and the call that ask (a host that serves several runs answers the right one). */
  runId: string;
  toolCallId: string;
  tool: string;
  arguments: Record<string, unknown>;
  decision: Decision;
  /**
   * The rules an "allow always" answer (project or user) adds: one per part that asked, each
   * as narrow as the part (`execute_command(make build)`, `Edit(./log.txt)`). Absent when the
   * call is asked every time (a guard, an ask rule), where no rule would spare the next question.
   */
  suggestedRules?: string[];
  /** What an "allow for this session" answer covers; absent as for suggestedRules. */
  session?: SessionGrant;
  editableParams: readonly string[];
  /** What the call would change (write_file, edit_file): the file before and after. */
  change?: ToolPreview;
}

/** What "allow for this session" allows from now on. */
export interface SessionGrant {
  /** The allow rules added for the rest of the session. */
  rules: string[];
  /** What they cover, as the prompt says it ("all file edits in the workspace …"). */
  covers: string;
}

export interface PermissionGateOptions {
  policy: Policy;
  workspaceRoot: string;
  userHome: string;
  /** $RESON_HOME, where "allow always for me" rules go. */
  home: string;
  /** Asks the user; absent in a headless run, where "ask" becomes deny. */
  promptUser?: (prompt: PermissionPrompt) => Promise<PermissionAnswer>;
  /** More tools to treat as read-only (registered with readOnly). */
  readOnlyTools?: readonly string[];
  /** Where commands run (see EvaluationContext.sandbox); default "off". */
  sandbox?: SandboxState;
  /** Rules granted "for this session" before this gate (a served session's earlier runs). */
  sessionRules?: readonly string[];
  /** Told the rules of each "allow for this session" answer, to keep them for the session's later runs. */
  onSessionGrant?: (rules: readonly string[]) => Promise<void>;
  /** The protected entry covering a root-relative path as part of a repository below the root. */
  protectedBelow?: (path: string) => ProtectedEntry | undefined;
  /** The repositories below the root protectedBelow looks in, for the run's workspace to share. */
  nestedRepositories?: NestedRepositories;
}

/** What the run adds to a call's decision. */
export interface CallFacts {
  /** The reads that made the run untrusted (absent: it is trusted). */
  untrusted?: readonly UntrustedSource[];
  /** The tool talks to the outside world (ToolDefinition.external). */
  external?: boolean;
  /** The user's secrets the call would fill in. */
  secrets?: readonly string[];
}

/** The host of `url`, lower case; undefined for no URL. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    return undefined;
  }
}

function sameHost(url: string, from: string | undefined): boolean {
  const host = hostOf(url);
  return host !== undefined && from !== undefined && host === hostOf(from);
}

/** What the trace keeps of a decision. */
export interface DecisionRecord {
  behavior: "allow" | "deny";
  by: string;
  reason: string;
  rule?: string;
  source?: string;
  mode: PermissionMode;
  asked?: PermissionAnswer["kind"];
}

/** Every file edit (write_file, edit_file) inside the workspace. */
const WORKSPACE_EDITS = "Edit(./**)";

/**
 * What "allow for this session" covers, given the rules an "always" answer would save. A file
 * edit inside the workspace: every edit inside it, as Claude Code's "allow all edits this
 * session" (a task edits several files, and protected paths are still asked). Anything else:
 * exactly those rules, one per part that asked.
 */
export function sessionGrant(tool: string, rules: readonly string[]): SessionGrant {
  if (isWriteTool(tool) && rules.length === 1 && rules[0]!.startsWith("Edit(./"))
    return {
      rules: [WORKSPACE_EDITS],
      covers: "all file edits in this workspace for this session (protected paths still ask)",
    };
  return { rules: [...rules], covers: `for this session: ${rules.join(", ")}` };
}

async function appendRules(file: string, list: "allow" | "deny", rules: readonly string[]): Promise<void> {
  let settings: Record<string, unknown> = {};
  try {
    settings = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const permissions = (settings.permissions ?? {}) as Record<string, unknown>;
  const listed = Array.isArray(permissions[list]) ? [...(permissions[list] as unknown[])] : [];
  for (const rule of rules) if (!listed.includes(rule)) listed.push(rule);
  settings.permissions = { ...permissions, [list]: listed };
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify(settings, null, 2)}\n`);
}

export class PermissionGate {
  private policy: Policy;
  private mode: PermissionMode;

  constructor(private readonly options: PermissionGateOptions) {
    this.policy = options.policy;
    this.mode = options.policy.mode;
    for (const rule of options.sessionRules ?? []) this.allowForSession(rule);
  }

  get currentMode(): PermissionMode {
    return this.mode;
  }

  get currentPolicy(): Policy {
    return this.policy;
  }

  /** The repositories below the root its guard looks in (for the run's workspace to share). */
  get nestedRepositories(): NestedRepositories | undefined {
    return this.options.nestedRepositories;
  }

  setMode(mode: PermissionMode): void {
    this.mode = mode;
  }

  /** Takes a policy read again (the user approved what a workspace file grants), keeping this session's rules. */
  adopt(policy: Policy): void {
    const session = this.policy.rules.filter((rule) => rule.source.kind === "session");
    this.policy = { ...policy, rules: [...policy.rules, ...session] };
    this.mode = policy.mode;
  }

  /** Adds an allow rule for the rest of this session (not written anywhere). */
  allowForSession(text: string): Rule | undefined {
    return this.addSessionRule(text, "allow");
  }

  private addSessionRule(text: string, list: "allow" | "deny"): Rule | undefined {
    const parsed = parseRule(text, list, { kind: "session", root: this.options.workspaceRoot });
    if (!parsed.ok) return undefined;
    this.policy = { ...this.policy, rules: [...this.policy.rules, parsed.rule] };
    return parsed.rule;
  }

  /**
   * `readOnly`: the tool declares no side effects (it then needs no approval, like reads).
   * `run`: what the run's state adds (see CallFacts).
   */
  decide(tool: string, args: Record<string, unknown>, readOnly = false, run: CallFacts = {}): Decision {
    return evaluate({ tool, arguments: args }, this.policy, this.context(tool, readOnly, run));
  }

  private context(tool: string, readOnly: boolean, run: CallFacts = {}): EvaluationContext {
    const readOnlyTools = [...(this.options.readOnlyTools ?? []), ...(readOnly ? [tool] : [])];
    const untrusted = run.untrusted?.[0];
    return {
      workspaceRoot: this.options.workspaceRoot,
      userHome: this.options.userHome,
      mode: this.mode,
      ...(readOnlyTools.length > 0 ? { readOnlyTools } : {}),
      ...(this.options.sandbox ? { sandbox: this.options.sandbox } : {}),
      ...(this.options.protectedBelow ? { protectedBelow: this.options.protectedBelow } : {}),
      ...(untrusted ? { untrusted: describeSource(untrusted) } : {}),
      ...(run.external ? { externalTools: [tool] } : {}),
      ...(run.secrets && run.secrets.length > 0 ? { secrets: run.secrets } : {}),
    };
  }

  /**
   * A request a tool makes that its call did not name (a redirect, a page's own navigation or
   * subresource): why it may not go there, or undefined. Deny rules hold for it; after untrusted
   * content only hosts an allow rule names are reached; a navigation or redirect to another host
   * than the one it comes from must be one the rules allow outright (nobody is asked mid-request:
   * the model gets the URL back and may ask for it, which is decided like any call).
   */
  async checkHop(
    hop: Hop,
    run: { untrusted?: readonly UntrustedSource[] } = {},
  ): Promise<string | undefined> {
    const tool = hop.tool === FETCH_TOOL ? FETCH_TOOL : BROWSER_NAVIGATE_TOOL;
    const context = this.context(tool, false, run.untrusted ? { untrusted: run.untrusted } : {});
    const decision = evaluate({ tool, arguments: { url: hop.url } }, this.policy, context);
    if (decision.behavior === "allow") return undefined;
    if (decision.behavior === "deny" || decision.decidedBy === "untrusted" || decision.decidedBy === "rule")
      return decision.reason;
    if (hop.kind === "subresource") return undefined;
    if (sameHost(hop.url, hop.from)) return undefined;
    return `no rule allows ${hostOf(hop.url) ?? hop.url} (only ${hostOf(hop.from ?? "") ?? "the page's own host"} was approved)`;
  }

  /** Adds `rules` for this session and to the settings `file`, for later sessions. */
  private async allowAlways(
    rules: readonly string[] | undefined,
    file: string,
    inWorkspace = false,
  ): Promise<void> {
    if (!rules) return;
    for (const rule of rules) this.allowForSession(rule);
    await appendRules(file, "allow", rules);
    // The user's own answer: these rules in a workspace file hold in later sessions too.
    if (inWorkspace)
      await grantProject(this.options.home, realRoot(this.options.workspaceRoot), { allow: [...rules] });
  }

  /** Whether a command only reads (the read-only set): it changes nothing worth a snapshot. */
  commandOnlyReads(command: string): boolean {
    return commandOnlyReads(command, {
      workspaceRoot: this.options.workspaceRoot,
      userHome: this.options.userHome,
    });
  }

  private record(
    decision: Decision,
    behavior: "allow" | "deny",
    asked?: PermissionAnswer["kind"],
  ): DecisionRecord {
    return {
      behavior,
      by: decision.decidedBy,
      reason: decision.reason,
      ...(decision.rule ? { rule: decision.rule.text, source: decision.rule.source } : {}),
      mode: this.mode,
      ...(asked ? { asked } : {}),
    };
  }

  /** The loop hook. */
  hooks(): AgentHooks {
    return {
      beforeToolCall: async (call, info): Promise<ToolCallDecision | undefined> => {
        // A tool that does not exist runs nothing: the registry tells the model which exist.
        if (!info.tool) return undefined;
        // An MCP server's readOnlyHint is its own claim: it never spares the user's approval.
        const readOnly = info.tool.readOnly && !isMcpTool(call.name);
        const run: CallFacts = {
          ...(info.untrusted ? { untrusted: info.untrusted } : {}),
          ...(info.tool.external ? { external: true } : {}),
          ...(info.secrets ? { secrets: info.secrets } : {}),
        };
        const decision = this.decide(call.name, call.arguments, readOnly, run);
        if (decision.behavior === "allow") return { action: "allow", record: this.record(decision, "allow") };
        if (decision.behavior === "deny") {
          return { action: "deny", reason: decision.reason, record: this.record(decision, "deny") };
        }
        const prompt = this.options.promptUser;
        if (!prompt) {
          const asked = { tool: call.name, arguments: call.arguments };
          const denial = headlessDenial(asked, decision, this.policy, this.context(call.name, readOnly, run));
          return { action: "deny", ...denial, record: this.record(decision, "deny") };
        }
        // Only an ask that rules could silence offers "for this session" and "always".
        const rules = decision.alwaysAsked ? undefined : allowRulesFor(decision);
        const session = rules ? sessionGrant(call.name, rules) : undefined;
        const root = this.options.workspaceRoot;
        const change = await info.preview?.(call.arguments);
        const answer = await prompt({
          runId: info.runId,
          toolCallId: call.id,
          tool: call.name,
          arguments: call.arguments,
          decision,
          ...(rules ? { suggestedRules: rules } : {}),
          ...(session ? { session } : {}),
          editableParams: info.tool?.editableParams ?? [],
          ...(change ? { change } : {}),
        });
        const record = (behavior: "allow" | "deny") => this.record(decision, behavior, answer.kind);
        switch (answer.kind) {
          case "allow_once":
            return { action: "allow", record: record("allow") };
          case "allow_session":
            for (const rule of session?.rules ?? []) this.allowForSession(rule);
            if (session) await this.options.onSessionGrant?.(session.rules);
            return { action: "allow", record: record("allow") };
          case "allow_project":
            await this.allowAlways(rules, join(root, ".reson", "settings.local.json"), true);
            return { action: "allow", record: record("allow") };
          case "allow_user":
            await this.allowAlways(rules, join(this.options.home, "settings.json"));
            return { action: "allow", record: record("allow") };
          case "edit":
            return { action: "modify", arguments: answer.arguments, record: record("allow") };
          case "deny_project":
            for (const rule of rules ?? []) this.addSessionRule(rule, "deny");
            if (rules) await appendRules(join(root, ".reson", "settings.local.json"), "deny", rules);
            return {
              action: "deny",
              reason: "The user denied this call, and calls like it.",
              record: record("deny"),
            };
          case "deny":
            return {
              action: "deny",
              reason: answer.note
                ? `The user denied this call: ${answer.note}`
                : "The user denied this call.",
              record: record("deny"),
            };
        }
      },
    };
  }
}
