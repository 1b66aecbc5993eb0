#!/usr/bin/env node
// reson's MCP client for the official conformance suite (@modelcontextprotocol/conformance):
// `conformance client --command "node test/mcp/conformance/client.mjs"` appends the scenario
// server's URL. It connects the way a run does (the built dist/, so run `npm run build`
// first), lists the tools and calls each one, then closes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSdkConnection } from "../../../dist/mcp/index.js";

const url = process.argv.at(-1);
const never = new AbortController().signal;

function argumentsFor(schema) {
  const properties = schema?.properties ?? {};
  const out = {};
  for (const [name, property] of Object.entries(properties)) {
    if (property?.type === "number" || property?.type === "integer") out[name] = 2;
    else if (property?.type === "string") out[name] = "x";
    else if (property?.type === "boolean") out[name] = true;
  }
  return out;
}

// The scenario's authorization server approves at once: follow its redirect to our loopback
// URL and hand reson the query, as the browser would.
async function authorize(loginUrl) {
  const response = await fetch(loginUrl, { redirect: "manual" });
  const location = response.headers.get("location");
  if (!location) throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
  return new URL(location).searchParams;
}

const home = mkdtempSync(join(tmpdir(), "reson-conformance-home-"));
const connection = await openSdkConnection("conformance", {
  config: { url },
  cwd: process.cwd(),
  signal: never,
  oauth: { home, authorize },
});
try {
  const tools = await connection.listTools(never);
  for (const tool of tools) {
    const result = await connection.callTool(tool.name, argumentsFor(tool.inputSchema), {
      signal: never,
      timeoutMs: 20_000,
    });
    process.stdout.write(`${tool.name}: ${JSON.stringify(result)}\n`);
  }
} catch (error) {
  process.stderr.write(`${error?.code ?? "error"}: ${error?.message ?? error}\n`);
  process.exitCode = 1;
} finally {
  await connection.close();
  rmSync(home, { recursive: true, force: true });
}
