// `read_resource`: the model reads a resource of an MCP server by URI (what a tool linked to,
// or one the description lists). Text comes back as it is; binary contents by reference.
import { Type } from "typebox";
import { ResonError } from "../core/errors.js";
import type { ToolDefinition } from "../tools/index.js";
import type { McpConnection, McpResourceInfo } from "./connection.js";
import { resourceText } from "./content.js";

export const READ_RESOURCE = "read_resource";
const LISTED_PER_SERVER = 20;

const Parameters = Type.Object(
  {
    server: Type.String({ description: "the MCP server's name" }),
    uri: Type.String({ description: "the resource's URI" }),
  },
  { additionalProperties: false },
);

export function resourceTool(
  servers: readonly {
    name: string;
    connection: McpConnection;
    resources: McpResourceInfo[];
    config: { trusted?: boolean };
  }[],
): ToolDefinition<typeof Parameters> {
  const listing = servers
    .map((s) => {
      const shown = s.resources
        .slice(0, LISTED_PER_SERVER)
        .map((r) => `  - ${r.uri}${r.name ? ` (${r.name})` : ""}`);
      const more =
        s.resources.length > LISTED_PER_SERVER
          ? [`  - … ${s.resources.length - LISTED_PER_SERVER} more`]
          : [];
      return [`${s.name}:`, ...shown, ...more].join("\n");
    })
    .join("\n");
  return {
    name: READ_RESOURCE,
    description: `Reads a resource of an MCP server by its URI (also URIs that tool results link to).\nServers and some of their resources:\n${listing}`,
    parameters: Parameters,
    readOnly: true,
    async execute(args, ctx) {
      const server = servers.find((s) => s.name === args.server);
      if (!server)
        throw new ResonError(
          "tool_invalid_arguments",
          `There is no MCP server "${args.server}" with resources.`,
          {
            hint: `Use one of: ${servers.map((s) => s.name).join(", ")}.`,
          },
        );
      const contents = await server.connection.readResource(args.uri, ctx.signal);
      const content = contents.map(resourceText).join("\n\n");
      return {
        content,
        // A resource of a server the user has not vouched for is untrusted content.
        ...(server.config.trusted === true ? {} : { untrustedOrigin: `MCP server ${server.name}` }),
        longTermMemory: `read_resource ${args.server} ${args.uri}: ${content.length} characters`,
      };
    },
  };
}
