// Real MCP servers for the tests: the official `server-everything` (stdio or Streamable HTTP
// on 127.0.0.1) and reson's own small test server (test/support/mcp-test-server.mjs).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { McpServerConfig } from "../../src/config/index.js";

const ROOT = resolve(import.meta.dirname, "../..");
export const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const TEST_SERVER = join(ROOT, "test/support/mcp-test-server.mjs");

export function everythingStdio(): McpServerConfig {
  return { command: process.execPath, args: [EVERYTHING, "stdio"] };
}

/** reson's test server; its log file lists starts and cancellations. */
export function testServer(env: Record<string, string> = {}): {
  config: McpServerConfig;
  log(): string[];
  remove(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), "reson-mcp-"));
  const logFile = join(dir, "server.log");
  return {
    config: { command: process.execPath, args: [TEST_SERVER], env: { MCP_TEST_LOG: logFile, ...env } },
    log() {
      try {
        return readFileSync(logFile, "utf8").split("\n").filter(Boolean);
      } catch {
        return [];
      }
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}

/** server-everything over Streamable HTTP (or the old HTTP+SSE); resolves once it listens. */
export async function everythingHttp(
  transport: "streamableHttp" | "sse" = "streamableHttp",
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, transport], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((done, fail) => {
    let seen = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes("listening") || seen.includes("running on port")) done();
    });
    child.once("exit", (code) => fail(new Error(`server-everything exited (${code}): ${seen}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/${transport === "sse" ? "sse" : "mcp"}`,
    pid: child.pid as number,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once("exit", done));
      child.kill("SIGKILL");
      await exited;
    },
  };
}
