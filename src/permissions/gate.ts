// The permission gate: the rule engine as the loop's beforeToolCall hook. Every call is
// evaluated against the policy; "ask" goes to the user through `promptUser` (given by the
// terminal), or, in a headless run, is denied with the flag or rule that would allow it. The
// decision, and the rule and file behind it, are recorded with the call.
import { mkdir, readFile } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { AgentHooks, ToolCallDecision } from "../agent/index.js";
import { writeFileAtomic } from "../core/atomic-write.js";
import type { ToolPreview } from "../tools/index.js";
import { commandOnlyReads, evaluate } from "./evaluate.js";
import { escapeGlob } from "./path-pattern.js";
import { parseRule } from "./rule.js";
import { isMcpTool, isWriteTool } from "./tool-names.js";
import type { Decision, PermissionMode, Policy, Rule, SandboxState } from "./types.js";

export type PermissionAnswer =
  | { kind: "allow_once" }
  | { kind: "allow_session" }
  /** Also written to .reson/settings.local.json. */
  | { kind: "allow_project" }
  /** Also written to $RESON_HOME/settings.json. */
  | { kind: "allow_user" }
  | { kind: "deny"; note?: string }
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
   * The rule an "allow always" answer (project or user) would add; absent when the call is
   * asked every time (a guard, an ask rule), where no rule would spare the next question.
   */
  suggestedRule?: string;
  /** What an "allow for this session" answer covers; absent as for suggestedRule. */
  session?: SessionGrant;
  editableParams: readonly string[];
  /** What the call would change (write_file, edit_file): the file before and after. */
  change?: ToolPreview;
}

/** What "allow for this session" allows from now on. */
export interface SessionGrant {
  /** The allow rule added for the rest of the session. */
  rule: string;
  /** What it covers, as the prompt says it ("all file edits in the workspace"). */
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

function quoteForShell(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * The narrowest rule that would allow this exact call. A file edit gets Claude Code's
 * `Edit(…)` form, which covers write_file and edit_file alike, with the path from the
 * workspace root (`./…`, glob characters escaped) or, outside it, absolute (`//…`).
 */
export function suggestedRule(tool: string, args: Record<string, unknown>, workspaceRoot?: string): string {
  if (tool === "execute_command" && typeof args.command === "string") {
    // A compound command needs every part allowed; one exact rule would not cover it.
    return isCompound(args.command) ? tool : `execute_command(${args.command})`;
  }
  if (isWriteTool(tool) && typeof args.path === "string" && args.path !== "")
    return `Edit(${editPattern(args.path, workspaceRoot)})`;
  if (typeof args.path === "string") return `${tool}(${args.path})`;
  if ((tool === "web_fetch" || tool === "browser_navigate") && typeof args.url === "string") {
    try {
      return `${tool === "web_fetch" ? tool : "browser"}(domain:${new URL(args.url).hostname})`;
    } catch {
      return tool;
    }
  }
  return tool;
}

/** Every file edit (write_file, edit_file) inside the workspace. */
const WORKSPACE_EDITS = "Edit(./**)";

/**
 * What "allow for this session" covers. For a file edit inside the workspace: every edit
 * inside it, as Claude Code's "allow all edits this session" (a task edits several files, and
 * protected paths are still asked); elsewhere the call's own rule.
 */
export function sessionGrant(
  tool: string,
  args: Record<string, unknown>,
  workspaceRoot: string,
): SessionGrant {
  const rule = suggestedRule(tool, args, workspaceRoot);
  if (isWriteTool(tool) && typeof args.path === "string" && args.path !== "") {
    if (rule.startsWith("Edit(./"))
      return {
        rule: WORKSPACE_EDITS,
        covers: "all file edits in this workspace for this session (protected paths still ask)",
      };
    return { rule, covers: `edits of ${args.path} for this session` };
  }
  if (tool === "execute_command" && typeof args.command === "string")
    return isCompound(args.command)
      ? { rule, covers: "every command for this session" }
      : { rule, covers: "this exact command for this session" };
  if (rule.startsWith("web_fetch(domain:"))
    return { rule, covers: `fetches from ${rule.slice("web_fetch(domain:".length, -1)} for this session` };
  if (rule.startsWith("browser(domain:"))
    return { rule, covers: `browsing to ${rule.slice("browser(domain:".length, -1)} for this session` };
  if (rule !== tool) return { rule, covers: `${rule} for this session` };
  return { rule, covers: `every ${tool} call for this session` };
}

function isCompound(command: string): boolean {
  return /&&|\|\||[;|&\n`]|\$\(/.test(command);
}

function editPattern(path: string, workspaceRoot: string | undefined): string {
  if (workspaceRoot === undefined) return isAbsolute(path) ? `/${escapeGlob(path)}` : `./${escapeGlob(path)}`;
  const absolute = resolve(workspaceRoot, path);
  const rel = relative(workspaceRoot, absolute);
  if (rel === "" || rel === ".." || rel.startsWith("../") || isAbsolute(rel))
    return `/${escapeGlob(absolute)}`;
  return `./${escapeGlob(rel)}`;
}

async function appendAllowRule(file: string, rule: string): Promise<void> {
  let settings: Record<string, unknown> = {};
  try {
    settings = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const permissions = (settings.permissions ?? {}) as Record<string, unknown>;
  const allow = Array.isArray(permissions.allow) ? [...permissions.allow] : [];
  if (!allow.includes(rule)) allow.push(rule);
  settings.permissions = { ...permissions, allow };
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify(settings, null, 2)}\n`);
}

export class PermissionGate {
  private policy: Policy;
  private mode: PermissionMode;

  constructor(private readonly options: PermissionGateOptions) {
    this.policy = options.policy;
    this.mode = options.policy.mode;
  }

  get currentMode(): PermissionMode {
    return this.mode;
  }

  get currentPolicy(): Policy {
    return this.policy;
  }

  setMode(mode: PermissionMode): void {
    this.mode = mode;
  }

  /** Adds an allow rule for the rest of this session (not written anywhere). */
  allowForSession(text: string): Rule | undefined {
    const parsed = parseRule(text, "allow", { kind: "session", root: this.options.workspaceRoot });
    if (!parsed.ok) return undefined;
    this.policy = { ...this.policy, rules: [...this.policy.rules, parsed.rule] };
    return parsed.rule;
  }

  /** `readOnly`: the tool declares no side effects (it then needs no approval, like reads). */
  decide(tool: string, args: Record<string, unknown>, readOnly = false): Decision {
    const readOnlyTools = [...(this.options.readOnlyTools ?? []), ...(readOnly ? [tool] : [])];
    return evaluate({ tool, arguments: args }, this.policy, {
      workspaceRoot: this.options.workspaceRoot,
      userHome: this.options.userHome,
      mode: this.mode,
      ...(readOnlyTools.length > 0 ? { readOnlyTools } : {}),
      ...(this.options.sandbox ? { sandbox: this.options.sandbox } : {}),
    });
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

  private headlessDenial(tool: string, args: Record<string, unknown>, decision: Decision): string {
    if (decision.headlessHint) {
      return `${decision.reason}. This run cannot ask for approval (headless). ${decision.headlessHint}`;
    }
    const rule = suggestedRule(tool, args, this.options.workspaceRoot);
    return (
      `${decision.reason} This run cannot ask for approval (headless). Allow it with ` +
      `--allow ${quoteForShell(rule)}, a rule in .reson/settings.json, or --permission-mode bypass.`
    );
  }

  /** The loop hook. */
  hooks(): AgentHooks {
    return {
      beforeToolCall: async (call, info): Promise<ToolCallDecision | undefined> => {
        // A tool that does not exist runs nothing: the registry tells the model which exist.
        if (!info.tool) return undefined;
        // An MCP server's readOnlyHint is its own claim: it never spares the user's approval.
        const readOnly = info.tool.readOnly && !isMcpTool(call.name);
        const decision = this.decide(call.name, call.arguments, readOnly);
        if (decision.behavior === "allow") return { action: "allow", record: this.record(decision, "allow") };
        if (decision.behavior === "deny") {
          return { action: "deny", reason: decision.reason, record: this.record(decision, "deny") };
        }
        const prompt = this.options.promptUser;
        if (!prompt) {
          return {
            action: "deny",
            reason: this.headlessDenial(call.name, call.arguments, decision),
            record: this.record(decision, "deny"),
          };
        }
        // Only an ask that a rule could silence offers "for this session" and "always".
        const repeatable = decision.decidedBy === "mode" && !decision.alwaysAsked;
        const root = this.options.workspaceRoot;
        const rule = repeatable ? suggestedRule(call.name, call.arguments, root) : undefined;
        const session = repeatable ? sessionGrant(call.name, call.arguments, root) : undefined;
        const change = await info.preview?.(call.arguments);
        const answer = await prompt({
          runId: info.runId,
          toolCallId: call.id,
          tool: call.name,
          arguments: call.arguments,
          decision,
          ...(rule ? { suggestedRule: rule } : {}),
          ...(session ? { session } : {}),
          editableParams: info.tool?.editableParams ?? [],
          ...(change ? { change } : {}),
        });
        const record = (behavior: "allow" | "deny") => this.record(decision, behavior, answer.kind);
        switch (answer.kind) {
          case "allow_once":
            return { action: "allow", record: record("allow") };
          case "allow_session":
            if (session) this.allowForSession(session.rule);
            return { action: "allow", record: record("allow") };
          case "allow_project":
            if (rule) {
              this.allowForSession(rule);
              await appendAllowRule(join(root, ".reson", "settings.local.json"), rule);
            }
            return { action: "allow", record: record("allow") };
          case "allow_user":
            if (rule) {
              this.allowForSession(rule);
              await appendAllowRule(join(this.options.home, "settings.json"), rule);
            }
            return { action: "allow", record: record("allow") };
          case "edit":
            return { action: "modify", arguments: answer.arguments, record: record("allow") };
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
