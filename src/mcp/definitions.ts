// Where MCP servers are defined and by whom: the user's config ($RESON_HOME/config.json, the
// environment, flags) or the project (.mcp.json in Claude Code's format, read as it is, and
// .reson/config.json). A project's servers come with the repository, so they start only once
// the user approved them (approval.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type LoadedConfig, type McpServerConfig, McpServerSchema } from "../config/index.js";
import { ResonError } from "../core/errors.js";
import { typeboxValue } from "../core/typebox-runtime.js";

export type McpScope = "user" | "project";

export interface McpServerEntry {
  name: string;
  scope: McpScope;
  /** The file (or "environment", "flags") the definition came from, the last that set it. */
  source: string;
  config: McpServerConfig;
}

export const PROJECT_MCP_FILE = ".mcp.json";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Claude Code's keys we read; "streamable-http" is an alias some tools write for "http". */
const CLAUDE_KEYS = new Set(["type", "command", "args", "env", "cwd", "url", "headers"]);

/** One `.mcp.json` entry as a reson definition; unknown keys are reported, not fatal. */
export function fromClaudeEntry(
  file: string,
  name: string,
  entry: unknown,
  warnings: string[],
): McpServerConfig | undefined {
  if (!isRecord(entry)) {
    warnings.push(`${file}: server "${name}" is not an object; skipped.`);
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (!CLAUDE_KEYS.has(key)) {
      warnings.push(`${file}: server "${name}": "${key}" is not used by reson; ignored.`);
      continue;
    }
    out[key] = key === "type" && value === "streamable-http" ? "http" : value;
  }
  if (!typeboxValue().Check(McpServerSchema, out)) {
    const problems = typeboxValue()
      .Errors(McpServerSchema, out)
      .map((e) => `${e.instancePath || "(server)"} ${e.message}`)
      .join("; ");
    warnings.push(`${file}: server "${name}" is invalid (${problems}); skipped.`);
    return undefined;
  }
  return out;
}

/** The servers of a project's `.mcp.json` (`{"mcpServers": {...}}`); none when there is no file. */
export async function readProjectMcpFile(
  workspace: string,
  warnings: string[],
): Promise<Record<string, McpServerConfig>> {
  const file = join(workspace, PROJECT_MCP_FILE);
  let text: string;
  try {
    // Read at every run's start, usually absent: synchronously, as a thread-pool trip costs more.
    text = readFileSync(file, "utf8");
  } catch (error) {
    // A folder: the read-only placeholder a sandboxed command has there while it runs.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "EISDIR") return {};
    throw new ResonError("config_invalid", `Cannot read ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ResonError("config_invalid", `${file} is not valid JSON: ${(error as Error).message}`, {
      hint: "Fix the JSON syntax, or move the file away to run without its servers.",
    });
  }
  const servers = isRecord(parsed) ? parsed.mcpServers : undefined;
  if (!isRecord(servers)) {
    warnings.push(`${file} has no "mcpServers" object; no servers read from it.`);
    return {};
  }
  const out: Record<string, McpServerConfig> = {};
  for (const [name, entry] of Object.entries(servers)) {
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) {
      warnings.push(
        `${file}: server name "${name}" may only use letters, digits, "_", "." and "-"; skipped.`,
      );
      continue;
    }
    const server = fromClaudeEntry(file, name, entry, warnings);
    if (server) out[name] = server;
  }
  return out;
}

/**
 * Every defined server, lowest precedence first: user config < .mcp.json < .reson/config.json
 * < environment < flags. A server any project file defines (or changes) is a project server.
 */
export async function mcpServerEntries(
  loaded: LoadedConfig,
  workspace: string,
  warnings: string[] = [],
): Promise<McpServerEntry[]> {
  const projectConfig = join(workspace, ".reson", "config.json");
  const mcpFile = {
    source: join(workspace, PROJECT_MCP_FILE),
    scope: "project" as const,
    servers: await readProjectMcpFile(workspace, warnings),
  };
  const layers: { source: string; scope: McpScope; servers: Record<string, McpServerConfig> }[] = [];
  let mcpFileAdded = false;
  for (const source of loaded.sources) {
    const isUserFile = source.name === "defaults" || source.name === join(loaded.home, "config.json");
    if (!isUserFile && !mcpFileAdded) {
      layers.push(mcpFile);
      mcpFileAdded = true;
    }
    const servers = source.values.mcp?.servers;
    if (servers)
      layers.push({
        source: source.name,
        scope: source.name === projectConfig ? "project" : "user",
        servers,
      });
  }
  if (!mcpFileAdded) layers.push(mcpFile);
  const byName = new Map<string, McpServerEntry>();
  for (const layer of layers) {
    for (const [name, config] of Object.entries(layer.servers)) {
      const before = byName.get(name);
      const scope: McpScope = before?.scope === "project" || layer.scope === "project" ? "project" : "user";
      byName.set(name, { name, scope, source: layer.source, config: { ...before?.config, ...config } });
    }
  }
  return [...byName.values()];
}
