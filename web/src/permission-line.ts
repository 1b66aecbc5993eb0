// How a tool call's permission was decided, in a line: "allowed by rule Bash(npm test) (project)",
// "denied by mode plan", with the user's answer when one was asked.
import type { ToolView } from "./run-state.js";

export function permissionLine(tool: ToolView): string | null {
  const p = tool.permission as
    | { behavior?: string; rule?: string; source?: string; mode?: string; by?: string; asked?: string }
    | undefined;
  if (!p) return null;
  const by = p.rule
    ? `rule ${p.rule}${p.source ? ` (${p.source})` : ""}`
    : `${p.by ?? "mode"} ${p.mode ?? ""}`.trim();
  return `${p.behavior === "deny" ? "denied" : "allowed"} by ${by}${p.asked ? `, user: ${p.asked}` : ""}`;
}
