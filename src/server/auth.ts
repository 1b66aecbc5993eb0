// Who may call a route: `Authorization: Bearer <token>` on every route but /healthz. Tokens
// are compared as SHA-256 digests with timingSafeEqual, so neither the length nor how much of
// a guess is right shows in the time a refusal takes. Browsers' EventSource cannot set a
// header, so SSE routes also take an HttpOnly, SameSite=Strict cookie that a bearer-authenticated
// POST sets; never a token in the URL, where logs and history keep it.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/** bearer: the header only; bearer-or-cookie: also the SSE cookie (GET only); none: open. */
export type RouteAuth = "bearer" | "bearer-or-cookie" | "none";

export const SSE_COOKIE_NAME = "reson_sse";
const COOKIE_PURPOSE = "reson serve: SSE cookie v1";

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/** The token in `Authorization: Bearer <token>`, or undefined (other schemes included). */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1];
}

/** The value of cookie `name` in a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Checks presented credentials against the server's token without keeping the token itself. */
export class TokenCheck {
  readonly #tokenDigest: Buffer;
  readonly #cookie: string;
  readonly #cookieDigest: Buffer;

  constructor(token: string) {
    this.#tokenDigest = digest(token);
    // Derived, not the token: the cookie opens event streams and nothing else.
    this.#cookie = createHmac("sha256", token).update(COOKIE_PURPOSE).digest("base64url");
    this.#cookieDigest = digest(this.#cookie);
  }

  /** True when `presented` is the token; constant time in what and how much of it is right. */
  matches(presented: string): boolean {
    return timingSafeEqual(digest(presented), this.#tokenDigest);
  }

  /** The Set-Cookie header value a login gives to a browser for SSE routes. */
  setCookieHeader(secure: boolean): string {
    const attributes = [
      "HttpOnly",
      "SameSite=Strict",
      "Path=/",
      "Max-Age=86400",
      ...(secure ? ["Secure"] : []),
    ];
    return `${SSE_COOKIE_NAME}=${this.#cookie}; ${attributes.join("; ")}`;
  }

  /** Whether a request may call a route with this auth mode. */
  allows(method: string, headers: IncomingHttpHeaders, auth: RouteAuth): boolean {
    if (auth === "none") return true;
    const bearer = bearerToken(headers.authorization);
    if (bearer !== undefined) return this.matches(bearer);
    if (auth !== "bearer-or-cookie" || method !== "GET") return false;
    const cookie = cookieValue(headers.cookie, SSE_COOKIE_NAME);
    return cookie !== undefined && timingSafeEqual(digest(cookie), this.#cookieDigest);
  }
}
