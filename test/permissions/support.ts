// Shared fixtures for the permission tests: a fixed workspace and home, and policies built
// from rule lists as a settings file would give them.
import {
  createPolicy,
  type PermissionMode,
  type Policy,
  type PolicySource,
  type ToolCall,
} from "../../src/permissions/index.js";

export const WS = "/work/proj";
export const HOME = "/home/ann";

export interface RuleLists {
  allow?: string[];
  ask?: string[];
  deny?: string[];
}

export function projectSource(lists: RuleLists, file = `${WS}/.reson/settings.json`): PolicySource {
  return { source: { kind: "project", file, root: WS }, permissions: lists };
}

export function policyOf(lists: RuleLists = {}): Policy {
  return createPolicy([projectSource(lists)]);
}

export function ctx(mode: PermissionMode = "default") {
  return { workspaceRoot: WS, userHome: HOME, mode };
}

export function cmd(command: string): ToolCall {
  return { tool: "execute_command", arguments: { command } };
}

export function write(path: string): ToolCall {
  return { tool: "write_file", arguments: { path, content: "x" } };
}

export function edit(path: string): ToolCall {
  return { tool: "edit_file", arguments: { path, old_string: "a", new_string: "b" } };
}

export function read(path: string): ToolCall {
  return { tool: "read_file", arguments: { path } };
}
