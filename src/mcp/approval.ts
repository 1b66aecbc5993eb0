// The user's approval of a project's MCP server, tied to a hash of its definition and of the
// workspace files it runs (server-files.ts): a repository cannot start a process (or send
// requests with the user's headers) until the user said yes once, and a changed definition, or
// a changed script it runs, asks again. Kept in $RESON_HOME/mcp-approvals.json, by workspace
// real path; no project file can approve itself.
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { McpServerConfig } from "../config/index.js";
import { approvalOf, approveHash, type HashApprovalFile } from "../core/hash-approvals.js";
import type { ServerFiles } from "./server-files.js";

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

/** The hash approved: the definition's, and every file it runs, by path and content. */
function approvalHash(config: McpServerConfig, files: ServerFiles): string {
  return createHash("sha256")
    .update(definitionHash(config))
    .update(JSON.stringify(files.files))
    .digest("hex")
    .slice(0, 32);
}

export interface ApprovalState {
  approved: boolean;
  /**
   * When not approved but the same definition was: the files it runs that changed since (added,
   * changed or gone), workspace-relative.
   */
  changed: string[];
}

function keptFiles(entry: Record<string, string> | undefined): Record<string, string> | undefined {
  try {
    return entry?.files ? (JSON.parse(entry.files) as Record<string, string>) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether this definition, running these files as they are now, was approved. */
export async function approvalState(
  home: string,
  workspace: string,
  name: string,
  config: McpServerConfig,
  files: ServerFiles,
): Promise<ApprovalState> {
  const entry = await approvalOf(approvalsFile(home), workspace, name);
  if (entry?.hash === approvalHash(config, files)) return { approved: true, changed: [] };
  const before = entry?.definition === definitionHash(config) ? keptFiles(entry) : undefined;
  if (!before) return { approved: false, changed: [] };
  const paths = new Set([...Object.keys(before), ...Object.keys(files.files)]);
  return { approved: false, changed: [...paths].filter((path) => before[path] !== files.files[path]).sort() };
}

export function approve(
  home: string,
  workspace: string,
  name: string,
  config: McpServerConfig,
  files: ServerFiles,
  now = new Date(),
): Promise<void> {
  return approveHash(approvalsFile(home), workspace, name, approvalHash(config, files), now, {
    definition: definitionHash(config),
    files: JSON.stringify(files.files),
  });
}
