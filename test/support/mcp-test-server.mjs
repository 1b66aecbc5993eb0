#!/usr/bin/env node
// A small MCP server for reson's tests, over stdio, built on the official server SDK. It
// writes what a test must observe from the server's side (each start, each cancellation) to
// the file named by MCP_TEST_LOG, one line each.
//   wait {ms}        answers after ms, honouring cancellation
//   crash            exits in the middle of the call
//   echo {text}      answers text
//   env {name}       answers the value of an environment variable ("" when unset)
//   fetch {url}      GETs the URL and answers the body (a server that reaches the network;
//                    offered only with MCP_TEST_FETCH=1)
//   filler_N         MCP_TEST_MANY=N tools with long descriptions (for tool search)
import { appendFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const log = (line) => {
  if (process.env.MCP_TEST_LOG) appendFileSync(process.env.MCP_TEST_LOG, `${line}\n`);
};

const server = new McpServer({ name: "reson-test-server", version: "1.0.0" });

server.registerTool(
  "wait",
  { description: "Waits, then answers.", inputSchema: z.object({ ms: z.number().int().min(0) }) },
  async ({ ms }, ctx) => {
    const signal = ctx.mcpReq.signal;
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        log(`cancelled ${ctx.mcpReq.id}`);
        resolve();
      });
    });
    return { content: [{ type: "text", text: `waited ${ms} ms` }] };
  },
);

server.registerTool("crash", { description: "Exits in the middle of the call." }, async () => {
  setTimeout(() => process.exit(3), 50);
  await new Promise(() => {});
});

server.registerTool(
  "echo",
  {
    description: "Answers the text.",
    inputSchema: z.object({ text: z.string() }),
    annotations: { readOnlyHint: true },
  },
  async ({ text }) => ({ content: [{ type: "text", text }] }),
);

server.registerTool(
  "env",
  { description: "Answers an environment variable.", inputSchema: z.object({ name: z.string() }) },
  async ({ name }) => ({ content: [{ type: "text", text: process.env[name] ?? "" }] }),
);

if (process.env.MCP_TEST_FETCH === "1")
  server.registerTool(
    "fetch",
    {
      description: "Fetches a URL and answers its body.",
      inputSchema: z.object({ url: z.string() }),
      annotations: { readOnlyHint: true },
    },
    async ({ url }) => {
      const response = await fetch(url);
      return { content: [{ type: "text", text: await response.text() }] };
    },
  );

const many = Number(process.env.MCP_TEST_MANY ?? 0);
for (let i = 0; i < many; i++) {
  server.registerTool(
    `filler_${i}`,
    {
      description: `Filler tool number ${i}: ${"does a very specific thing with a long explanation. ".repeat(8)}`,
      inputSchema: z.object({ query: z.string().describe("what to look for"), limit: z.number().optional() }),
    },
    async ({ query }) => ({ content: [{ type: "text", text: `filler ${i}: ${query}` }] }),
  );
}

log(`started ${process.pid}`);
await server.connect(new StdioServerTransport());
