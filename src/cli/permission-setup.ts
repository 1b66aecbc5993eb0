// The permission gate the terminal commands put in front of tool calls: rules from flags and
// settings files (warnings printed with file and line), the mode from a flag, a settings file
// or the command's default, and, in the interactive terminal, someone to ask.
import { homedir } from "node:os";
import type { AgentOptions } from "../agent/index.js";
import { resonHome } from "../config/index.js";
import { ResonError } from "../core/errors.js";
import {
  loadPermissionSettings,
  PERMISSION_MODES,
  PermissionGate,
  type PermissionGateOptions,
  type PermissionMode,
  parseMode,
  toolsOfferedInMode,
} from "../permissions/index.js";

export interface PermissionFlagArgs {
  permissionMode?: string;
  allow: string[];
  deny: string[];
}

export async function loadGate(
  args: PermissionFlagArgs,
  workspaceRoot: string,
  options: { defaultMode?: PermissionMode; promptUser?: PermissionGateOptions["promptUser"] } = {},
): Promise<PermissionGate> {
  if (args.permissionMode !== undefined && parseMode(args.permissionMode) === undefined) {
    throw new ResonError("usage_error", `Unknown permission mode ${JSON.stringify(args.permissionMode)}.`, {
      hint: `Use one of: ${PERMISSION_MODES.join(", ")}.`,
    });
  }
  let policy = await loadPermissionSettings({
    workspaceRoot,
    home: resonHome(),
    flags: {
      allow: args.allow,
      deny: args.deny,
      ...(args.permissionMode ? { mode: args.permissionMode } : {}),
    },
  });
  if (policy.modeSource === "built-in" && options.defaultMode) {
    policy = { ...policy, mode: options.defaultMode, modeSource: "command default" };
  }
  for (const warning of policy.warnings) {
    const where = warning.line ? `${warning.source}:${warning.line}` : warning.source;
    process.stderr.write(`warning: ${where}: ${warning.message}\n`);
  }
  return new PermissionGate({
    policy,
    workspaceRoot,
    userHome: homedir(),
    home: resonHome(),
    ...(options.promptUser ? { promptUser: options.promptUser } : {}),
  });
}

/** What an agent needs from the gate: the hook, and which tools the current mode offers. */
export function gateOptions(gate: PermissionGate): Pick<AgentOptions, "hooks" | "offerTool"> {
  return {
    hooks: gate.hooks(),
    offerTool: (name) =>
      toolsOfferedInMode(gate.currentMode, [name], { policy: gate.currentPolicy }).length > 0,
  };
}
