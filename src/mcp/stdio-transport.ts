// The stdio transport for a local MCP server, on reson's process registry rather than the
// SDK's own spawn: the server (and whatever it starts, e.g. `npx` and its node) runs as its
// own process group that reson ends when it exits, however it exits short of SIGKILL; after
// a SIGKILL the server sees its stdin close. The environment is the SDK's small safe set
// (PATH, HOME, …) plus what the definition gives: reson's API keys never reach a server.
import type { ChildProcess } from "node:child_process";
import {
  type JSONRPCMessage,
  ReadBuffer,
  serializeMessage,
  type Transport,
} from "@modelcontextprotocol/client";
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import { ResonError } from "../core/errors.js";
import { spawnChild } from "../workspace/index.js";

export interface StdioServerOptions {
  /** The server's configured name, for messages. */
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Each chunk the server writes to stderr (its log). */
  onStderr: (text: string) => void;
}

const CLOSE_GRACE_MS = 1_000;

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();
  private exited: Promise<void> = Promise.resolve();

  constructor(private readonly options: StdioServerOptions) {}

  /** The server's process id while it runs (tests kill it to see a restart). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    const { command, args, env, cwd } = this.options;
    return new Promise((resolve, reject) => {
      const child = spawnChild(command, args, {
        cwd,
        env: { ...getDefaultEnvironment(), ...env },
        stdio: ["pipe", "pipe", "pipe"],
        group: true,
      });
      this.child = child;
      this.exited = new Promise((done) => child.once("close", () => done()));
      child.once("error", (error) => {
        const failure = new ResonError(
          "mcp_unavailable",
          `Cannot start MCP server "${this.options.name}" (${command}): ${error.message}`,
          {
            hint: "Check the command and its arguments in the server definition (is it installed and on PATH?).",
            details: { server: this.options.name },
            cause: error,
          },
        );
        reject(failure);
        this.onerror?.(failure);
      });
      child.once("spawn", () => resolve());
      child.once("close", () => {
        this.child = undefined;
        this.onclose?.();
      });
      child.stdout?.on("data", (chunk: Buffer) => {
        this.buffer.append(chunk);
        this.drain();
      });
      child.stderr?.on("data", (chunk: Buffer) => this.options.onStderr(chunk.toString("utf8")));
      // A server that exits closes its pipes; a write after that must not crash reson.
      child.stdin?.on("error", (error) => this.onerror?.(error));
    });
  }

  private drain(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        // A line that is not JSON-RPC (a server printing to stdout): reported, skipped.
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed)
      return Promise.reject(
        new ResonError("mcp_unavailable", `MCP server "${this.options.name}" is not running.`, {
          details: { server: this.options.name },
        }),
      );
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", () => resolve());
    });
  }

  /** The spec's shutdown: close stdin, then SIGTERM, then SIGKILL, each after a grace period. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined) return;
    const pid = child.pid;
    child.stdin?.end();
    const gone = (ms: number) =>
      Promise.race([
        this.exited.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref()),
      ]);
    if (await gone(CLOSE_GRACE_MS)) return;
    signalGroup(pid, "SIGTERM");
    if (await gone(CLOSE_GRACE_MS)) return;
    signalGroup(pid, "SIGKILL");
    await gone(CLOSE_GRACE_MS);
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}
