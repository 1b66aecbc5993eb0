// reson's own view of one MCP server: the few operations the runtime needs, so a transport of
// a later protocol revision (2026-07-28, stateless) can sit behind the same interface without
// touching the tools built on it.
import type { McpServerConfig } from "../config/index.js";
import type { Authorize } from "./oauth.js";

export interface McpToolInfo {
  /** The server's own name for the tool, used on the wire. */
  name: string;
  description: string;
  /** The tool's arguments as JSON Schema (an object schema). */
  inputSchema: Record<string, unknown>;
  /** The server says the tool changes nothing; a hint only, never a permission. */
  readOnlyHint: boolean;
}

export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface McpCallOptions {
  signal: AbortSignal;
  /** Silence allowed before the call fails; each progress notification starts it again. */
  timeoutMs: number;
  onProgress?: (progress: McpProgress) => void;
}

/** One block of a tool result or a prompt message, as the MCP spec defines them. */
export type McpContent =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name?: string; mimeType?: string; description?: string }
  | { type: "resource"; resource: McpResourceContents };

export interface McpResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  /** Base64. */
  blob?: string;
}

export interface McpCallResult {
  content: McpContent[];
  structuredContent?: unknown;
  isError: boolean;
}

export interface McpPromptInfo {
  name: string;
  description?: string;
  arguments: { name: string; description?: string; required: boolean }[];
}

export interface McpResourceInfo {
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
}

export type McpStatus = "connected" | "restarting" | "failed" | "closed";

export interface McpConnection {
  readonly name: string;
  readonly status: McpStatus;
  /** How the server is reached: "stdio", "http" (Streamable HTTP) or "sse" (the old HTTP+SSE). */
  readonly transport: "stdio" | "http" | "sse";
  listTools(signal: AbortSignal): Promise<McpToolInfo[]>;
  callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpCallResult>;
  listPrompts(signal: AbortSignal): Promise<McpPromptInfo[]>;
  getPrompt(name: string, args: Record<string, string>, signal: AbortSignal): Promise<McpContent[]>;
  listResources(signal: AbortSignal): Promise<McpResourceInfo[]>;
  readResource(uri: string, signal: AbortSignal): Promise<McpResourceContents[]>;
  close(): Promise<void>;
}

export interface McpConnectOptions {
  /** The definition with `${VAR}` already expanded. */
  config: McpServerConfig;
  /** Where a stdio server runs when its definition names no cwd (the workspace). */
  cwd: string;
  signal: AbortSignal;
  /** Each chunk a stdio server writes to stderr. */
  onStderr?: (text: string) => void;
  /**
   * OAuth for HTTP servers that ask for it: where logins are kept ($RESON_HOME), and how to
   * send the user to the login page (absent: a server that needs a login fails to start,
   * with a hint). Without this option, no OAuth at all.
   */
  oauth?: { home: string; authorize?: Authorize };
}

export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** Wait before the one restart of a server that died. */
export const RESTART_BACKOFF_MS = 1_000;
