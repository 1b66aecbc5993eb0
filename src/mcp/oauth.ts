// Logging in to an HTTP MCP server with OAuth (authorization code with PKCE, a loopback
// redirect on 127.0.0.1), on the SDK's auth flow. What it keeps (the registered client, the
// tokens, by the authorization server's issuer) is in $RESON_HOME/mcp-oauth/<hash of the
// server URL>.json, mode 0600; the SDK refreshes an expired token with the refresh token
// when the server answers 401. How the user reaches the authorization page is the caller's:
// the terminal prints the URL and waits for the browser's redirect (`waitForCallback`).
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import type {
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { writeFileAtomic } from "../core/atomic-write.js";
import { ResonError } from "../core/errors.js";

/** Sends the user to `url` and resolves with the redirect's query (code, state, iss). */
export type Authorize = (url: URL, redirectUrl: string, signal: AbortSignal) => Promise<URLSearchParams>;

interface OAuthFile {
  callbackPort?: number;
  /** The issuer whose tokens were saved last: what a request without an issuer sends. */
  lastIssuer?: string;
  clients: Record<string, StoredOAuthClientInformation>;
  tokens: Record<string, StoredOAuthTokens & { savedAt?: number }>;
}

const DEFAULT_ISSUER = "-";

export function oauthFile(home: string, serverUrl: string): string {
  const key = createHash("sha256").update(serverUrl).digest("hex").slice(0, 24);
  return join(home, "mcp-oauth", `${key}.json`);
}

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export class FileOAuthProvider implements OAuthClientProvider {
  /** Set by the SDK's flow when the user must log in; the connection then calls `authorize`. */
  pendingAuthorization: URL | undefined;
  private verifier: string | undefined;
  private expectedState: string | undefined;

  private constructor(
    private readonly file: string,
    private data: OAuthFile,
  ) {}

  static async open(home: string, serverUrl: string): Promise<FileOAuthProvider> {
    const file = oauthFile(home, serverUrl);
    let data: OAuthFile = { clients: {}, tokens: {} };
    try {
      data = { clients: {}, tokens: {}, ...(JSON.parse(await readFile(file, "utf8")) as Partial<OAuthFile>) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" && !(error instanceof SyntaxError)) throw error;
    }
    // One port per server, kept with the login: a client registered with its redirect URL
    // stays valid. Nothing is written until there is a login to keep.
    data.callbackPort ??= await freeLoopbackPort();
    return new FileOAuthProvider(file, data);
  }

  private async save(): Promise<void> {
    await mkdir(join(this.file, ".."), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.file, `${JSON.stringify(this.data, null, 2)}\n`, { mode: 0o600 });
  }

  get redirectUrl(): string {
    return `http://127.0.0.1:${this.data.callbackPort}/callback`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "reson",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    this.expectedState = randomBytes(16).toString("base64url");
    return this.expectedState;
  }

  /** The redirect's state must be the one sent: anything else is someone else's redirect. */
  checkState(params: URLSearchParams): void {
    if (this.expectedState !== undefined && params.get("state") !== this.expectedState)
      throw new ResonError(
        "mcp_unavailable",
        "The login redirect carried an unexpected state; it was ignored.",
        {
          hint: "Start the login again.",
        },
      );
  }

  clientInformation(ctx?: OAuthClientInformationContext): StoredOAuthClientInformation | undefined {
    return this.data.clients[ctx?.issuer ?? this.data.lastIssuer ?? DEFAULT_ISSUER];
  }

  async saveClientInformation(
    info: StoredOAuthClientInformation,
    ctx?: OAuthClientInformationContext,
  ): Promise<void> {
    this.data.clients[ctx?.issuer ?? DEFAULT_ISSUER] = info;
    await this.save();
  }

  tokens(ctx?: OAuthClientInformationContext): StoredOAuthTokens | undefined {
    // Without an issuer (the resource server's own request), the tokens saved last.
    const stored = this.data.tokens[ctx?.issuer ?? this.data.lastIssuer ?? DEFAULT_ISSUER];
    if (!stored) return undefined;
    const { savedAt: _savedAt, ...tokens } = stored;
    return tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): Promise<void> {
    const issuer = ctx?.issuer ?? DEFAULT_ISSUER;
    this.data.tokens[issuer] = { ...tokens, savedAt: Date.now() };
    this.data.lastIssuer = issuer;
    await this.save();
  }

  redirectToAuthorization(url: URL): void {
    this.pendingAuthorization = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new ResonError("mcp_unavailable", "No login is in progress for this server.");
    return this.verifier;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "all" || scope === "client") this.data.clients = {};
    if (scope === "all" || scope === "tokens") this.data.tokens = {};
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    await this.save();
  }
}

/** Waits for the browser's redirect to the loopback URL and answers it with a plain page. */
export function waitForCallback(redirectUrl: string, signal: AbortSignal): Promise<URLSearchParams> {
  const target = new URL(redirectUrl);
  return new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", target);
      if (url.pathname !== target.pathname) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      res.end("reson: logged in; you can close this tab.\n");
      server.close();
      resolve(url.searchParams);
    });
    const stop = () => {
      server.close();
      reject(new ResonError("aborted", "The login was cancelled."));
    };
    signal.addEventListener("abort", stop, { once: true });
    server.once("error", reject);
    server.listen(Number(target.port), "127.0.0.1");
  });
}
