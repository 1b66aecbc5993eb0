// Which web pages may talk to the server: its own origin and those listed with --cors; any
// other Origin is refused before anything else runs, so a page elsewhere cannot drive a local
// server even with a guessed token. Bound to loopback, the Host header must name loopback (or
// the configured host): a DNS-rebinding page reaches 127.0.0.1 under its own name and is refused.
import type { IncomingHttpHeaders } from "node:http";
import { ResonError } from "../core/errors.js";

export interface OriginPolicyOptions {
  /** The host the server is bound to, as configured (127.0.0.1, localhost, ::1, 0.0.0.0, a name). */
  host: string;
  /** The port it listens on (after listen, when 0 was asked). */
  port: number;
  /** Origins that may call from other pages (--cors), e.g. https://app.example.com. */
  corsOrigins: readonly string[];
}

export type OriginVerdict = { ok: true; corsOrigin?: string } | { ok: false; error: ResonError };

const ALLOWED_HEADERS = "authorization, content-type, idempotency-key, last-event-id";
const ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE";

/** A host name (as URL.hostname spells it: IPv6 in brackets) that always means this machine. */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  if (name === "[::1]" || name === "::1") return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]";
}

/** The hostname part of a configured host, as URL.hostname would give it. */
function hostnameOf(host: string): string {
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  try {
    return new URL(`http://${bracketed}`).hostname;
  } catch {
    return host.toLowerCase();
  }
}

/** True when a bind address (as configured) is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  return isLoopbackName(hostnameOf(host));
}

/** "https://app.example.com" from a --cors entry; refuses wildcards, paths and other schemes. */
export function normalizeCorsOrigin(entry: string): string {
  let url: URL | undefined;
  try {
    url = new URL(entry);
  } catch {
    url = undefined;
  }
  const valid =
    url !== undefined &&
    (url.protocol === "http:" || url.protocol === "https:") &&
    (url.pathname === "/" || url.pathname === "") &&
    url.search === "" &&
    url.username === "" &&
    !entry.includes("*");
  if (!valid || url === undefined) {
    throw new ResonError("usage_error", `--cors ${entry} is not an origin.`, {
      hint: "Give scheme, host and port only, e.g. --cors https://app.example.com (no wildcards, no path).",
    });
  }
  return url.origin;
}

function foreignPage(): ResonError {
  return new ResonError("forbidden", "Requests from other web pages are refused.", {
    hint: "Start the server with --cors <origin> to let that page call it.",
  });
}

/** A Host header's value as URL.host and URL.hostname spell it; nothing for anything but a host. */
function hostOf(value: string | undefined): { host: string; hostname: string } | undefined {
  if (value === undefined || value === "") return undefined;
  try {
    const url = new URL(`http://${value}`);
    // "a.com@127.0.0.1" or a path smuggled in the header is not a host.
    if (url.username !== "" || url.pathname !== "/" || url.search !== "") return undefined;
    return { host: url.host, hostname: url.hostname };
  } catch {
    return undefined;
  }
}

export class OriginPolicy {
  readonly #boundName: string;
  readonly #loopbackBind: boolean;
  readonly #wildcardBind: boolean;
  readonly #port: number;
  readonly #cors: ReadonlySet<string>;

  constructor(options: OriginPolicyOptions) {
    this.#boundName = hostnameOf(options.host);
    this.#loopbackBind = isLoopbackName(this.#boundName);
    this.#wildcardBind = isWildcard(options.host);
    this.#port = options.port;
    this.#cors = new Set(options.corsOrigins.map(normalizeCorsOrigin));
  }

  /**
   * Host (and a request target in absolute form, which names a host of its own), then Origin;
   * a refusal is a 403 that says what to change.
   */
  check(headers: IncomingHttpHeaders, target?: string): OriginVerdict {
    const hostname = this.#requestHostname(headers.host);
    if (!this.#sameHostAsTarget(headers.host, target)) {
      return {
        ok: false,
        error: new ResonError(
          "forbidden",
          "The request names another host in its target than in its Host header.",
          {
            hint: "Send the path only (GET /sessions, not GET http://host/sessions): this server is not a proxy.",
          },
        ),
      };
    }
    if (this.#loopbackBind && (hostname === undefined || !this.#isOwnName(hostname))) {
      return {
        ok: false,
        error: new ResonError("forbidden", "This server answers only to its own host name.", {
          hint: `Use http://127.0.0.1:${this.#port} or http://localhost:${this.#port}.`,
        }),
      };
    }
    const origin = headers.origin;
    if (origin === undefined) {
      // A browser that sends no Origin still says where the request comes from (img, link, form GET).
      if (headers["sec-fetch-site"] === "cross-site") return { ok: false, error: foreignPage() };
      return { ok: true };
    }
    if (this.#cors.has(origin)) return { ok: true, corsOrigin: origin };
    if (this.#isOwnOrigin(origin, hostname)) return { ok: true };
    return { ok: false, error: foreignPage() };
  }

  /** Headers every response to a listed origin carries. */
  corsHeaders(corsOrigin: string): Record<string, string> {
    return { "access-control-allow-origin": corsOrigin, vary: "Origin" };
  }

  /** Headers of the answer to a CORS preflight (OPTIONS) from a listed origin. */
  preflightHeaders(corsOrigin: string): Record<string, string> {
    return {
      ...this.corsHeaders(corsOrigin),
      "access-control-allow-methods": ALLOWED_METHODS,
      "access-control-allow-headers": ALLOWED_HEADERS,
      "access-control-max-age": "600",
    };
  }

  #requestHostname(host: string | undefined): string | undefined {
    return hostOf(host)?.hostname;
  }

  /**
   * A target in origin form ("/path") names no host. One in absolute form
   * ("http://host/path", as a proxy is sent) does, and HTTP lets it override Host: it must
   * name the very host the Host header names. Any other form is no path and is refused later.
   */
  #sameHostAsTarget(host: string | undefined, target: string | undefined): boolean {
    if (target === undefined || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(target)) return true;
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return false;
    }
    if (url.username !== "" || url.password !== "") return false;
    const own = hostOf(host);
    return own !== undefined && url.host !== "" && url.host === own.host;
  }

  #isOwnName(hostname: string): boolean {
    return isLoopbackName(hostname) || hostname === this.#boundName;
  }

  #isOwnOrigin(origin: string, requestHostname: string | undefined): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // "null" (sandboxed frames, file://) and garbage
    }
    if (url.protocol !== "http:" || url.origin !== origin) return false;
    if (Number(url.port || "80") !== this.#port) return false;
    if (this.#loopbackBind) return this.#isOwnName(url.hostname);
    if (url.hostname === this.#boundName) return true;
    // Bound to every interface: the page's host is whatever name the request came in by.
    return this.#wildcardBind && requestHostname !== undefined && url.hostname === requestHostname;
  }
}
