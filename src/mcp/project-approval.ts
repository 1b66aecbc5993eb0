// Which defined servers may start: a user's own servers always; a project's only when the
// user approved this exact definition before, named it with --allow-mcp, listed it in
// mcp.allowProjectServers of $RESON_HOME/config.json, or says yes when asked now.
import { ResonError } from "../core/errors.js";
import { approve, isApproved } from "./approval.js";
import type { McpServerEntry } from "./definitions.js";

export interface ServerSelection {
  start: McpServerEntry[];
  /** Project servers not started, and why (what would start them). */
  refused: { entry: McpServerEntry; reason: string }[];
}

export interface SelectServersOptions {
  home: string;
  /** The workspace's real path: approvals are per workspace. */
  workspace: string;
  /** --allow-mcp names. */
  allow: readonly string[];
  /** mcp.allowProjectServers from the user's own config file. */
  userAllowed: readonly string[];
  /** Asks the user about a project server; absent: no one to ask (headless). */
  ask?: (entry: McpServerEntry) => Promise<boolean>;
}

export async function selectServers(
  entries: McpServerEntry[],
  options: SelectServersOptions,
): Promise<ServerSelection> {
  const selection: ServerSelection = { start: [], refused: [] };
  for (const entry of entries) {
    if (entry.config.enabled === false) continue;
    if (entry.scope === "user") {
      selection.start.push(entry);
      continue;
    }
    const named = options.allow.includes(entry.name) || options.userAllowed.includes(entry.name);
    if (named || (await isApproved(options.home, options.workspace, entry.name, entry.config))) {
      selection.start.push(entry);
      continue;
    }
    if (options.ask && (await options.ask(entry))) {
      await approve(options.home, options.workspace, entry.name, entry.config);
      selection.start.push(entry);
      continue;
    }
    selection.refused.push({
      entry,
      reason: options.ask
        ? "you did not approve it"
        : `it is defined by the project (${entry.source}) and not approved; pass --allow-mcp ${entry.name}, or approve it once in the terminal (\`reson mcp test ${entry.name}\`)`,
    });
  }
  const required = selection.refused.find((r) => r.entry.config.required);
  if (required)
    throw new ResonError(
      "mcp_unavailable",
      `The required MCP server "${required.entry.name}" was not started: ${required.reason}.`,
      {
        hint: `Approve it (--allow-mcp ${required.entry.name}) or mark it not required.`,
        details: { server: required.entry.name },
      },
    );
  return selection;
}
