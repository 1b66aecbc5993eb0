// When to try a model call again and how long to wait first: exponential backoff with
// jitter, a Retry-After from the server when it asks for longer, and a cap above which
// waiting is pointless and the error goes straight to the user.
import { ResonError } from "../core/errors.js";
import { retryAfterTooLong } from "./classify.js";
import type { RetryPolicy } from "./types.js";

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
  jitter: 0.25,
};

const RETRYABLE = new Set(["provider_timeout", "provider_rate_limited", "provider_unavailable"]);

/** A timeout, a rate limit or an outage, unless the error says waiting will not cure it (a daily quota). */
export function isRetryable(error: ResonError): boolean {
  return RETRYABLE.has(error.code) && error.details?.retryable !== false;
}

/** The server's requested wait, from an error's details. */
export function retryAfterOf(error: ResonError): number | undefined {
  const value = error.details?.retryAfterMs;
  return typeof value === "number" ? value : undefined;
}

/**
 * The wait before the attempt after `failedAttempt` (1-based): base * 2^(n-1), capped,
 * ± jitter, or the server's Retry-After when that is longer.
 */
export function backoffDelayMs(
  policy: RetryPolicy,
  failedAttempt: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failedAttempt - 1));
  const jittered = Math.max(0, Math.round(exponential * (1 + policy.jitter * (2 * random() - 1))));
  return retryAfterMs !== undefined && retryAfterMs > jittered ? retryAfterMs : jittered;
}

/** After a failed attempt: wait `delayMs` and try again, or give up with `error`. */
export type RetryStep = { retry: true; delayMs: number } | { retry: false; error: ResonError };

/**
 * Whether to try again after `attempt` (1-based) failed with `error`. A cancel ends at once;
 * an error that is given up on carries the number of attempts in its details.
 */
export function planRetry(policy: RetryPolicy, error: ResonError, attempt: number): RetryStep {
  if (error.code === "aborted") return { retry: false, error };
  if (!isRetryable(error)) return { retry: false, error: withAttempts(error, attempt) };
  const retryAfterMs = retryAfterOf(error);
  if (retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs) {
    const tooLong = retryAfterTooLong(error, retryAfterMs, policy.maxRetryAfterMs);
    return { retry: false, error: withAttempts(tooLong, attempt) };
  }
  if (attempt >= policy.maxAttempts) return { retry: false, error: withAttempts(error, attempt) };
  return { retry: true, delayMs: backoffDelayMs(policy, attempt, retryAfterMs) };
}

function withAttempts(error: ResonError, attempts: number): ResonError {
  return new ResonError(error.code, error.message, {
    hint: error.hint,
    details: { ...error.details, attempts },
    cause: error.cause,
  });
}

/** Read access to response headers: a fetch `Headers`, or a wrapper around node's. */
export interface HeaderSource {
  get(name: string): string | null;
}

/** Retry-After (seconds or an HTTP date) or OpenAI's retry-after-ms, in milliseconds. */
export function parseRetryAfter(headers: HeaderSource, nowMs: number = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const raw = headers.get("retry-after");
  if (raw === null || raw.trim() === "") return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
