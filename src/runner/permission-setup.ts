// The permission gate the terminal commands, serve and workers put in front of tool calls: rules from flags and
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
  type Policy,
  parseMode,
  type SandboxState,
  toolsOfferedInMode,
} from "../permissions/index.js";
import { type NestedRepositories, nestedProtectedEntry, probeSandbox } from "../workspace/index.js";

/** Where commands will run, for the gate (what to ask) and the agent (how to run them). */
export interface SandboxSetup {
  state: SandboxState;
  agent: Pick<AgentOptions, "sandbox" | "sandboxSummary">;
}

/**
 * The user's --sandbox choice against what this machine supports. With no working sandbox,
 * commands run only after explicit approval (so the terminal asks each time and a headless
 * run refuses them), and the start line says so; the model has no way to change this.
 */
export async function sandboxSetup(choice: "on" | "off", interactive: boolean): Promise<SandboxSetup> {
  if (choice === "off") {
    return {
      state: "off",
      agent: {
        sandbox: "off",
        sandboxSummary: "sandbox: off (--sandbox off) — commands run WITHOUT an OS sandbox",
      },
    };
  }
  const status = await probeSandbox();
  if (status.level === "enforced") return { state: "enforced", agent: { sandbox: "on" } };
  const consequence = interactive
    ? "every command needs your approval"
    : "commands are refused (pass --sandbox off to run them without a sandbox)";
  return {
    state: "none",
    agent: { sandbox: "off", sandboxSummary: `${status.summary} — ${consequence}; see \`reson doctor\`` },
  };
}

export interface PermissionFlagArgs {
  permissionMode?: string;
  allow: string[];
  deny: string[];
}

export async function loadGate(
  args: PermissionFlagArgs,
  workspaceRoot: string,
  options: {
    defaultMode?: PermissionMode;
    promptUser?: PermissionGateOptions["promptUser"];
    sandbox?: SandboxState;
  } & Pick<PermissionGateOptions, "sessionRules" | "onSessionGrant"> = {},
): Promise<PermissionGate> {
  if (args.permissionMode !== undefined && parseMode(args.permissionMode) === undefined) {
    throw new ResonError("usage_error", `Unknown permission mode ${JSON.stringify(args.permissionMode)}.`, {
      hint: `Use one of: ${PERMISSION_MODES.join(", ")}.`,
    });
  }
  const policy = await loadPolicy(args, workspaceRoot, options.defaultMode);
  for (const warning of policy.warnings) {
    const where = warning.line ? `${warning.source}:${warning.line}` : warning.source;
    process.stderr.write(`warning: ${where}: ${warning.message}\n`);
  }
  // Repositories below the root keep their own protected paths (looked for at the first check,
  // once for the gate and the run's workspace: gateOptions hands the holder on).
  const nested: NestedRepositories = {};
  return new PermissionGate({
    policy,
    workspaceRoot,
    protectedBelow: (path) => nestedProtectedEntry(workspaceRoot, nested, path),
    nestedRepositories: nested,
    userHome: homedir(),
    home: resonHome(),
    ...(options.promptUser ? { promptUser: options.promptUser } : {}),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.sessionRules ? { sessionRules: options.sessionRules } : {}),
    ...(options.onSessionGrant ? { onSessionGrant: options.onSessionGrant } : {}),
  });
}

/** The permission policy from the flags and the settings files (the command's mode where none sets one). */
export async function loadPolicy(
  args: PermissionFlagArgs,
  workspaceRoot: string,
  defaultMode?: PermissionMode,
): Promise<Policy> {
  const policy = await loadPermissionSettings({
    workspaceRoot,
    home: resonHome(),
    flags: {
      allow: args.allow,
      deny: args.deny,
      ...(args.permissionMode ? { mode: args.permissionMode } : {}),
    },
  });
  if (policy.modeSource === "built-in" && defaultMode)
    return { ...policy, mode: defaultMode, modeSource: "command default" };
  return policy;
}

/**
 * What an agent needs from the gate: the hook, the check of every hop, which tools the current
 * mode offers, and which commands only read (so need no snapshot of the workspace around them).
 */
export function gateOptions(
  gate: PermissionGate,
): Pick<AgentOptions, "hooks" | "offerTool" | "commandOnlyReads" | "checkHop" | "nestedRepositories"> {
  const nested = gate.nestedRepositories;
  return {
    ...(nested ? { nestedRepositories: nested } : {}),
    hooks: gate.hooks(),
    checkHop: (hop, run) => gate.checkHop(hop, run),
    offerTool: (name) =>
      toolsOfferedInMode(gate.currentMode, [name], { policy: gate.currentPolicy }).length > 0,
    commandOnlyReads: (command) => gate.commandOnlyReads(command),
  };
}
