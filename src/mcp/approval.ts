// The user's approval of a project's MCP server, tied to a hash of its definition: a
// repository cannot start a process (or send requests with the user's headers) until the user
// said yes once, and a changed definition asks again. Kept in $RESON_HOME/mcp-approvals.json,
// by workspace real path; no project file can approve itself.
import { createHash } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { McpServerConfig } from "../config/index.js";
import { writeFileAtomic } from "../core/atomic-write.js";
import { ResonError } from "../core/errors.js";

export const MCP_APPROVALS_FILE = "mcp-approvals.json";

interface Approvals {
  /** workspace real path -> server name -> definition hash and when. */
  workspaces: Record<string, Record<string, { hash: string; approvedAt: string }>>;
}

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

async function readApprovals(home: string): Promise<Approvals> {
  const file = join(home, MCP_APPROVALS_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { workspaces: {} };
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<Approvals>;
    if (typeof parsed.workspaces === "object" && parsed.workspaces !== null)
      return { workspaces: parsed.workspaces };
  } catch {
    // said below
  }
  throw new ResonError("config_invalid", `${file} is not a valid list of approved MCP servers.`, {
    hint: "Delete it; reson asks again for each project server.",
    details: { file },
  });
}

export async function isApproved(
  home: string,
  workspace: string,
  name: string,
  config: McpServerConfig,
): Promise<boolean> {
  const approvals = await readApprovals(home);
  return approvals.workspaces[workspace]?.[name]?.hash === definitionHash(config);
}

export async function approve(
  home: string,
  workspace: string,
  name: string,
  config: McpServerConfig,
  now = new Date(),
): Promise<void> {
  const approvals = await readApprovals(home);
  const servers = approvals.workspaces[workspace] ?? {};
  servers[name] = { hash: definitionHash(config), approvedAt: now.toISOString() };
  approvals.workspaces[workspace] = servers;
  await mkdir(home, { recursive: true, mode: 0o700 });
  await writeFileAtomic(join(home, MCP_APPROVALS_FILE), `${JSON.stringify(approvals, null, 2)}\n`);
}
