// The names MCP tools go by in reson: `mcp__<server>__<tool>` (Claude Code's and Codex's
// scheme, so permission rules carry over), cut to what every provider accepts: letters,
// digits, "_" and "-", at most 64 characters (OpenAI's limit); a longer name keeps its start
// and ends in a short hash of the original, so two long names never collide.
import { createHash } from "node:crypto";

export const MCP_PREFIX = "mcp__";
export const MAX_TOOL_NAME_CHARS = 64;
const HASH_CHARS = 8;

export function sanitizeNamePart(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, "_");
}

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, HASH_CHARS);
}

/** The reson name of `tool` on `server` (the wire keeps the server's own name). */
export function mcpToolName(server: string, tool: string): string {
  const name = `${MCP_PREFIX}${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
  if (name.length <= MAX_TOOL_NAME_CHARS) return name;
  const keep = MAX_TOOL_NAME_CHARS - HASH_CHARS - 1;
  return `${name.slice(0, keep)}_${shortHash(`${server}\u0000${tool}`)}`;
}

/** A name that is taken already (two tools sanitised alike) made unique by the hash. */
export function disambiguatedToolName(server: string, tool: string): string {
  const base = mcpToolName(server, tool);
  const keep = Math.min(base.length, MAX_TOOL_NAME_CHARS - HASH_CHARS - 1);
  return `${base.slice(0, keep)}_${shortHash(`${server}\u0000${tool}`)}`;
}
