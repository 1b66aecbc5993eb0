// What a tool call does, as the permission rules see it: a file tool its path (and whether
// it is protected or out of the file tools' reach), a fetch its host, and a command line one
// action per simple command and per redirect target, with the guards that always ask (a
// protected path, a critical delete, a line reson cannot read with certainty).
import { relative, resolve } from "node:path";
import { isWithin } from "../core/path-within.js";
import { PRIVATE_WRITABLE_DIRS } from "../workspace/index.js";
import { normalizeCommandText } from "./command-pattern.js";
import {
  commandWriteTargets,
  criticalTargetReason,
  findDeleteTargets,
  protectedPathReason,
  recursiveRmTargets,
  resolveUserPath,
  workspaceProtectedEntry,
} from "./guards.js";
import { isReadOnlyCommand } from "./read-only-commands.js";
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
import type { EvaluationContext, ToolCall } from "./types.js";
import { isDangerousVariable, stripWrappers } from "./wrappers.js";

export type ActionKind = "read" | "write" | "command" | "other";

/** One thing a call does, as the rules see it. */
export interface Action {
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
  /** Set when neither an allow rule nor the read-only set may approve the action. */
  noAutoAllow?: string;
  /** Set when the action would fail even if allowed: a sandbox refuses it. */
  refusedBySandbox?: string;
  /** It fills in one of the user's secrets (EvaluationContext.secrets). */
  fillsSecrets?: true;
  /** An external tool's call in an untrusted run: the hosts of the URLs in its arguments. */
  argumentHosts?: string[];
}

/** What a call of any tool but execute_command does. */
export function toolAction(call: ToolCall, context: EvaluationContext): Action {
  const kind: ActionKind =
    isReadOnlyTool(call.tool, context.readOnlyTools) || isDelegatingTool(call.tool)
      ? "read"
      : isWriteTool(call.tool)
        ? "write"
        : "other";
  const action: Action = {
    kind,
    tool: call.tool,
    part: call.tool,
    ...(context.secrets && context.secrets.length > 0 ? { fillsSecrets: true as const } : {}),
    ...(context.untrusted && context.externalTools?.includes(call.tool)
      ? { argumentHosts: hostsIn(call.arguments) }
      : {}),
  };
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
  const guard = protectedPathReason(path, context);
  const refused = isWithin(path, context.workspaceRoot)
    ? neverEdited(path, context)
    : `file tools reach only the workspace, and ${value} is outside it`;
  return {
    ...action,
    part,
    path,
    ...(guard ? { guard } : {}),
    ...(refused ? { refusedBySandbox: refused } : {}),
  };
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

/** The action of an execute_command call that names no command string. */
export const MISSING_COMMAND: Action = {
  kind: "command",
  tool: COMMAND_TOOL,
  part: "(no command)",
  guard: "the call has no command string",
};

/**
 * What an execute_command call does: one action per simple command and per redirect target,
 * and where no sandbox works one more that is always asked. Undefined without a command string.
 */
export function commandActions(args: unknown, context: EvaluationContext): Action[] | undefined {
  const command = isRecord(args) ? args.command : undefined;
  if (typeof command !== "string") return undefined;
  const actions = lineActions(command, context);
  if (context.sandbox === "none") actions.push(unsandboxedAction());
  return actions;
}

/**
 * Whether a command line only reads, by the same list that lets read-only commands run without
 * a rule: every part a read-only command, every redirect harmless, nothing reson is unsure of.
 * Pure; a command it cannot read counts as one that writes.
 */
export function commandOnlyReads(command: string, context: EvaluationContext): boolean {
  try {
    return lineActions(command, context).every(
      (action) =>
        action.guard === undefined &&
        (action.kind === "read" || (action.kind === "command" && action.command?.readOnly === true)),
    );
  } catch {
    return false;
  }
}

function lineActions(command: string, context: EvaluationContext): Action[] {
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
      ...(context.secrets && context.secrets.length > 0 && /<secret>/.test(text)
        ? { fillsSecrets: true as const }
        : {}),
    };
    const dangerous = stripped.assignments.filter(isDangerousVariable);
    if (dangerous.length > 0) action.noAutoAllow = `it sets ${dangerous.join(", ")}`;
    const guard = commandGuard(args, cwd, context);
    if (guard) action.guard = guard;
    const refused = commandWriteTargets(args)
      .map((target) =>
        readOnlyForCommands(resolveUserPath(target, cwd ?? context.workspaceRoot, context.userHome), context),
      )
      .find((reason) => reason !== undefined);
    if (refused) action.refusedBySandbox = refused;
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

/** The extra part of every command when no sandbox can hold it: always asked, never auto-allowed. */
function unsandboxedAction(): Action {
  return {
    kind: "command",
    tool: COMMAND_TOOL,
    part: "(no sandbox)",
    command: { text: "", variants: [], readOnly: false },
    guard: UNSANDBOXED_REASON,
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
      context,
    );
    if (reason) return `the command writes a protected path: ${reason}`;
  }
  return undefined;
}

/** Why no answer lets a file tool write `path`: the workspace refuses git's own files and reson's settings. */
function neverEdited(path: string, context: EvaluationContext): string | undefined {
  const entry = workspaceProtectedEntry(path, context);
  if (entry?.edits !== "never") return undefined;
  return `${relative(context.workspaceRoot, path)} is changed only by you, never by the agent (${entry.reader})`;
}

/** Why the sandbox refuses a command's write to `path` anyway: a protected path is read-only for commands. */
function readOnlyForCommands(path: string, context: EvaluationContext): string | undefined {
  if (context.sandbox !== "enforced" || !workspaceProtectedEntry(path, context)) return undefined;
  return `inside the OS sandbox, commands cannot change protected files such as ${relative(context.workspaceRoot, path)}`;
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
  const guard = protectedPathReason(path, context);
  const writable = [context.workspaceRoot, ...PRIVATE_WRITABLE_DIRS];
  const refused =
    context.sandbox === "enforced" && !writable.some((dir) => isWithin(path, dir))
      ? `inside the OS sandbox a command can write only the workspace and /tmp, not ${path}`
      : readOnlyForCommands(path, context);
  return { ...base, path, ...(guard ? { guard } : {}), ...(refused ? { refusedBySandbox: refused } : {}) };
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

/**
 * URLs as a URL parser reads them: http, https, ws, wss and ftp with any slashes after the
 * colon (`http:\\host`, `http:/host` and `http:host` all reach host), and any other scheme
 * followed by `//`.
 */
const URL_PATTERNS = [/\b(?:https?|wss?|ftp):[^\s"'<>]+/gi, /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi];

/** The hosts of the URLs anywhere in `value` (any JSON-like shape). */
function hostsIn(value: unknown): string[] {
  const hosts = new Set<string>();
  const visit = (item: unknown): void => {
    if (typeof item === "string") {
      for (const pattern of URL_PATTERNS)
        for (const match of item.matchAll(pattern)) {
          try {
            const host = new URL(match[0]).hostname.toLowerCase().replace(/\.$/, "");
            if (host !== "") hosts.add(host);
          } catch {
            // not a URL after all
          }
        }
    } else if (Array.isArray(item)) item.forEach(visit);
    else if (isRecord(item)) Object.values(item).forEach(visit);
  };
  visit(value);
  return [...hosts];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
