// Building the merged policy from rule sources, highest precedence first (flags, local,
// project, user), and describing it for `/permissions`. Every rule that cannot be used is a
// warning naming its source and line: nothing is dropped silently.
import { parseMode } from "./modes.js";
import { parseRule, ruleSourceLabel } from "./rule.js";
import { KNOWN_TOOLS } from "./tool-names.js";
import {
  type HeldGrant,
  type PermissionMode,
  type Policy,
  type PolicyWarning,
  RULE_LISTS,
  type Rule,
  type RuleSource,
} from "./types.js";

export interface PolicySource {
  source: RuleSource;
  /** The `permissions` object of a settings file (Claude Code's shape), or the flags as one. */
  permissions: unknown;
  /** The file's text, to find the line of each rule. */
  text?: string;
}

export interface CreatePolicyOptions {
  /** Tool names rules may name without a warning; defaults to reson's built-in tools. */
  knownTools?: readonly string[];
}

const PERMISSION_KEYS = new Set(["allow", "ask", "deny", "defaultMode"]);

/** Merges `sources`, given highest precedence first, into one policy. */
export function createPolicy(sources: readonly PolicySource[], options: CreatePolicyOptions = {}): Policy {
  const rules: Rule[] = [];
  const warnings: PolicyWarning[] = [];
  let mode: PermissionMode | undefined;
  let modeSource = "built-in";
  for (const { source, permissions, text } of sources) {
    const label = source.file ?? source.kind;
    const warn = (message: string, extra: { line?: number; rule?: string } = {}) =>
      warnings.push({ message, source: label, ...extra });
    if (permissions === undefined) continue;
    if (!isRecord(permissions)) {
      warn(
        `"permissions" must be an object; this source's rules are ignored`,
        lineOf(text, '"permissions"', 0),
      );
      continue;
    }
    for (const key of Object.keys(permissions))
      if (!PERMISSION_KEYS.has(key))
        warn(
          `"permissions.${key}" is not something reson reads; ignored`,
          lineOf(text, JSON.stringify(key), 0),
        );
    for (const list of RULE_LISTS) {
      const entries = permissions[list];
      if (entries === undefined) continue;
      const listAt = text?.indexOf(JSON.stringify(list)) ?? -1;
      if (!Array.isArray(entries)) {
        warn(
          `"permissions.${list}" must be a list of rule strings; ignored`,
          lineOf(text, JSON.stringify(list), 0),
        );
        continue;
      }
      for (const entry of entries) {
        if (typeof entry !== "string") {
          warn(
            `a ${list} rule must be a string, got ${JSON.stringify(entry)}; ignored`,
            lineAt(text, listAt),
          );
          continue;
        }
        const where = lineOf(text, JSON.stringify(entry), Math.max(listAt, 0));
        const parsed = parseRule(entry, list, source, options.knownTools ?? KNOWN_TOOLS);
        if (parsed.warning) warn(parsed.warning, { ...where, rule: entry });
        if (parsed.ok) rules.push({ ...parsed.rule, ...(where.line ? { line: where.line } : {}) });
      }
    }
    const wanted = permissions.defaultMode;
    if (wanted === undefined) continue;
    const parsedMode = typeof wanted === "string" ? parseMode(wanted) : undefined;
    if (!parsedMode) {
      warn(
        `unknown mode ${JSON.stringify(wanted)}; reson's modes are default, acceptEdits, plan, dontAsk, bypass`,
        lineOf(text, '"defaultMode"', 0),
      );
      continue;
    }
    if (mode === undefined) {
      mode = parsedMode;
      modeSource = label;
    }
  }
  return { mode: mode ?? "default", modeSource, rules, warnings };
}

/** What `/permissions` shows: the mode, the rules in force and where each came from, the warnings. */
export function describePolicy(policy: Policy): string {
  const lines = [
    `Mode: ${policy.mode} (${policy.modeSource === "built-in" ? "built-in default" : `from ${policy.modeSource}`})`,
  ];
  for (const list of RULE_LISTS) {
    const rules = policy.rules.filter((rule) => rule.list === list);
    lines.push(`${list}:${rules.length === 0 ? " (none)" : ""}`);
    const width = Math.max(0, ...rules.map((rule) => rule.text.length));
    for (const rule of rules) lines.push(`  ${rule.text.padEnd(width)}  ${ruleSourceLabel(rule)}`);
  }
  lines.push(
    "Always: read-only tools and read-only commands need no approval; writes to protected paths",
    "(.git, .reson, shell rc files, .env, credentials) and recursive deletes of critical paths are asked.",
    "After untrusted content (a web page, an MCP result): requests to hosts, filling secrets and writing",
    "files that steer later runs (AGENTS.md, skills, .mcp.json) need a rule naming them, or are asked.",
  );
  if (policy.held && policy.held.length > 0) {
    lines.push("Waiting for your approval (not applied; `reson permissions approve` applies them):");
    lines.push(describeHeld(policy.held));
  }
  if (policy.warnings.length > 0) {
    lines.push("Warnings:");
    for (const warning of policy.warnings)
      lines.push(`  ${warning.source}${warning.line ? `:${warning.line}` : ""}: ${warning.message}`);
  }
  return lines.join("\n");
}

/** One line per held grant: "  /w/.reson/settings.json: allow Bash(curl *); mode bypass". */
export function describeHeld(held: readonly HeldGrant[]): string {
  return held
    .map((grant) => {
      const what = [
        ...(grant.allow.length > 0 ? [`allow ${grant.allow.join(", ")}`] : []),
        ...(grant.mode ? [`mode ${grant.mode}`] : []),
      ].join("; ");
      return `  ${grant.file}: ${what}`;
    })
    .join("\n");
}

function lineOf(text: string | undefined, needle: string, from: number): { line?: number } {
  if (text === undefined) return {};
  const at = text.indexOf(needle, from);
  return lineAt(text, at);
}

function lineAt(text: string | undefined, at: number): { line?: number } {
  if (text === undefined || at < 0) return {};
  return { line: text.slice(0, at).split("\n").length };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
