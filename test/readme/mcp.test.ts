// README "MCP": each block run as written.
import { describe } from "vitest";
import { scenario } from "./scenario.js";

describe('README "MCP"', () => {
  scenario.todo('{ "mcpServers": {');
  scenario.todo("reson mcp list [--json]");
});
