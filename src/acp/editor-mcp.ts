// The MCP servers an editor passes with session/new, /load or /resume, as reson's own server
// definitions. They come from the user's editor settings, so they are the user's servers: they
// start like those of $RESON_HOME/config.json (no project question), and their tools are gated
// like any MCP tool (asked unless a rule allows them).
import type { McpServer } from "@agentclientprotocol/sdk";
import type { McpServerEntry } from "../mcp/index.js";

export const EDITOR_SOURCE = "the editor's session";

/** A server name as reson's config allows it: letters, digits, `_`, `.` and `-`. */
function serverName(name: string): string {
  const clean = name.trim().replace(/[^A-Za-z0-9_.-]+/g, "_");
  return clean || "editor";
}

function pairs(list: readonly { name: string; value: string }[]): Record<string, string> {
  return Object.fromEntries(list.map((pair) => [pair.name, pair.value]));
}

export function editorServerEntries(servers: readonly McpServer[]): McpServerEntry[] {
  return servers.map((server): McpServerEntry => {
    const base = { name: serverName(server.name), scope: "user" as const, source: EDITOR_SOURCE };
    if ("url" in server) {
      return {
        ...base,
        config: {
          type: server.type === "sse" ? "sse" : "http",
          url: server.url,
          ...(server.headers.length > 0 ? { headers: pairs(server.headers) } : {}),
        },
      };
    }
    return {
      ...base,
      config: {
        command: server.command,
        args: [...server.args],
        ...(server.env.length > 0 ? { env: pairs(server.env) } : {}),
      },
    };
  });
}
