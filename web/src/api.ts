// The page's side of the API: the token kept in this tab's sessionStorage (never in the URL,
// gone when the tab closes), JSON calls with it, and the SSE cookie for EventSource.
const TOKEN_KEY = "reson.token";

export class Unauthorized extends Error {}

export function savedToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function saveToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

declare global {
  interface Window {
    /** The reads index.html started for the first page, by path, with the token they were sent with. */
    resonEarlyReads?: { token: string; reads: Map<string, Promise<Response>> };
  }
}

/** A read index.html already started for this path with this token, taken once. */
function earlyRead(method: string, path: string, token: string | null): Promise<Response> | undefined {
  const early = window.resonEarlyReads;
  if (method !== "GET" || !early || early.token !== token) return undefined;
  const read = early.reads.get(path);
  early.reads.delete(path);
  return read;
}

/** The first page asked for what it needs: the early reads it did not take are let go. */
export function dropEarlyReads(): void {
  const early = window.resonEarlyReads;
  if (!early) return;
  delete window.resonEarlyReads;
  for (const read of early.reads.values())
    void read.then(
      (response) => response.body?.cancel(),
      () => {},
    );
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const token = savedToken();
  const response = await (earlyRead(method, path, token) ??
    fetch(path, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }));
  if (response.status === 401) throw new Unauthorized("the token was refused");
  if (response.status === 204) return undefined as T;
  const data = (await response.json()) as T & { error?: { message: string; hint?: string } };
  if (!response.ok) {
    const error = data.error;
    throw new Error(
      error ? `${error.message}${error.hint ? ` ${error.hint}` : ""}` : `HTTP ${response.status}`,
    );
  }
  return data;
}

/** The cookie asked for, by the token it was asked with: one POST per token in this tab. */
let cookie: { token: string | null; set: Promise<void>; askedAt: number } | undefined;
/** Asked for again after this long, well inside the cookie's day. */
const COOKIE_REUSE_MS = 12 * 3600_000;

/**
 * Lets this tab's EventSource open event streams (it cannot send the bearer header). The
 * cookie lasts a day: asked for once per token, again only after a failure.
 */
export function enableEventStreams(): Promise<void> {
  const token = savedToken();
  if (cookie?.token === token && Date.now() - cookie.askedAt < COOKIE_REUSE_MS) return cookie.set;
  const set = api<void>("POST", "/auth/sse-cookie");
  cookie = { token, set, askedAt: Date.now() };
  set.catch(() => {
    if (cookie?.set === set) cookie = undefined;
  });
  return set;
}
