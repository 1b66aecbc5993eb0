// What a run gets beyond reson's own tools, set up once by whatever hosts it (`reson run`, the
// terminal, serve and workers): the workspace's plugins and the MCP servers (the user's, the
// plugins', a project's once approved), handed to each agent the host makes, and closed with it.
import type { Agent, AgentOptions } from "../agent/index.js";
import { resonHome } from "../config/index.js";
import { pluginsForRun, type RunPlugins, type RunPluginsOptions, withPlugins } from "../plugins/index.js";
import { decideMcpOffer, type McpSetup, type McpSetupOptions, startMcp, withMcpOffer } from "./mcp-setup.js";

export interface RunExtensions {
  plugins: RunPlugins | undefined;
  mcp: McpSetup;
  /** createAgent's options with the plugins' and servers' tools, hooks, skills and tool offer added. */
  agentOptions(options: AgentOptions): AgentOptions;
  /** Wires an agent made from agentOptions: plugin failures and listeners, MCP schemas behind tool_search or not. */
  attach(agent: Agent): void;
  /** Waits for the plugins' listeners, then stops the MCP servers. */
  close(): Promise<void>;
}

export interface RunExtensionsOptions extends Omit<McpSetupOptions, "pluginServers"> {
  /** Asks about a project's plugin not trusted in its present form (the terminal); absent: not loaded. */
  askTrust?: RunPluginsOptions["askTrust"];
}

export async function startRunExtensions(options: RunExtensionsOptions): Promise<RunExtensions> {
  const { askTrust, ...mcpOptions } = options;
  const plugins = await pluginsForRun({
    home: resonHome(options.env),
    workspace: options.workspace,
    ...(options.env ? { env: options.env } : {}),
    ...(askTrust ? { askTrust } : {}),
  });
  const mcp = await startMcp({ ...mcpOptions, ...(plugins ? { pluginServers: plugins.mcpServers } : {}) });
  return {
    plugins,
    mcp,
    agentOptions: (base) =>
      withPlugins(
        {
          ...base,
          ...(mcp.tools.length > 0 ? { tools: [...(base.tools ?? []), ...mcp.tools] } : {}),
          ...(mcp.servers && mcp.servers.secrets().length > 0
            ? { maskedValues: [...(base.maskedValues ?? []), ...mcp.servers.secrets()] }
            : {}),
          ...withMcpOffer(mcp, base.offerTool),
        },
        plugins,
      ),
    attach(agent) {
      plugins?.attach(agent);
      decideMcpOffer(mcp, agent);
    },
    async close() {
      await plugins?.settle();
      await mcp.close();
    },
  };
}
