// The data of the permission engine: rules as parsed from settings, the merged policy,
// the context a decision is made in, and the decision itself (the decision trace).
import type { ProtectedEntry, ProtectedKind } from "../workspace/index.js";

export const PERMISSION_MODES = ["default", "acceptEdits", "plan", "dontAsk", "bypass"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export const RULE_LISTS = ["deny", "ask", "allow"] as const;
export type RuleList = (typeof RULE_LISTS)[number];
export type Behavior = "allow" | "ask" | "deny";

/** Where rules come from, highest precedence first; "session": answers given in this session. */
export const SOURCE_KINDS = ["flags", "session", "local", "project", "user"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export interface RuleSource {
  kind: SourceKind;
  /** The settings file, absent for flags. */
  file?: string;
  /** The folder a `/path` rule is anchored at: the project root, or $RESON_HOME for user settings. */
  root: string;
}

/** What a rule's specifier constrains. */
export type RuleMatcher =
  | { kind: "any" }
  | { kind: "command"; pattern: string; regex: RegExp }
  | { kind: "path"; pattern: string }
  /** `web_fetch(domain:example.com)`: the host, or with `*.` the host and its subdomains. */
  | { kind: "domain"; pattern: string };

export interface Rule {
  /** The rule exactly as written, e.g. `Bash(npm run test:*)`. */
  text: string;
  list: RuleList;
  source: RuleSource;
  /** 1-based line of the rule in its settings file, when found. */
  line?: number;
  /** The reson tools the rule covers (a Claude Code name may cover several). */
  tools: readonly string[];
  /** Set when the tool name itself is a glob (`mcp__*`); matched instead of `tools`. */
  toolPattern?: RegExp;
  matcher: RuleMatcher;
}

export interface PolicyWarning {
  message: string;
  /** `flags`, or the settings file the problem is in. */
  source: string;
  line?: number;
  rule?: string;
}

export interface Policy {
  mode: PermissionMode;
  /** Which source set the mode, or `built-in` when none did. */
  modeSource: string;
  rules: readonly Rule[];
  warnings: readonly PolicyWarning[];
  /** What the workspace's own settings files grant and the user has not approved: not applied. */
  held?: readonly HeldGrant[];
}

/** A workspace settings file's allow rules and mode that wait for the user's approval. */
export interface HeldGrant {
  file: string;
  allow: readonly string[];
  mode?: string;
}

export interface EvaluationContext {
  workspaceRoot: string;
  /** The user's home directory, for `~` in rules and the critical-path guard. */
  userHome: string;
  /** Overrides the policy's mode (e.g. `/permissions mode plan` mid-session). */
  mode?: PermissionMode;
  /** More tool names to treat as read-only (e.g. tools registered with `readOnly`). */
  readOnlyTools?: readonly string[];
  /**
   * Where commands run: inside the OS sandbox ("enforced"), outside it because none works on
   * this machine ("none": every command is asked, and refused headless), or outside it
   * because the user said so ("off": the rules alone decide). Default "off".
   */
  sandbox?: SandboxState;
  /**
   * The protected list's kinds the guard asks about (default ["executes"]); a run that has read
   * untrusted content adds "steers" (instruction files and skills).
   */
  protectedKinds?: readonly ProtectedKind[];
  /** The protected entry covering a root-relative path as part of a repository below the root. */
  protectedBelow?: (path: string) => ProtectedEntry | undefined;
  /**
   * Set once the run has read untrusted content: what it read, for reasons. Then calls that
   * reach hosts no rule names, fill secrets or change what steers later runs are held back.
   */
  untrusted?: string;
  /** Tools that talk to the outside world (ToolDefinition.external). */
  externalTools?: readonly string[];
  /** The user's secrets this call would fill in, by name. */
  secrets?: readonly string[];
}

export type SandboxState = "enforced" | "none" | "off";

export interface ToolCall {
  tool: string;
  arguments: unknown;
}

export interface DecidingRule {
  text: string;
  list: RuleList;
  /** `flags`, or `file:line`. */
  source: string;
}

/** Why a decision came out as it did, for the trace and for the user. */
export type DecidedBy =
  | "rule" // an allow/ask/deny rule
  | "read_only" // a read-only tool or a built-in read-only command
  | "mode" // the mode's default for calls no rule matched
  | "guard" // a protected path, a critical rm, or a command that could not be parsed
  | "untrusted"; // the run read untrusted content, and no rule names what the call reaches

export interface Decision {
  behavior: Behavior;
  reason: string;
  decidedBy: DecidedBy;
  rule?: DecidingRule;
  /** Set when the mode's default (or a mode's structural limit) decided. */
  modeDefault?: PermissionMode;
  /** For execute_command: one decision per subcommand or redirect target, in order. */
  parts?: PartDecision[];
  /**
   * The narrowest allow rule that lets this call (or this part) through, on a decision the
   * mode's default made: checked to parse and to match. For a command see `parts`.
   */
  allowRule?: string;
  /** Why the call would fail even if allowed: the workspace or the OS sandbox refuses it. */
  refusedBySandbox?: string;
  /**
   * Set on an "ask" that no allow rule can silence (a guard, an ask rule, a dangerous
   * variable): answering "for this session" or "always" would not spare the next question.
   */
  alwaysAsked?: true;
  /**
   * On an "ask" in a run that read untrusted content: what the trust rules would hold back even
   * if the mode allowed it (a host no rule names, a secret, a change that steers later runs).
   * Set also on every decision made by "untrusted". Such a call is the user's to allow, not the
   * untrusted sender's (a chat channel's buttons go by it).
   */
  untrustedHold?: string;
}

export interface PartDecision extends Decision {
  /** The subcommand as matched (wrappers stripped), or `> target` for a redirect. */
  part: string;
}
