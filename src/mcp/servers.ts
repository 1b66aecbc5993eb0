// The MCP servers of one agent: started together when the agent is made (each within its
// startup timeout), their tools adapted and named, and all closed with the agent. A server
// that cannot start is skipped with a warning, unless it is `required`: then nothing starts.
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { type McpServerConfig, resonHome } from "../config/index.js";
import { ResonError, toResonError } from "../core/errors.js";
import type { SecretVault } from "../secrets/index.js";
import type { ToolDefinition } from "../tools/index.js";
import type { McpConnection, McpConnectOptions, McpResourceInfo, McpToolInfo } from "./connection.js";
import type { McpServerEntry } from "./definitions.js";
import { expandServer } from "./expand.js";
import { bunxLocalCopy, type LaunchScope, launchOutsideWorkspace } from "./launch-outside-workspace.js";
import { mcpToolDefinition } from "./mcp-tool.js";
import { openSdkConnection } from "./open-connection.js";
import { type McpPromptCommand, promptArguments, promptCommands, promptText } from "./prompts.js";
import { resourceTool } from "./resource-tool.js";
import { StderrTail, serverRedactor, serverSecrets } from "./stderr-tail.js";
import { disambiguatedToolName, mcpToolName } from "./tool-name.js";

export interface StartServersOptions {
  /** For `${VAR}` expansion. */
  env: NodeJS.ProcessEnv;
  /** Where stdio servers run unless their definition says otherwise. */
  cwd: string;
  signal: AbortSignal;
  /** What a stdio server writes to stderr, in whole lines, secrets masked. */
  onStderr?: (server: string, text: string) => void;
  onWarning?: (message: string) => void;
  /** Fills `<secret>name</secret>` in `env` and `headers` (scoped to the URL, or the workspace). */
  secrets?: SecretVault;
  /** OAuth logins for HTTP servers that ask for one (see McpConnectOptions). */
  oauth?: McpConnectOptions["oauth"];
}

export interface StartedServer {
  name: string;
  config: McpServerConfig;
  connection: McpConnection;
  /** Tools offered from it (after enabledTools/disabledTools). */
  tools: McpToolInfo[];
  /** Its resources as listed at start (empty when it has none). */
  resources: McpResourceInfo[];
  /** What it was given that may be secret (its env and headers' values), by name. */
  secrets: { name: string; value: string }[];
}

/** Names of env variables and headers that hold credentials. */
const CREDENTIAL_NAME = /token|key|secret|passw|pwd|auth|credential|cookie|session/i;

function toolAllowed(config: McpServerConfig, tool: string): boolean {
  if (config.enabledTools && !config.enabledTools.includes(tool)) return false;
  return !config.disabledTools?.includes(tool);
}

export class McpServers {
  private constructor(
    readonly servers: StartedServer[],
    readonly failures: { name: string; error: ResonError }[],
  ) {}

  static async start(entries: McpServerEntry[], options: StartServersOptions): Promise<McpServers> {
    const outcomes = await Promise.allSettled(entries.map((entry) => startOne(entry, options)));
    const servers: StartedServer[] = [];
    const failures: { name: string; error: ResonError }[] = [];
    outcomes.forEach((outcome, i) => {
      const entry = entries[i] as McpServerEntry;
      if (outcome.status === "fulfilled") servers.push(outcome.value);
      else failures.push({ name: entry.name, error: toResonError(outcome.reason, "mcp_unavailable") });
    });
    const hub = new McpServers(servers, failures);
    const required = failures.find((f) => entries.find((e) => e.name === f.name)?.config.required);
    if (required) {
      await hub.close();
      throw new ResonError(
        "mcp_unavailable",
        `The required MCP server "${required.name}" did not start: ${required.error.message}`,
        {
          hint:
            required.error.hint ??
            `\`reson mcp test ${required.name}\` starts it alone and shows what goes wrong.`,
          details: { server: required.name },
          cause: required.error,
        },
      );
    }
    for (const { name, error } of failures)
      options.onWarning?.(
        `MCP server "${name}" did not start, its tools are missing: ${error.message}${error.hint ? `\n  hint: ${error.hint}` : ""}`,
      );
    return hub;
  }

  /**
   * The credentials the servers were given, by a name that says so (a token, a key, a password,
   * an Authorization header): a run using them masks these in all it keeps and shows. Not every
   * value of `env` (a path, a log level): masking those would blank ordinary output.
   */
  secrets(): { name: string; value: string }[] {
    return this.servers.flatMap((server) => server.secrets).filter(({ name }) => CREDENTIAL_NAME.test(name));
  }

  /** Every offered tool of every server, as reson tools. */
  tools(): ToolDefinition[] {
    const out: ToolDefinition[] = [];
    const taken = new Set<string>();
    for (const server of this.servers) {
      for (const info of server.tools) {
        let name = mcpToolName(server.name, info.name);
        if (taken.has(name)) name = disambiguatedToolName(server.name, info.name);
        taken.add(name);
        out.push(
          mcpToolDefinition({
            name,
            server: server.name,
            connection: server.connection,
            info,
            ...(server.config.callTimeoutMs ? { callTimeoutMs: server.config.callTimeoutMs } : {}),
            secretScopeUrl: server.config.url ?? `mcp://${server.name}`,
            ...(server.config.trusted === true ? { trusted: true } : {}),
          }),
        );
      }
    }
    return out;
  }

  /** read_resource, when a server has resources. */
  resourceTool(): ToolDefinition | undefined {
    const withResources = this.servers.filter((s) => s.resources.length > 0);
    return withResources.length > 0 ? (resourceTool(withResources) as unknown as ToolDefinition) : undefined;
  }

  /** The servers' prompts as slash commands (mcp__server__prompt). */
  prompts(signal: AbortSignal): Promise<McpPromptCommand[]> {
    return promptCommands(this.servers, signal);
  }

  /** The text of prompt command `name` (without the slash) with the user's arguments. */
  async promptTask(name: string, argumentText: string, signal: AbortSignal): Promise<string> {
    const command = (await this.prompts(signal)).find((c) => c.name === name);
    if (!command)
      throw new ResonError("not_found", `No MCP prompt /${name}.`, {
        hint: "/mcp lists the prompts of the MCP servers.",
      });
    const server = this.get(command.server) as StartedServer;
    const messages = await server.connection.getPrompt(
      command.prompt.name,
      promptArguments(command.prompt, argumentText),
      signal,
    );
    return promptText(messages);
  }

  get(name: string): StartedServer | undefined {
    return this.servers.find((s) => s.name === name);
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.connection.close()));
  }
}

/** `<secret>` placeholders in env and headers filled from the user's secrets, in scope only. */
function withSecrets(
  name: string,
  config: McpServerConfig,
  vault: SecretVault,
  cwd: string,
): McpServerConfig {
  const scope = config.url ? { url: config.url } : { workspaceRoot: cwd };
  const out = { ...config };
  for (const key of ["env", "headers"] as const) {
    const record = config[key];
    if (!record || !Object.values(record).some((v) => v.includes("<secret>"))) continue;
    const filled = vault.substituteArgs(record, scope);
    const unusable = [...filled.missing, ...filled.outOfScope];
    if (unusable.length > 0)
      throw new ResonError(
        "secret_unavailable",
        `MCP server "${name}" uses secrets it cannot have: ${unusable.join(", ")}.`,
        {
          hint: config.url
            ? `Add them to $RESON_HOME/secrets.json under the server's site, as in { "${new URL(config.url).origin}": { "${unusable[0]}": "…" } }.`
            : `Add them to $RESON_HOME/secrets.json under this workspace, as in { "workspace:${cwd}": { "${unusable[0]}": "…" } }.`,
          details: { server: name, secrets: unusable },
        },
      );
    out[key] = filled.args as Record<string, string>;
  }
  return out;
}

/** A stdio server's launch that runs nothing from the workspace's packages (launch-outside-workspace.ts). */
function withOutsideLaunch(
  name: string,
  config: McpServerConfig,
  scope: LaunchScope,
  options: StartServersOptions,
): McpServerConfig {
  const emptyFolder = join(resonHome(options.env), "mcp", "no-packages");
  const args = config.args ?? [];
  const asDefined = { command: config.command!, args, env: config.env ?? {} };
  const copy =
    scope === "user"
      ? bunxLocalCopy(asDefined, resolve(options.cwd, config.cwd ?? "."), options.cwd)
      : undefined;
  if (copy)
    throw new ResonError(
      "mcp_unavailable",
      `MCP server "${name}" was not started: bunx would run ${copy} from the workspace instead of the package ` +
        "(bun has no option against it), and a run's commands can write there.",
      {
        hint: `Start it with npx instead (reson keeps npx to npm's cache), or remove ${copy} if nothing needs it.`,
        details: { server: name, localCopy: copy },
      },
    );
  const launch = launchOutsideWorkspace(asDefined, emptyFolder, scope);
  // Made only for a launcher that is given it (npx, npm exec and uv run need it to exist).
  if (launch.args !== args) mkdirSync(emptyFolder, { recursive: true, mode: 0o700 });
  return { ...config, args: [...launch.args], env: { ...launch.env } };
}

async function startOne(entry: McpServerEntry, options: StartServersOptions): Promise<StartedServer> {
  const expanded = expandServer(entry.name, entry.config, options.env);
  const vault = options.secrets;
  const config = vault ? withSecrets(entry.name, expanded, vault, options.cwd) : expanded;
  // Its stderr goes to its log masked, and a server that fails to start says why in its own words.
  const secrets = serverSecrets(entry, config, options.env);
  const tail = new StderrTail(
    serverRedactor(secrets, vault ? (text) => vault.redactor.redact(text) : undefined),
  );
  const explained = (error: unknown) => tail.explain(toResonError(error, "mcp_unavailable"), entry);
  const connection = await openSdkConnection(entry.name, {
    config: config.command ? withOutsideLaunch(entry.name, config, entry.scope, options) : config,
    cwd: options.cwd,
    signal: options.signal,
    onStderr: (text) => {
      const lines = tail.push(text);
      if (lines) options.onStderr?.(entry.name, lines);
    },
    ...(options.oauth ? { oauth: options.oauth } : {}),
  }).catch((error: unknown) => {
    throw explained(error);
  });
  try {
    const tools = (await connection.listTools(options.signal)).filter((t) => toolAllowed(config, t.name));
    const resources = await connection.listResources(options.signal).catch(() => []);
    return { name: entry.name, config, connection, tools, resources, secrets };
  } catch (error) {
    await connection.close();
    throw explained(error);
  }
}
