// The MCP servers of a run, in the terminal or a service: which may start (a project's only
// once approved), their stderr appended to $RESON_HOME/logs/mcp/<server>.log, their tools
// handed to createAgent, and all of them closed when the run (or the agent) ends.
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, resonHome } from "../config/index.js";
import { namedList } from "../core/named-list.js";
import { printable } from "../core/printable-text.js";
import {
  type Authorize,
  type McpServerEntry,
  McpServers,
  mcpServerEntries,
  type PluginMcpSource,
  type ProjectServerReview,
  pluginServerEntries,
  selectServers,
  type ToolOffer,
  toolOffer,
  waitForCallback,
} from "../mcp/index.js";
import { SecretVault } from "../secrets/index.js";
import type { ToolDefinition } from "../tools/index.js";

export interface McpSetup {
  /** The MCP tools and, with them, tool_search. */
  tools: ToolDefinition[];
  servers: McpServers | undefined;
  /** Whether MCP tools are offered whole or through tool_search; undefined without MCP tools. */
  offer: ToolOffer | undefined;
  close(): Promise<void>;
}

const NO_MCP: McpSetup = { tools: [], servers: undefined, offer: undefined, close: async () => {} };

/** The agent's offerTool with the MCP tools deferred behind tool_search when they are. */
export function withMcpOffer(
  setup: McpSetup,
  base: ((name: string) => boolean) | undefined,
): { offerTool?: (name: string) => boolean } {
  const offer = setup.offer;
  if (!offer) return base ? { offerTool: base } : {};
  return { offerTool: (name) => offer.offered(name) && (base ? base(name) : true) };
}

/**
 * Decides, once the agent knows its model's context window, whether MCP schemas go behind
 * tool_search: more than mcp.toolSearchRatio of the context budget.
 */
export function decideMcpOffer(
  setup: McpSetup,
  agent: {
    provider: { model: { contextWindow: number } };
    loaded: { config: { contextBudgetRatio: number } };
  },
): void {
  setup.offer?.decide(
    Math.floor(agent.provider.model.contextWindow * agent.loaded.config.contextBudgetRatio),
  );
}

export interface McpSetupOptions {
  /** The workspace's real path. */
  workspace: string;
  /** --allow-mcp names. */
  allowMcp: readonly string[];
  signal: AbortSignal;
  /** Asks the user about a project server; absent in a headless run. */
  ask?: (entry: McpServerEntry, review: ProjectServerReview) => Promise<boolean>;
  warn: (message: string) => void;
  env?: NodeJS.ProcessEnv;
  /** How an HTTP server's OAuth login reaches the user; absent (headless): a server that needs one is skipped. */
  authorize?: Authorize;
  /** Loaded plugins' mcp.json files: their servers join as `<plugin>.<server>`. */
  pluginServers?: readonly PluginMcpSource[];
  /**
   * Servers the host brings for this run (an editor's, in its session/new): the user's own, so
   * they start without the project question, and each replaces a configured one of its name.
   */
  hostServers?: readonly McpServerEntry[];
}

/**
 * The terminal's OAuth login: the authorization URL printed for the user to open, and the
 * browser's redirect awaited on the loopback port (at most 5 minutes).
 */
export function terminalAuthorize(write: (text: string) => void): Authorize {
  return async (url, redirectUrl, signal) => {
    write(
      `To log in to the MCP server, open this URL in your browser:\n  ${url.href}\n(waiting for the login…)\n`,
    );
    const params = await waitForCallback(
      redirectUrl,
      AbortSignal.any([signal, AbortSignal.timeout(300_000)]),
    );
    write("Logged in.\n");
    return params;
  };
}

export function mcpLogFile(home: string, server: string): string {
  return join(home, "logs", "mcp", `${server}.log`);
}

/** Where a server's stderr goes: its log file, which never stops the run when it cannot be written. */
function stderrLog(home: string): (server: string, text: string) => void {
  let ready = false;
  return (server, text) => {
    try {
      if (!ready) {
        mkdirSync(join(home, "logs", "mcp"), { recursive: true, mode: 0o700 });
        ready = true;
      }
      appendFileSync(mcpLogFile(home, server), text, { mode: 0o600 });
    } catch {
      // a server's log is a convenience; its tools still work
    }
  };
}

/** The user's own list of project servers that may start without asking (never a project's). */
export function userAllowedProjectServers(loaded: Awaited<ReturnType<typeof loadConfig>>): string[] {
  const userFile = join(loaded.home, "config.json");
  return loaded.sources.find((s) => s.name === userFile)?.values.mcp?.allowProjectServers ?? [];
}

export async function startMcp(options: McpSetupOptions): Promise<McpSetup> {
  const env = options.env ?? process.env;
  const loaded = await loadConfig({ workspace: options.workspace, env });
  const warnings: string[] = [];
  const hostNames = new Set(options.hostServers?.map((entry) => entry.name));
  const entries = [
    ...(await mcpServerEntries(loaded, options.workspace, warnings)).filter((e) => !hostNames.has(e.name)),
    ...(options.hostServers ?? []),
  ];
  if (options.pluginServers && options.pluginServers.length > 0) {
    // The user's own definition of a name wins over a plugin's.
    const defined = new Set(entries.map((entry) => entry.name));
    for (const entry of await pluginServerEntries(options.pluginServers, warnings))
      if (!defined.has(entry.name)) entries.push(entry);
  }
  for (const warning of warnings) options.warn(warning);
  if (entries.length === 0) return NO_MCP;
  const home = resonHome(env);
  const selection = await selectServers(entries, {
    home,
    workspace: options.workspace,
    allow: options.allowMcp,
    userAllowed: userAllowedProjectServers(loaded),
    env,
    ...(options.ask ? { ask: options.ask } : {}),
  });
  for (const { entry, reason } of selection.refused)
    options.warn(`MCP server "${entry.name}" not started: ${reason}.`);
  if (selection.start.length === 0) return NO_MCP;
  const servers = await McpServers.start(selection.start, {
    env,
    cwd: options.workspace,
    signal: options.signal,
    onStderr: stderrLog(home),
    onWarning: options.warn,
    secrets: await SecretVault.load(join(loaded.home, "secrets.json"), { env }),
    oauth: { home, ...(options.authorize ? { authorize: options.authorize } : {}) },
  });
  const tools = servers.tools();
  const readResource = servers.resourceTool();
  const extra = readResource ? [readResource] : [];
  const close = () => servers.close();
  if (tools.length === 0) return { ...NO_MCP, tools: extra, servers, close };
  const offer = toolOffer(tools, loaded.config.mcp.toolSearchRatio);
  return { tools: [...tools, ...extra, offer.searchTool as ToolDefinition], servers, offer, close };
}

/** How many of the files a server runs the question names. */
const FILES_SHOWN = 8;

/** The terminal's question about a project server: what it would run (and what changed), and yes or no. */
export async function approveProjectServer(
  entry: McpServerEntry,
  review: ProjectServerReview,
  io: { write: (text: string) => void; read: (prompt: string) => Promise<string | null> },
): Promise<boolean> {
  const what = entry.config.url
    ? `connects to ${entry.config.url}`
    : `runs ${[entry.config.command, ...(entry.config.args ?? [])].join(" ")}`;
  const lines = [`The project defines the MCP server "${entry.name}" (${entry.source}); it ${what}.`];
  const list = (paths: readonly string[]) => namedList(paths, FILES_SHOWN);
  if (review.changed.length > 0)
    lines.push(
      `You approved it before; since then these files it runs changed (a run's commands may have changed them): ${list(review.changed)}.`,
      "Look at the change (git diff) before you say yes.",
    );
  else if (review.files.length > 0)
    lines.push(
      `It runs these workspace files, outside the sandbox: ${list(review.files)}. If one changes, reson asks again.`,
    );
  if (review.unfollowed) lines.push(`Not all of it could be checked: ${review.unfollowed}.`);
  io.write(`${lines.map(printable).join("\n")}\n`);
  const answer = await io.read(`Start it? [y] yes, and remember this definition and its files  [n] no: `);
  return answer !== null && /^\s*y(es)?\s*$/i.test(answer);
}
