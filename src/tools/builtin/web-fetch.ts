// web_fetch: one HTTP request from the agent, the URL-aware tool. Secrets named in the URL,
// headers or body as <secret>name</secret> are filled in only when the request goes to a URL
// their pattern covers; a redirect away from that origin is reported, not followed, so a
// credential never travels to a host it was not meant for. Every hop is checked before it is
// requested (or even looked up): the address guard (no loopback or private hosts unless the
// user allowed them) and the run's own check (permission rules, and after untrusted content
// only hosts a rule names); a redirect that fails it is handed back to the model, not followed.
// What comes back is untrusted content. The response is masked (by the registry) before anyone
// sees it, and the session's URL becomes the one reached.
import { Type } from "typebox";
import { abortError } from "../../core/abort.js";
import { refusalFor } from "../../core/address-guard.js";
import { ResonError } from "../../core/errors.js";
import type { ToolContext, ToolDefinition } from "../types.js";

const TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 5;
/** Body bytes read at most; the registry then cuts to the context's limits. */
const MAX_BODY_BYTES = 2 * 1024 * 1024;
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;
/** Response headers worth the model's attention. */
const SHOWN_HEADERS = ["content-type", "content-length", "location", "retry-after", "www-authenticate"];

const parameters = Type.Object(
  {
    url: Type.String({ minLength: 1, description: "An http:// or https:// URL." }),
    method: Type.Optional(
      Type.Union(
        METHODS.map((m) => Type.Literal(m)),
        { description: "Default GET." },
      ),
    ),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: "Request headers, e.g. Authorization." }),
    ),
    body: Type.Optional(Type.String({ description: "Request body (text, e.g. JSON)." })),
  },
  { additionalProperties: false },
);

interface Request {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function parseHttpUrl(text: string, allowPrivateHosts: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ResonError("web_fetch_failed", `${JSON.stringify(text)} is not a URL.`, {
      hint: "Give a full URL such as https://example.com/page.",
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ResonError("web_fetch_failed", `Only http and https URLs can be fetched, not ${url.protocol}.`);
  }
  const refusal = refusalFor(url.href, allowPrivateHosts);
  if (refusal)
    throw new ResonError("web_fetch_refused", `Not fetching ${url.host}: ${refusal}.`, {
      hint: "Fetch a public host, or ask the user to allow this one.",
    });
  return url;
}

/** Why the redirect to `next` is not followed, or undefined when it may be. */
async function hopRefusal(
  next: URL,
  from: URL,
  ctx: ToolContext,
  allowPrivateHosts: readonly string[],
): Promise<string | undefined> {
  if (next.protocol !== "http:" && next.protocol !== "https:") return `it is not an http or https URL`;
  return (
    refusalFor(next.href, allowPrivateHosts) ??
    (await ctx.checkHop?.({ url: next.href, kind: "redirect", tool: "web_fetch", from: from.href }))
  );
}

/** The URL as the session keeps it: no query, fragment or credentials (they may hold tokens). */
function sessionUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** The request with the secrets filled in, or an error naming the placeholders that cannot be. */
function withSecrets(request: Request, ctx: ToolContext): { request: Request; used: string[] } {
  if (!ctx.secrets) return { request, used: [] };
  const filled = ctx.secrets.forUrl(request, request.url);
  const problems = [
    ...filled.missing.map((name) => `${name} (no such secret)`),
    ...filled.outOfScope.map((name) => `${name} (not allowed for ${new URL(request.url).host})`),
  ];
  if (problems.length > 0) {
    throw new ResonError("secret_unavailable", `Cannot fill in ${problems.join(", ")}.`, {
      hint: "Use only the secrets listed for this site; the user adds secrets in $RESON_HOME/secrets.json.",
    });
  }
  return { request: filled.value, used: filled.used };
}

async function readBody(response: Response, signal: AbortSignal): Promise<{ bytes: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  if (!response.body) return { bytes: Buffer.alloc(0), cut: false };
  const reader = response.body.getReader();
  try {
    for (;;) {
      if (signal.aborted) throw abortError(signal);
      const { done, value } = await reader.read();
      if (done) return { bytes: Buffer.concat(chunks), cut: false };
      chunks.push(Buffer.from(value));
      size += value.byteLength;
      if (size > MAX_BODY_BYTES)
        return { bytes: Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES), cut: true };
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function isText(contentType: string): boolean {
  return /^text\/|json|xml|javascript|ecmascript|x-www-form-urlencoded|svg|yaml|csv/i.test(contentType);
}

export interface WebFetchOptions {
  /** Loopback and private hosts it may request (config web.allowPrivateHosts); none by default. */
  allowPrivateHosts?: readonly string[];
}

export function createWebFetchTool(options: WebFetchOptions = {}): ToolDefinition<typeof parameters> {
  const allowPrivateHosts = options.allowPrivateHosts ?? [];
  return {
    name: "web_fetch",
    description:
      "Make one HTTP request (default GET) and return the status, the main headers and the body as text. " +
      "Secrets are written as <secret>name</secret> in the URL, headers or body and are filled in only for " +
      `the sites they belong to. Redirects are followed up to ${MAX_REDIRECTS} times where allowed (within the ` +
      "same origin when secrets are sent); one that is not is reported with where it leads. " +
      `Times out after ${TIMEOUT_MS / 1000} s; binary bodies are described, not shown.`,
    parameters,
    readOnly: false,
    external: true,
    changesFiles: false,
    async execute(args, ctx) {
      let target = parseHttpUrl(args.url, allowPrivateHosts);
      const shownUrl = args.url;
      let request: Request = {
        url: target.href,
        method: args.method ?? "GET",
        headers: args.headers ?? {},
        body: args.body,
      };
      const filled = withSecrets(request, ctx);
      const secretOrigin = filled.used.length > 0 ? target.origin : undefined;
      request = filled.request;
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(TIMEOUT_MS)]);

      let response: Response | undefined;
      for (let hop = 0; ; hop++) {
        try {
          response = await fetch(request.url, {
            method: request.method,
            headers: request.headers,
            ...(request.body !== undefined && request.method !== "GET" && request.method !== "HEAD"
              ? { body: request.body }
              : {}),
            redirect: "manual",
            signal,
          });
        } catch (error) {
          if (ctx.signal.aborted) throw abortError(ctx.signal);
          const timedOut = signal.aborted;
          throw new ResonError(
            "web_fetch_failed",
            timedOut
              ? `${shownUrl} did not answer within ${TIMEOUT_MS / 1000} s.`
              : `Could not reach ${target.host}: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`,
          );
        }
        const location = response.headers.get("location");
        if (response.status < 300 || response.status >= 400 || !location || hop === MAX_REDIRECTS) break;
        const next = new URL(location, target);
        const refusal =
          secretOrigin !== undefined && next.origin !== secretOrigin
            ? `the request carried secrets for ${secretOrigin}, which must not go to another site`
            : await hopRefusal(next, target, ctx, allowPrivateHosts);
        if (refusal !== undefined) {
          await response.body?.cancel().catch(() => {});
          ctx.setUrl?.(sessionUrl(target));
          return {
            content: `HTTP ${response.status}: redirected to ${next.href}\nNot followed: ${refusal}.`,
            longTermMemory: `web_fetch ${shownUrl}: redirect to ${next.origin} not followed`,
            untrustedOrigin: sessionUrl(target),
          };
        }
        await response.body?.cancel().catch(() => {});
        const toGet =
          response.status === 303 ||
          ((response.status === 301 || response.status === 302) && request.method === "POST");
        request = { ...request, url: next.href, ...(toGet ? { method: "GET", body: undefined } : {}) };
        target = next;
      }

      ctx.setUrl?.(sessionUrl(target));
      const contentType = response.headers.get("content-type") ?? "";
      const head = [`HTTP ${response.status} ${response.statusText}`.trim(), `url: ${sessionUrl(target)}`];
      for (const name of SHOWN_HEADERS) {
        const value = response.headers.get(name);
        if (value !== null) head.push(`${name}: ${value}`);
      }
      const { bytes, cut } = await readBody(response, ctx.signal);
      let body: string;
      if (request.method === "HEAD") body = "";
      else if (bytes.length === 0) body = "(empty body)";
      else if (contentType === "" || isText(contentType)) body = bytes.toString("utf8");
      else body = `(binary body: ${bytes.length} bytes of ${contentType})`;
      if (cut) body += `\n[body cut at ${MAX_BODY_BYTES} bytes]`;
      const content = `${head.join("\n")}\n\n${body}`;
      const summary = `web_fetch ${request.method} ${shownUrl}: HTTP ${response.status}, ${bytes.length} bytes`;
      const origin = sessionUrl(target);
      if (response.status >= 400) {
        const error = new ResonError("web_fetch_failed", `${shownUrl} answered HTTP ${response.status}.`, {
          details: { status: response.status },
        });
        return { content, longTermMemory: summary, error, truncated: cut, untrustedOrigin: origin };
      }
      return { content, longTermMemory: summary, truncated: cut, untrustedOrigin: origin };
    },
  };
}
