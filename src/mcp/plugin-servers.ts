// The MCP servers a plugin brings in its mcp.json (the Agent Plugins format: `mcpServers` or
// `servers`, each `stdio` or `streamable-http`), named `<plugin>.<server>` so they cannot
// shadow the user's own, with ${PLUGIN_ROOT} and ${PLUGIN_DATA} filled in. They start with the
// standing of their plugin: loaded means the user installed it, or trusted it in a project.
import { readFile } from "node:fs/promises";
import type { McpServerConfig } from "../config/index.js";
import { fromClaudeEntry, type McpServerEntry } from "./definitions.js";

export interface PluginMcpSource {
  plugin: string;
  /** The plugin's mcp.json (absolute). */
  file: string;
  root: string;
  dataDir: string;
}

// Literal placeholders (not template strings): what the format's authors write in mcp.json.
const ROOT_PLACEHOLDER = ["$", "{PLUGIN_ROOT}"].join("");
const DATA_PLACEHOLDER = ["$", "{PLUGIN_DATA}"].join("");
const SERVER_NAME = /^[A-Za-z0-9_.-]+$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Only the format's two placeholders: every other `${VAR}` is left for the usual expansion at start. */
function fillPlaceholders(value: unknown, source: PluginMcpSource): unknown {
  if (typeof value === "string")
    return value.replaceAll(ROOT_PLACEHOLDER, source.root).replaceAll(DATA_PLACEHOLDER, source.dataDir);
  if (Array.isArray(value)) return value.map((item) => fillPlaceholders(item, source));
  if (isRecord(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillPlaceholders(v, source)]));
  return value;
}

/** The servers of each plugin's mcp.json; an unreadable file or a bad entry is a warning, never fatal. */
export async function pluginServerEntries(
  sources: readonly PluginMcpSource[],
  warnings: string[],
): Promise<McpServerEntry[]> {
  const entries: McpServerEntry[] = [];
  for (const source of sources) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(source.file, "utf8"));
    } catch (error) {
      warnings.push(
        `plugin ${source.plugin}: ${source.file} could not be read (${(error as Error).message}); its MCP servers are left out.`,
      );
      continue;
    }
    const servers = isRecord(parsed) ? (parsed.mcpServers ?? parsed.servers) : undefined;
    if (!isRecord(servers)) {
      warnings.push(
        `plugin ${source.plugin}: ${source.file} has no "mcpServers" object; no servers read from it.`,
      );
      continue;
    }
    for (const [server, raw] of Object.entries(servers)) {
      if (!SERVER_NAME.test(server)) {
        warnings.push(
          `plugin ${source.plugin}: server name "${server}" may only use letters, digits, "_", "." and "-"; skipped.`,
        );
        continue;
      }
      const config: McpServerConfig | undefined = fromClaudeEntry(
        source.file,
        server,
        fillPlaceholders(raw, source),
        warnings,
      );
      if (config)
        entries.push({ name: `${source.plugin}.${server}`, scope: "user", source: source.file, config });
    }
  }
  return entries;
}
