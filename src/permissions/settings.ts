// Reading the permission settings: flags > <workspace>/.reson/settings.local.json >
// <workspace>/.reson/settings.json > $RESON_HOME/settings.json, each in Claude Code's shape
// `{"permissions": {"allow": [], "ask": [], "deny": [], "defaultMode": "…"}}`.
import { readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { resonHome } from "../config/index.js";
import { parseMode } from "./modes.js";
import { createPolicy, type PolicySource } from "./policy.js";
import { type ProjectGrants, projectGrants, WIDENING_MODES } from "./project-grants.js";
import { escapeRegex, parseRule } from "./rule.js";
import { KNOWN_TOOLS } from "./tool-names.js";
import type { HeldGrant, Policy, PolicyWarning, RuleSource } from "./types.js";

export interface PermissionFlags {
  allow?: readonly string[];
  ask?: readonly string[];
  deny?: readonly string[];
  mode?: string;
}

export interface LoadPermissionSettingsOptions {
  workspaceRoot: string;
  /** $RESON_HOME, the folder holding the user's settings.json; defaults to resonHome(). */
  home?: string;
  flags?: PermissionFlags;
  knownTools?: readonly string[];
  signal?: AbortSignal;
}

export function settingsFiles(
  workspaceRoot: string,
  home: string,
): { kind: RuleSource["kind"]; file: string; root: string }[] {
  return [
    { kind: "local", file: join(workspaceRoot, ".reson", "settings.local.json"), root: workspaceRoot },
    { kind: "project", file: join(workspaceRoot, ".reson", "settings.json"), root: workspaceRoot },
    { kind: "user", file: join(home, "settings.json"), root: home },
  ];
}

export async function loadPermissionSettings(options: LoadPermissionSettingsOptions): Promise<Policy> {
  const home = options.home ?? resonHome();
  const sources: PolicySource[] = [];
  const readWarnings: PolicyWarning[] = [];
  const flags = options.flags ?? {};
  sources.push({
    source: { kind: "flags", root: options.workspaceRoot },
    permissions: {
      ...(flags.allow ? { allow: flags.allow } : {}),
      ...(flags.ask ? { ask: flags.ask } : {}),
      ...(flags.deny ? { deny: flags.deny } : {}),
      ...(flags.mode !== undefined ? { defaultMode: flags.mode } : {}),
    },
  });
  const files = settingsFiles(options.workspaceRoot, home);
  const held: HeldGrant[] = [];
  /** The sources as applied: a workspace file's without what waits for the user's approval. */
  const applied: PolicySource[] = [sources[0] as PolicySource];
  const knownTools = options.knownTools ?? KNOWN_TOOLS;
  let grants: ProjectGrants | undefined;
  // Small files (usually none exists), read synchronously: a trip through the thread pool
  // costs more than the read.
  for (const { kind, file, root } of files) {
    options.signal?.throwIfAborted();
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      if (isNotFound(error)) continue;
      readWarnings.push({ source: file, message: `cannot read the settings file: ${messageOf(error)}` });
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      readWarnings.push({
        source: file,
        message: `not valid JSON, so none of its permission rules apply: ${messageOf(error)}`,
        ...jsonErrorLine(text, error),
      });
      continue;
    }
    if (typeof json !== "object" || json === null || Array.isArray(json)) {
      readWarnings.push({ source: file, message: "the settings file must hold a JSON object; ignored" });
      continue;
    }
    const permissions = (json as Record<string, unknown>).permissions;
    const source = { source: { kind, file, root }, permissions, text };
    sources.push(source);
    if (kind !== "local" && kind !== "project") {
      applied.push(source);
      continue;
    }
    grants ??= projectGrants(home, realRoot(options.workspaceRoot));
    const split = holdUngranted(permissions, grants, source.source, knownTools);
    applied.push({ ...source, permissions: split.permissions });
    if (split.held) {
      held.push({ file, ...split.held });
      readWarnings.push({ source: file, message: heldMessage(split.held) });
    }
  }
  const policyOptions = options.knownTools ? { knownTools: options.knownTools } : {};
  const policy = createPolicy(applied, policyOptions);
  // Every rule is checked, held or not: the warnings are the whole files'.
  const { warnings } = held.length > 0 ? createPolicy(sources, policyOptions) : policy;
  return {
    ...policy,
    warnings: [...readWarnings, ...warnings],
    ...(held.length > 0 ? { held } : {}),
  };
}

/**
 * A workspace file's permissions without what it grants unapproved: its allow rules the user did
 * not approve, and a mode that asks less than `default` (a cloned repository ships this file).
 */
function holdUngranted(
  permissions: unknown,
  grants: ProjectGrants,
  source: RuleSource,
  knownTools: readonly string[],
): { permissions: unknown; held?: Omit<HeldGrant, "file"> } {
  if (typeof permissions !== "object" || permissions === null || Array.isArray(permissions))
    return { permissions };
  const kept: Record<string, unknown> = { ...(permissions as Record<string, unknown>) };
  const allow: string[] = [];
  let mode: string | undefined;
  if (Array.isArray(kept.allow)) {
    kept.allow = kept.allow.filter((rule) => {
      // A rule that cannot be used grants nothing: it stays, to be warned about and dropped.
      if (typeof rule !== "string" || grants.allow.includes(rule)) return true;
      if (!parseRule(rule, "allow", source, knownTools).ok) return true;
      allow.push(rule);
      return false;
    });
  }
  const wanted = typeof kept.defaultMode === "string" ? parseMode(kept.defaultMode) : undefined;
  if (wanted && WIDENING_MODES.includes(wanted) && !grants.modes.includes(wanted)) {
    mode = wanted;
    delete kept.defaultMode;
  }
  if (allow.length === 0 && mode === undefined) return { permissions };
  return { permissions: kept, held: { allow, ...(mode ? { mode } : {}) } };
}

function heldMessage(held: Omit<HeldGrant, "file">): string {
  const what = [
    ...(held.allow.length > 0 ? [`allows ${held.allow.join(", ")}`] : []),
    ...(held.mode ? [`sets the mode ${held.mode}`] : []),
  ].join(" and ");
  return (
    `this workspace's file ${what} without your approval, so that is not applied (a repository you ` +
    "clone can ship this file); if you wrote it, approve it once with `reson permissions approve`"
  );
}

/** The workspace's real path, as approvals are kept by (the path given when it cannot be resolved). */
export function realRoot(workspaceRoot: string): string {
  try {
    return realpathSync(workspaceRoot);
  } catch {
    return workspaceRoot;
  }
}

/** The user's home folder, for `~` in rules and guards. */
export function defaultUserHome(): string {
  return homedir();
}

function jsonErrorLine(text: string, error: unknown): { line?: number } {
  const message = messageOf(error);
  const explicit = /line (\d+)/.exec(message);
  if (explicit) return { line: Number(explicit[1]) };
  const position = /position (\d+)/.exec(message);
  if (position) return { line: text.slice(0, Number(position[1])).split("\n").length };
  if (/end of JSON input/.test(message)) return { line: text.trimEnd().split("\n").length };
  // Node 20 names neither line nor position, only the token and the text around it.
  const token = /Unexpected token '(.)'/.exec(message)?.[1];
  const around = /(?:\.\.\.)?"([\s\S]*?)(?:\.\.\.)?" is not valid JSON/.exec(message)?.[1];
  if (token === undefined || around === undefined) return {};
  const aroundAt = text.indexOf(around);
  if (aroundAt < 0) return {};
  const before = message.includes(`..."${around}`) ? 10 : 0;
  const candidates = [...around.matchAll(new RegExp(escapeRegex(token), "g"))].map((m) => m.index ?? 0);
  const best = candidates.sort((a, b) => Math.abs(a - before) - Math.abs(b - before))[0];
  if (best === undefined) return {};
  return { line: text.slice(0, aroundAt + best).split("\n").length };
}

function isNotFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "ENOENT";
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
