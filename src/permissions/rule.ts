// Parsing one rule string (`Tool` or `Tool(specifier)`) into a Rule, Claude Code's grammar
// with reson's tool names: the parse either yields a rule or a reason it cannot.
import { commandPatternRegex } from "./command-pattern.js";
import {
  CLAUDE_ONLY_TOOLS,
  CLAUDE_TOOL_NAMES,
  COMMAND_TOOL,
  FETCH_TOOL,
  KNOWN_TOOLS,
  PATH_TOOLS,
} from "./tool-names.js";
import type { Rule, RuleList, RuleMatcher, RuleSource } from "./types.js";

export type ParsedRule = { ok: true; rule: Rule; warning?: string } | { ok: false; warning: string };

const RULE_SHAPE = /^([A-Za-z_*][\w*-]*)(?:\(([\s\S]*)\))?$/;

export function parseRule(
  text: string,
  list: RuleList,
  source: RuleSource,
  knownTools: readonly string[] = KNOWN_TOOLS,
): ParsedRule {
  const trimmed = text.trim();
  const shape = RULE_SHAPE.exec(trimmed);
  if (!shape) return { ok: false, warning: `cannot parse rule "${text}": expected Tool or Tool(specifier)` };
  const name = shape[1]!;
  const rawSpecifier = shape[2];
  const specifier = rawSpecifier?.trim();
  if (rawSpecifier !== undefined && specifier === "")
    return { ok: false, warning: `rule "${text}" has an empty specifier; write ${name} to cover every call` };
  if (CLAUDE_ONLY_TOOLS.includes(name))
    return {
      ok: false,
      warning: `rule "${text}" names ${name}, a Claude Code tool reson does not have; ignored`,
    };

  const any = specifier === undefined || specifier === "*";
  if (name.includes("*")) {
    if (list === "allow" && !/^mcp__[^*]+__/.test(name))
      return {
        ok: false,
        warning: `rule "${text}": an allow rule may glob the tool name only after mcp__server__; ignored`,
      };
    if (!any)
      return { ok: false, warning: `rule "${text}": a tool-name glob cannot take a specifier; ignored` };
    const toolPattern = new RegExp(`^${name.split("*").map(escapeRegex).join(".*")}$`);
    return { ok: true, rule: { text, list, source, tools: [], toolPattern, matcher: { kind: "any" } } };
  }

  const mapping = CLAUDE_TOOL_NAMES[name];
  const tools = mapping
    ? any
      ? mapping.bare
      : [...mapping.scoped, ...(list === "deny" ? (mapping.denyAlso ?? []) : [])]
    : [name];
  const canonical = mapping?.bare[0] ?? name;
  let warning: string | undefined;
  if (!mapping && !knownTools.includes(name) && !name.startsWith("mcp__"))
    warning = `rule "${text}" names an unknown tool "${name}"; it will match only a tool registered under that name`;

  // `mcp__github` (Claude Code's form) covers every tool of the server github.
  const serverRule = name.startsWith("mcp__") && !name.slice("mcp__".length).includes("__");
  if (any && serverRule)
    return {
      ok: true,
      rule: {
        text,
        list,
        source,
        tools,
        toolPattern: new RegExp(`^${escapeRegex(name)}__`),
        matcher: { kind: "any" },
      },
    };
  if (any)
    return {
      ok: true,
      rule: { text, list, source, tools, matcher: { kind: "any" } },
      ...(warning ? { warning } : {}),
    };

  let matcher: RuleMatcher;
  if (canonical === COMMAND_TOOL) {
    matcher = { kind: "command", pattern: specifier!, regex: commandPatternRegex(specifier!) };
  } else if (canonical in PATH_TOOLS) {
    matcher = { kind: "path", pattern: specifier! };
  } else if (canonical === FETCH_TOOL && /^domain:[A-Za-z0-9*.-]+$/.test(specifier!)) {
    matcher = { kind: "domain", pattern: specifier!.slice("domain:".length).toLowerCase() };
  } else {
    return {
      ok: false,
      warning: `rule "${text}": ${name} takes no specifier reson understands (only commands, file paths and web_fetch(domain:host) do); ignored`,
    };
  }
  return { ok: true, rule: { text, list, source, tools, matcher }, ...(warning ? { warning } : {}) };
}

export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Where a rule came from: `flags`, or `file:line`. */
export function ruleSourceLabel(rule: Rule): string {
  if (rule.source.kind === "flags" || !rule.source.file) return rule.source.kind;
  return rule.line ? `${rule.source.file}:${rule.line}` : rule.source.file;
}
