// An MCP server's tool as a reson tool: validated against the server's own JSON Schema (less
// its regular expressions, see schema-without-patterns.ts) by the registry like any other, governed by permission rules under its `mcp__server__tool` name,
// its result rendered as text with secrets masked, large outputs shown once and then kept
// as a short line (the registry keeps what it cuts as an artifact). `readOnlyHint` only
// decides where the tool is offered (plan mode, read-only presets); it never skips approval.
import type { TSchema } from "typebox";
import { ResonError } from "../core/errors.js";
import type { ToolDefinition, ToolOutput } from "../tools/index.js";
import { DEFAULT_CALL_TIMEOUT_MS, type McpConnection, type McpToolInfo } from "./connection.js";
import { resultText } from "./content.js";
import { schemaWithoutPatterns } from "./schema-without-patterns.js";

/** Above this many characters an output is shown to the model once, then only its summary line. */
const SHOW_ONCE_CHARS = 2_000;

export interface McpToolOptions {
  /** The reson name (mcp__server__tool). */
  name: string;
  server: string;
  connection: McpConnection;
  info: McpToolInfo;
  callTimeoutMs?: number;
  /** Where `<secret>` placeholders in arguments are scoped: the server's URL, or mcp://<server>. */
  secretScopeUrl: string;
  /** The user marked the server trusted: its results are not untrusted content. */
  trusted?: boolean;
}

function schemaOf(info: McpToolInfo): Record<string, unknown> {
  const { $schema: _draft, ...schema } = info.inputSchema;
  return schema.type === undefined ? { type: "object", ...schema } : schema;
}

/** The arguments the server's schema names, in its order. */
function argumentNames(info: McpToolInfo): string[] {
  const properties = info.inputSchema.properties;
  return typeof properties === "object" && properties !== null ? Object.keys(properties) : [];
}

export function mcpToolDefinition(options: McpToolOptions): ToolDefinition {
  const { name, server, connection, info } = options;
  const description = info.description.trim() || `${info.name} (from the MCP server ${server})`;
  return {
    name,
    description: `${description}\n(MCP server: ${server})`,
    parameters: schemaOf(info) as unknown as TSchema,
    checkedParameters: schemaWithoutPatterns(schemaOf(info)) as unknown as TSchema,
    readOnly: info.readOnlyHint,
    // A server the user has not vouched for: its results are untrusted, its arguments leave.
    external: options.trusted !== true,
    // The user may change any argument before the call runs (the permission prompt's "edit").
    editableParams: argumentNames(info),
    async execute(args, ctx): Promise<ToolOutput> {
      let wireArgs = args as Record<string, unknown>;
      if (ctx.secrets) {
        const substituted = ctx.secrets.forUrl(wireArgs, options.secretScopeUrl);
        const unusable = [...substituted.missing, ...substituted.outOfScope];
        if (unusable.length > 0)
          throw new ResonError(
            "secret_unavailable",
            `No secret usable for ${name}: ${unusable.join(", ")}.`,
            {
              hint: "Use only the secret names listed in the instructions, for the servers they are scoped to.",
              details: { tool: name, secrets: unusable },
            },
          );
        wireArgs = substituted.value;
      }
      const result = await connection.callTool(info.name, wireArgs, {
        signal: ctx.signal,
        timeoutMs: options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      });
      const raw = resultText(result);
      const content = ctx.secrets ? ctx.secrets.redact(raw) : raw;
      const firstLine = content.split("\n", 1)[0]?.slice(0, 120) ?? "";
      const longTermMemory = `${name} returned ${content.length} characters${firstLine ? `: ${firstLine}` : ""}`;
      const origin = options.trusted === true ? {} : { untrustedOrigin: `MCP server ${server}` };
      if (result.isError) {
        return {
          ...origin,
          content,
          error: new ResonError("tool_failed", `The MCP tool ${info.name} on ${server} reported an error.`, {
            details: { tool: name, server },
          }),
        };
      }
      return {
        ...origin,
        content,
        longTermMemory,
        ...(content.length > SHOW_ONCE_CHARS ? { includeOutputOnlyOnce: true } : {}),
      };
    },
  };
}
