// The user's approval of a project's MCP server, tied to a hash of its definition: a
// repository cannot start a process (or send requests with the user's headers) until the user
// said yes once, and a changed definition asks again. Kept in $RESON_HOME/mcp-approvals.json,
// by workspace real path; no project file can approve itself.
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { McpServerConfig } from "../config/index.js";
import { approveHash, type HashApprovalFile, isHashApproved } from "../core/hash-approvals.js";

export const MCP_APPROVALS_FILE = "mcp-approvals.json";

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  return value;
}

/** The hash of a definition as written (before `${VAR}` expansion, so no secret is hashed in). */
export function definitionHash(config: McpServerConfig): string {
  return createHash("sha256")
    .update(JSON.stringify(canonical(config)))
    .digest("hex")
    .slice(0, 32);
}

function approvalsFile(home: string): HashApprovalFile {
  return {
    path: join(home, MCP_APPROVALS_FILE),
    what: "approved MCP servers",
    whenDeleted: "reson asks again for each project server",
    stampKey: "approvedAt",
  };
}

export function isApproved(
  home: string,
  workspace: string,
  name: string,
  config: McpServerConfig,
): Promise<boolean> {
  return isHashApproved(approvalsFile(home), workspace, name, definitionHash(config));
}

export function approve(
  home: string,
  workspace: string,
  name: string,
  config: McpServerConfig,
  now = new Date(),
): Promise<void> {
  return approveHash(approvalsFile(home), workspace, name, definitionHash(config), now);
}
