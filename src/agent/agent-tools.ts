// The tools an agent has: built-in ones, the caller's and the skill tool, filtered by its preset
// and by whether it is read-only (the same rules for an agent and its sub-agents).
import { allowedPrivateHosts, type Preset, type ResonConfig } from "../config/index.js";
import type { SkillSet } from "../skills/index.js";
import { createSkillTool } from "../skills/index.js";
import { createBuiltinTools, type ToolDefinition, ToolRegistry } from "../tools/index.js";
import { probeSandbox } from "../workspace/index.js";

/**
 * Which tools an agent gets at all (not merely offered): a preset's list, and for a read-only
 * agent no tool with side effects except commands, which only run where the OS sandbox can
 * mount the workspace read-only.
 */
export async function toolFilter(
  preset: Preset | undefined,
  readOnly: boolean,
  commandSandbox: "on" | "off",
): Promise<(name: string, toolReadOnly: boolean) => boolean> {
  const listed = preset?.tools ? new Set(preset.tools) : undefined;
  // Only a read-only agent needs to know now (its commands need a read-only mount).
  const commandsContained =
    readOnly && commandSandbox === "on" && (await probeSandbox()).level === "enforced";
  return (name, toolReadOnly) => {
    if (listed && !listed.has(name)) return false;
    if (!readOnly) return true;
    if (name === "execute_command") return commandsContained;
    // goal changes only the run's own plan.
    return toolReadOnly || name === "goal";
  };
}

/**
 * The tools an agent has: the built-in ones, the caller's and the skill tool, as far as its
 * preset and read-only state allow (the same for an agent and its sub-agents).
 */
export async function agentTools(setup: {
  config: ResonConfig;
  preset: Preset | undefined;
  readOnly: boolean;
  commandSandbox: "on" | "off";
  extra: ToolDefinition[];
  skills: SkillSet;
  contextWindow: number;
}): Promise<{ tools: ToolRegistry; allowed: (name: string, toolReadOnly: boolean) => boolean }> {
  const { config, skills } = setup;
  const tools = new ToolRegistry({ maxOutputChars: config.tools.maxOutputChars });
  const allowed = await toolFilter(setup.preset, setup.readOnly, setup.commandSandbox);
  for (const tool of createBuiltinTools({
    commandTimeoutMs: config.tools.commandTimeoutMs,
    ...(config.tools.commandDiskBytes ? { commandDiskBytes: config.tools.commandDiskBytes } : {}),
    commandSandbox: setup.commandSandbox === "on",
    allowPrivateHosts: allowedPrivateHosts(config),
  }))
    if (allowed(tool.name, tool.readOnly)) tools.register(tool);
  for (const tool of setup.extra) if (allowed(tool.name, tool.readOnly)) tools.register(tool);
  // The catalogue in the skill tool's description: about 2% of the window, in characters.
  const budgetChars = Math.min(16_000, Math.max(2_000, Math.floor(setup.contextWindow * 0.02 * 4)));
  if (allowed("skill", true))
    tools.register(
      createSkillTool(() => skills.list(), { budgetChars, isEnabled: (name) => skills.isEnabled(name) }),
    );
  return { tools, allowed };
}
