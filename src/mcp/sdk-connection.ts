// An McpConnection on the official TypeScript SDK (@modelcontextprotocol/client 2.x; it runs
// on Node 20+ and has no server framework in its dependencies, unlike the 1.x `sdk` package).
// It owns the connection's lifetime: a server that dies is started again once, after a
// backoff; after that, or when the restart fails, every call fails with `mcp_unavailable`
// at once instead of hanging.
import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { isResonError, ResonError } from "../core/errors.js";
import { humanDuration } from "../core/human-duration.js";
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
  type McpCallOptions,
  type McpCallResult,
  type McpConnection,
  type McpConnectOptions,
  type McpContent,
  type McpPromptInfo,
  type McpResourceContents,
  type McpResourceInfo,
  type McpStatus,
  type McpToolInfo,
  RESTART_BACKOFF_MS,
} from "./connection.js";
import { FileOAuthProvider } from "./oauth.js";
import { StdioTransport } from "./stdio-transport.js";

const CLIENT_INFO = { name: "reson", version: "0.1.0" };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The time a request had, and the setting that gives it more. */
interface RequestLimit {
  setting: "startupTimeoutMs" | "callTimeoutMs";
  ms: number;
}

/** A failure of talking to the server, as the code and message a user (and the model) can act on. */
export function mcpFailure(server: string, what: string, error: unknown, limit?: RequestLimit): ResonError {
  if (isResonError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof SdkHttpError) {
    return new ResonError(
      "mcp_unavailable",
      `MCP server "${server}" answered HTTP ${error.status} to ${what}.`,
      {
        hint:
          error.status === 401 || error.status === 403
            ? `Check the credentials in mcp.servers.${server}.headers, or log in with \`reson mcp test ${server}\` in a terminal.`
            : `Check mcp.servers.${server}.url and that the server is running; \`reson mcp test ${server}\` tries it.`,
        details: { server, status: error.status },
        cause: error,
      },
    );
  }
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) {
      const within = limit ? `within ${humanDuration(limit.ms)}` : "in time";
      const hint =
        limit?.setting === "startupTimeoutMs"
          ? `A server that is slow to start (npx downloading a package, say) can be given longer with mcp.servers.${server}.startupTimeoutMs (default ${humanDuration(DEFAULT_STARTUP_TIMEOUT_MS)}); \`reson mcp test ${server}\` shows what it does meanwhile.`
          : `A slow tool can be given longer with mcp.servers.${server}.callTimeoutMs (progress notifications also extend it).`;
      return new ResonError(
        limit?.setting === "startupTimeoutMs" ? "mcp_unavailable" : "tool_failed",
        `MCP server "${server}" did not answer ${what} ${within} (${message}).`,
        { hint, details: { server, ...(limit ? { [limit.setting]: limit.ms } : {}) }, cause: error },
      );
    }
    return new ResonError(
      "mcp_unavailable",
      `MCP server "${server}" is unavailable (during ${what}): ${message}`,
      {
        hint: `\`reson mcp test ${server}\` starts it alone and shows what goes wrong.`,
        details: { server },
        cause: error,
      },
    );
  }
  if (error instanceof ProtocolError) {
    return new ResonError("tool_failed", `MCP server "${server}" refused ${what}: ${message}`, {
      details: { server, protocolCode: error.code },
      cause: error,
    });
  }
  return new ResonError("mcp_unavailable", `MCP server "${server}" failed during ${what}: ${message}`, {
    hint: `\`reson mcp test ${server}\` starts it alone and shows what goes wrong.`,
    details: { server },
    cause: error,
  });
}

function abortError(signal: AbortSignal): ResonError {
  return isResonError(signal.reason) ? signal.reason : new ResonError("aborted", "The call was cancelled.");
}

export class SdkConnection implements McpConnection {
  /** As configured; "http" becomes "sse" once the fallback found the old transport. */
  private kind: "stdio" | "http" | "sse";
  private client: Client | undefined;
  private current: Transport | undefined;
  private state: McpStatus = "connected";
  private restarted = false;
  private closing = false;
  private reconnecting: Promise<void> | undefined;

  private constructor(
    readonly name: string,
    private readonly options: McpConnectOptions,
  ) {
    const { config } = options;
    this.kind = config.url === undefined ? "stdio" : config.type === "sse" ? "sse" : "http";
  }

  get transport(): "stdio" | "http" | "sse" {
    return this.kind;
  }

  /** Starts the server (or reaches it) and completes the handshake, within startupTimeoutMs. */
  static async open(name: string, options: McpConnectOptions): Promise<SdkConnection> {
    const connection = new SdkConnection(name, options);
    await connection.connect(options.signal);
    return connection;
  }

  get status(): McpStatus {
    return this.state;
  }

  /** The stdio server's process id while it runs. */
  get pid(): number | undefined {
    return this.current instanceof StdioTransport ? this.current.pid : undefined;
  }

  private startupTimeoutMs(): number {
    return this.options.config.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
  }

  private startupLimit(): RequestLimit {
    return { setting: "startupTimeoutMs", ms: this.startupTimeoutMs() };
  }

  private makeTransport(kind: "stdio" | "http" | "sse", authProvider?: FileOAuthProvider): Transport {
    const { config } = this.options;
    if (kind === "stdio") {
      if (!config.command)
        throw new ResonError("config_invalid", `MCP server "${this.name}" has neither a command nor a url.`, {
          hint: `Give mcp.servers.${this.name} a "command" (a local server) or a "url" (a remote one).`,
        });
      return new StdioTransport({
        name: this.name,
        command: config.command,
        args: config.args ?? [],
        env: config.env ?? {},
        cwd: config.cwd ?? this.options.cwd,
        onStderr: this.options.onStderr ?? (() => {}),
      });
    }
    const url = new URL(config.url as string);
    const requestInit: RequestInit = config.headers ? { headers: config.headers } : {};
    const auth = authProvider ? { authProvider } : {};
    return kind === "sse"
      ? new SSEClientTransport(url, { requestInit, ...auth })
      : new StreamableHTTPClientTransport(url, { requestInit, ...auth });
  }

  private async connectWith(
    kind: "stdio" | "http" | "sse",
    signal: AbortSignal,
    loggedIn = false,
  ): Promise<void> {
    const oauth = kind !== "stdio" ? this.options.oauth : undefined;
    const authProvider = oauth
      ? await FileOAuthProvider.open(oauth.home, this.options.config.url as string)
      : undefined;
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const transport = this.makeTransport(kind, authProvider);
    if (kind !== "stdio") {
      // The SDK gives up on a dropped stream after its retries without failing the requests
      // waiting on it: the server is gone, so close the connection and fail them now.
      client.onerror = (error) => {
        if (error.message.startsWith("Maximum reconnection attempts")) void client.close();
      };
    }
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      if (!this.closing) this.state = this.restarted ? "failed" : "restarting";
    };
    try {
      await client.connect(transport, { timeout: this.startupTimeoutMs(), signal });
    } catch (error) {
      await client.close().catch(() => {});
      const login = authProvider?.pendingAuthorization;
      if (!(error instanceof UnauthorizedError) || !authProvider || !login || loggedIn) throw error;
      if (!oauth?.authorize)
        throw new ResonError("mcp_unavailable", `MCP server "${this.name}" needs you to log in.`, {
          hint: `Log in once in a terminal with \`reson mcp test ${this.name}\`; reson keeps the login and refreshes it.`,
          details: { server: this.name },
        });
      const params = await oauth.authorize(login, authProvider.redirectUrl, signal);
      authProvider.checkState(params);
      await (transport as StreamableHTTPClientTransport | SSEClientTransport).finishAuth(params);
      return this.connectWith(kind, signal, true);
    }
    this.client = client;
    this.current = transport;
    this.state = "connected";
  }

  private async connect(signal: AbortSignal): Promise<void> {
    try {
      if (this.transport !== "http") return await this.connectWith(this.transport, signal);
      try {
        await this.connectWith("http", signal);
      } catch (error) {
        // The spec's fallback for servers of the 2024-11-05 era: a 4xx to the POST means the
        // URL speaks the old HTTP+SSE transport.
        const status = error instanceof SdkHttpError ? error.status : undefined;
        if (status === undefined || status < 400 || status >= 500 || status === 401 || status === 403)
          throw error;
        await this.connectWith("sse", signal);
        this.kind = "sse";
      }
    } catch (error) {
      this.state = "failed";
      if (signal.aborted) throw abortError(signal);
      throw mcpFailure(this.name, "the start", error, this.startupLimit());
    }
  }

  /** The client, restarting a server that died if it has not been restarted yet. */
  private async ready(signal: AbortSignal): Promise<Client> {
    if (this.client) return this.client;
    if (this.state === "closed")
      throw new ResonError("mcp_unavailable", `MCP server "${this.name}" was closed.`, {
        details: { server: this.name },
      });
    if (this.state === "failed" || (this.restarted && !this.reconnecting)) {
      this.state = "failed";
      throw new ResonError(
        "mcp_unavailable",
        `MCP server "${this.name}" stopped and could not be restarted.`,
        {
          hint: `\`reson mcp test ${this.name}\` starts it alone and shows its errors; the run goes on without it.`,
          details: { server: this.name },
        },
      );
    }
    if (!this.reconnecting) {
      this.restarted = true;
      this.state = "restarting";
      this.reconnecting = (async () => {
        await new Promise((resolve) => setTimeout(resolve, RESTART_BACKOFF_MS).unref());
        await this.connect(new AbortController().signal);
      })().finally(() => {
        this.reconnecting = undefined;
      });
    }
    await this.reconnecting.catch(() => {});
    if (signal.aborted) throw abortError(signal);
    if (!this.client) return this.ready(signal);
    return this.client;
  }

  /** One request, with its failure in reson's terms. */
  private async request<T>(
    what: string,
    signal: AbortSignal,
    run: (client: Client) => Promise<T>,
    limit?: RequestLimit,
  ): Promise<T> {
    const client = await this.ready(signal);
    try {
      return await run(client);
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
        throw new ResonError("mcp_unavailable", `MCP server "${this.name}" stopped during ${what}.`, {
          hint: this.restarted
            ? "It had already been restarted once; the run goes on without it."
            : "reson starts it again for the next call; the call itself may have done part of its work.",
          details: { server: this.name },
          cause: error,
        });
      }
      throw mcpFailure(this.name, what, error, limit);
    }
  }

  async listTools(signal: AbortSignal): Promise<McpToolInfo[]> {
    return this.request(
      "tools/list",
      signal,
      async (client) => {
        const out: McpToolInfo[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor ? { cursor } : undefined, {
            signal,
            timeout: this.startupTimeoutMs(),
          });
          for (const tool of page.tools) {
            out.push({
              name: tool.name,
              description: tool.description ?? tool.title ?? "",
              inputSchema: isRecord(tool.inputSchema) ? tool.inputSchema : { type: "object" },
              readOnlyHint: tool.annotations?.readOnlyHint === true,
            });
          }
          cursor = page.nextCursor;
        } while (cursor);
        return out;
      },
      this.startupLimit(),
    );
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<McpCallResult> {
    return this.request(
      `the call of ${name}`,
      options.signal,
      async (client) => {
        const result = await client.callTool(
          { name, arguments: args },
          {
            signal: options.signal,
            timeout: options.timeoutMs || DEFAULT_CALL_TIMEOUT_MS,
            // The SDK sends a progressToken only when onprogress is given; without one the
            // server sends no progress and resetTimeoutOnProgress does nothing.
            resetTimeoutOnProgress: true,
            onprogress: (progress) => options.onProgress?.(progress),
          },
        );
        return {
          content: (Array.isArray(result.content) ? result.content : []) as McpContent[],
          ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
          isError: result.isError === true,
        };
      },
      { setting: "callTimeoutMs", ms: options.timeoutMs || DEFAULT_CALL_TIMEOUT_MS },
    );
  }

  async listPrompts(signal: AbortSignal): Promise<McpPromptInfo[]> {
    return this.request("prompts/list", signal, async (client) => {
      if (!client.getServerCapabilities()?.prompts) return [];
      const { prompts } = await client.listPrompts(undefined, { signal });
      return prompts.map((p) => ({
        name: p.name,
        ...(p.description ? { description: p.description } : {}),
        arguments: (p.arguments ?? []).map((a) => ({
          name: a.name,
          ...(a.description ? { description: a.description } : {}),
          required: a.required === true,
        })),
      }));
    });
  }

  async getPrompt(name: string, args: Record<string, string>, signal: AbortSignal): Promise<McpContent[]> {
    return this.request(`the prompt ${name}`, signal, async (client) => {
      const result = await client.getPrompt({ name, arguments: args }, { signal });
      return result.messages.map((m) => m.content as McpContent);
    });
  }

  async listResources(signal: AbortSignal): Promise<McpResourceInfo[]> {
    return this.request("resources/list", signal, async (client) => {
      if (!client.getServerCapabilities()?.resources) return [];
      const { resources } = await client.listResources(undefined, { signal });
      return resources.map((r) => ({
        uri: r.uri,
        name: r.name,
        ...(r.description ? { description: r.description } : {}),
        ...(r.mimeType ? { mimeType: r.mimeType } : {}),
      }));
    });
  }

  async readResource(uri: string, signal: AbortSignal): Promise<McpResourceContents[]> {
    return this.request(`reading ${uri}`, signal, async (client) => {
      const { contents } = await client.readResource({ uri }, { signal });
      return contents as McpResourceContents[];
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    this.state = "closed";
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => {});
  }
}
