// The permission modes: parsing their names, and which tools each mode offers the model.
// Plan mode is structural: write tools are not offered at all, and evaluate() refuses any
// command that is not read-only.
import { COMMAND_TOOL, isReadOnlyTool } from "./tool-names.js";
import { PERMISSION_MODES, type PermissionMode, type Policy } from "./types.js";

const MODE_ALIASES: Readonly<Record<string, PermissionMode>> = {
  bypassPermissions: "bypass",
  manual: "default",
};

export function parseMode(name: string): PermissionMode | undefined {
  if ((PERMISSION_MODES as readonly string[]).includes(name)) return name as PermissionMode;
  return MODE_ALIASES[name];
}

export interface OfferOptions {
  /** With a policy, tools under a bare deny rule (`Bash`, `mcp__*`) are not offered either. */
  policy?: Policy;
  /** More tool names to treat as read-only (e.g. tools registered with `readOnly`). */
  readOnlyTools?: readonly string[];
}

/** The tools the model may see in `mode`, in the order given. */
export function toolsOfferedInMode(
  mode: PermissionMode,
  toolNames: readonly string[],
  options: OfferOptions = {},
): string[] {
  return toolNames.filter((tool) => {
    if (options.policy && isWhollyDenied(tool, options.policy)) return false;
    if (mode !== "plan") return true;
    return tool === COMMAND_TOOL || isReadOnlyTool(tool, options.readOnlyTools);
  });
}

function isWhollyDenied(tool: string, policy: Policy): boolean {
  return policy.rules.some(
    (rule) =>
      rule.list === "deny" &&
      rule.matcher.kind === "any" &&
      (rule.toolPattern ? rule.toolPattern.test(tool) : rule.tools.includes(tool)),
  );
}
