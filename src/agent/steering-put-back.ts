// Once a run has read untrusted content, nothing it runs may change what steers later runs
// (instruction files, skills, .mcp.json, .reson, at any depth: a later run started in that
// folder reads them). The file tools are held path by path by the permission check, and the
// sandbox keeps the workspace root's own steering files read-only for commands; what else
// changes files (a command the parser cannot read writing `docs/AGENTS.md`, an MCP server's or
// a plugin's tool) is found afterwards in the call's snapshots and put back as it was.
import type { UntrustedSource } from "../core/events.js";
import type { ToolCallRequest } from "../tools/index.js";
import { steeringUnit } from "../workspace/index.js";
import { describeSource } from "./run-trust.js";

/** The file tools, whose every path the permission check holds (an allowed one stays). */
const PATH_CHECKED_TOOLS: ReadonlySet<string> = new Set(["write_file", "edit_file"]);

/** What of a changed path the call may not change, for a call of a run that read untrusted content. */
export function steeringKeepOut(
  call: ToolCallRequest,
  untrusted: readonly UntrustedSource[] | undefined,
): ((path: string) => string | undefined) | undefined {
  if (!untrusted || untrusted.length === 0 || PATH_CHECKED_TOOLS.has(call.name)) return undefined;
  return steeringUnit;
}

/**
 * What the model (and the trace) is told after its call changed files that steer later runs:
 * those put back, and those reson could not put back (it keeps no copy of them).
 */
export function putBackNote(
  changes: { putBack?: readonly string[]; notPutBack?: readonly string[] },
  untrusted: readonly UntrustedSource[],
): string | undefined {
  const done = changes.putBack ?? [];
  const left = changes.notPutBack ?? [];
  if (done.length === 0 && left.length === 0) return undefined;
  const why =
    `this run has read untrusted content (${describeSource(untrusted[0]!)}), and in such a run only ` +
    "the file tools, with the user's approval, may change files that steer later runs (instruction " +
    "files, skills, .mcp.json, .reson)";
  const parts = [
    ...(done.length > 0 ? [`reson put back ${done.join(", ")} as it was before this call`] : []),
    ...(left.length > 0
      ? [
          `reson could not put back ${left.join(", ")}, which this call changed: it keeps no copy of it ` +
            "(ignored, too large or holding a secret); the user should check it",
        ]
      : []),
  ];
  return `${parts.join("; ")}: ${why}.`;
}
