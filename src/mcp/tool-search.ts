// Keeping large MCP tool sets out of the context: when their schemas would take more than a
// share of the context budget (mcp.toolSearchRatio, default 10%), the model is offered only
// `tool_search`, whose description lists every MCP tool by name and one line, and which
// answers with the full schemas of the tools that match. The model then calls those tools by
// name: they stay registered (validated, governed by permission rules) but are not offered.
// The decision is taken once per session, so the offered set, and the provider's prompt
// cache, stay the same from call to call.
import { Type } from "typebox";
import type { ToolDefinition } from "../tools/index.js";
import { toolsSchemaTokens } from "./schema-size.js";

export const TOOL_SEARCH = "tool_search";
const DEFAULT_RESULTS = 5;
const LINE_CHARS = 100;

export interface ToolOfferDecision {
  deferred: boolean;
  schemaTokens: number;
  budgetTokens: number;
}

export interface ToolOffer {
  /** Register it with the MCP tools; it is offered only while they are deferred. */
  readonly searchTool: ToolDefinition<typeof SearchParameters>;
  /** Decides once, from the run's context budget; later calls return the first decision. */
  decide(budgetTokens: number): ToolOfferDecision;
  /** Whether the model is offered this tool (after decide; before it, every MCP tool is). */
  offered(name: string): boolean;
}

function oneLine(text: string): string {
  const line = (text.split("\n", 1)[0] ?? "").trim();
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line;
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
}

/** Tools ranked for `query`: `select:a,b` names them exactly; else words in names count most. */
export function searchTools(
  tools: readonly ToolDefinition[],
  query: string,
  limit: number,
): ToolDefinition[] {
  const trimmed = query.trim();
  if (trimmed.startsWith("select:")) {
    const names = new Set(
      trimmed
        .slice("select:".length)
        .split(",")
        .map((n) => n.trim()),
    );
    return tools.filter((t) => names.has(t.name));
  }
  const terms = words(trimmed);
  const scored = tools
    .map((tool) => {
      const name = tool.name.toLowerCase();
      const description = tool.description.toLowerCase();
      const score = terms.reduce(
        (sum, term) => sum + (name.includes(term) ? 3 : 0) + (description.includes(term) ? 1 : 0),
        0,
      );
      return { tool, score };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score);
  return scored.slice(0, limit).map((s) => s.tool);
}

const SearchParameters = Type.Object(
  {
    query: Type.String({ description: "words to look for, or select:name1,name2" }),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 20,
        description: `at most this many (default ${DEFAULT_RESULTS})`,
      }),
    ),
  },
  { additionalProperties: false },
);

export function toolOffer(mcpTools: readonly ToolDefinition[], ratio: number): ToolOffer {
  const names = new Set(mcpTools.map((t) => t.name));
  let decision: ToolOfferDecision | undefined;
  const catalogue = mcpTools.map((t) => `- ${t.name}: ${oneLine(t.description)}`).join("\n");
  const searchTool: ToolDefinition<typeof SearchParameters> = {
    name: TOOL_SEARCH,
    description:
      "Loads the full argument schemas of MCP tools, which are not listed with the other tools to save context. " +
      "Search by words, or `select:name1,name2` for exact names; then call the tools by name.\n" +
      `Available MCP tools:\n${catalogue}`,
    parameters: SearchParameters,
    readOnly: true,
    async execute(args) {
      const found = searchTools(mcpTools, args.query, args.limit ?? DEFAULT_RESULTS);
      if (found.length === 0)
        return {
          content: `No MCP tool matches ${JSON.stringify(args.query)}. The available ones are listed in this tool's description.`,
        };
      const content = found
        .map((t) => JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters }))
        .join("\n");
      return {
        content: `${found.length} tool${found.length === 1 ? "" : "s"}; call them by name with these arguments:\n${content}`,
        longTermMemory: `tool_search ${JSON.stringify(args.query)}: ${found.map((t) => t.name).join(", ")}`,
      };
    },
  };
  return {
    searchTool,
    decide(budgetTokens) {
      if (decision) return decision;
      const schemaTokens = toolsSchemaTokens(mcpTools);
      decision = {
        deferred: mcpTools.length > 0 && schemaTokens > ratio * budgetTokens,
        schemaTokens,
        budgetTokens,
      };
      return decision;
    },
    offered(name) {
      if (name === TOOL_SEARCH) return decision?.deferred === true;
      if (!names.has(name)) return true;
      return decision?.deferred !== true;
    },
  };
}
