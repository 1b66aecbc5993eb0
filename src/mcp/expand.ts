// `${VAR}` and `${VAR:-default}` in a server definition, expanded from the environment when
// the server starts (Claude Code's syntax), so a secret lives in the environment, never in a
// config file. A variable that is unset and has no default is an error naming it.
import type { McpServerConfig } from "../config/index.js";
import { ResonError } from "../core/errors.js";

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `text` with every reference replaced; collects the names of unset variables in `missing`. */
export function expandText(text: string, env: NodeJS.ProcessEnv, missing: Set<string>): string {
  return text.replace(REFERENCE, (_whole, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== "") return value;
    if (fallback !== undefined) return fallback;
    missing.add(name);
    return "";
  });
}

function expandRecord(
  record: Record<string, string> | undefined,
  env: NodeJS.ProcessEnv,
  missing: Set<string>,
): Record<string, string> | undefined {
  if (!record) return undefined;
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, expandText(v, env, missing)]));
}

/** The definition as the server is started with it; throws `config_invalid` naming unset variables. */
export function expandServer(name: string, server: McpServerConfig, env: NodeJS.ProcessEnv): McpServerConfig {
  const missing = new Set<string>();
  const out: McpServerConfig = { ...server };
  if (server.command !== undefined) out.command = expandText(server.command, env, missing);
  if (server.args) out.args = server.args.map((arg) => expandText(arg, env, missing));
  if (server.cwd !== undefined) out.cwd = expandText(server.cwd, env, missing);
  if (server.url !== undefined) out.url = expandText(server.url, env, missing);
  const serverEnv = expandRecord(server.env, env, missing);
  if (serverEnv) out.env = serverEnv;
  const headers = expandRecord(server.headers, env, missing);
  if (headers) out.headers = headers;
  if (missing.size > 0) {
    const names = [...missing].join(", ");
    throw new ResonError(
      "config_invalid",
      `MCP server "${name}" uses ${names}, which ${missing.size === 1 ? "is" : "are"} not set.`,
      {
        hint: `Set ${names} in the environment, or give a default in the definition: \${${[...missing][0]}:-value}.`,
        details: { server: name, missing: [...missing] },
      },
    );
  }
  return out;
}
