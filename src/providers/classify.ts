// Every way a model call can fail, normalised to exactly one of the six provider codes, with
// a message for people (never containing the API key) and a hint saying what to do. Inputs
// are pi-ai's error text plus what the HTTP hook saw; rules run in order, first match wins.
import { type ProviderErrorCode, ResonError } from "../core/errors.js";
import { humanDuration } from "../core/human-duration.js";
import { keyHint, PROVIDER_CATALOG } from "./catalog.js";
import { type QuotaFacts, quotaFacts } from "./quota.js";
import type { ProviderName } from "./types.js";

/** The call being classified. */
export interface CallFacts {
  provider: ProviderName;
  model: string;
  baseUrl: string;
  contextWindow: number;
  /** Removed from every message. */
  apiKey: string;
  /**
   * Hints for calls configured elsewhere than the chat flags (embeddings): they replace the
   * ones that name --api-key, --model and the conversation.
   */
  hints?: CallHints;
}

export interface CallHints {
  /** The credentials were rejected. */
  auth?: string;
  /** The model or endpoint was not found, or the request was rejected. */
  settings?: string;
  /** An input is longer than the model accepts. */
  overflow?: string;
}

export interface FailureFacts {
  /** pi-ai's errorMessage. */
  message: string;
  /** HTTP status the hook saw (a failure inside a 200 stream has status 200). */
  status?: number;
  retryAfterMs?: number;
  /** pi-ai's isContextOverflow said yes. */
  overflow: boolean;
}

/** The account itself is refused: no credit, or a spending limit reached. */
const ACCOUNT =
  /insufficient_quota|insufficient (credits|balance)|credit balance is too low|reached your specified API usage limits/i;
/**
 * Quota wording that also comes with Gemini's per-minute limits ("You exceeded your current
 * quota, please check your plan and billing details"): an account refusal only when the
 * response names no quota and no time to retry.
 */
const QUOTA_WORDING = /exceeded your current quota|billing/i;
const AUTH = /api[ _-]?key|authentication|unauthori[sz]ed|permission[ _]denied|forbidden/i;
/** Google answers a wrong key with 400 INVALID_ARGUMENT rather than 401. */
const INVALID_KEY = /api key not valid|API_KEY_INVALID/i;
const RATE = /rate[ _-]?limit|too many requests|resource[ _]exhausted/i;
const TIMEOUT = /timed? ?out|timeout/i;
const UNAVAILABLE =
  /overloaded|unavailable|api_error|internal server error|connection error|^terminated$|other side closed|ECONNRESET|ECONNREFUSED|EPIPE|socket hang up|fetch failed|network/i;

export function classifyFailure(call: CallFacts, failure: FailureFacts): ResonError {
  const { status: textStatus, detail } = describe(failure.message);
  const status = failure.status !== undefined && failure.status >= 400 ? failure.status : textStatus;
  const label = `${call.provider} (${call.model})`;
  const said = status !== undefined ? ` (HTTP ${status})` : "";
  const quota = quotaFacts(failure.message);
  // The wait a body names with a daily quota is for its next check (Google) or a rolling
  // window (OpenAI), not a wait worth holding a run for; the hint says it instead.
  const retryAfterMs = failure.retryAfterMs ?? (quota.period === "day" ? undefined : quota.retryAfterMs);
  // Google's quota wording is the same for every quota: the quota's name goes first.
  const shown = quota.quotaId ? clip(`quota ${quotaName(quota)} exceeded; ${detail}`) : detail;
  const make = (
    code: ProviderErrorCode,
    message: string,
    hint: string,
    extra: Record<string, unknown> = {},
  ) =>
    providerError(call, code, `${message}${said}: ${shown}`, hint, {
      ...(status !== undefined ? { status } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...extra,
    });

  if (failure.overflow || status === 413) {
    return make(
      "provider_context_overflow",
      call.hints?.overflow
        ? `An input is too long for ${label}`
        : `The conversation is too long for ${label}`,
      call.hints?.overflow ??
        `It does not fit the model's context window (${call.contextWindow} tokens): compact the history, or use a model with a larger window.`,
    );
  }
  const named = quotaDetails(quota);
  if (
    status === 402 ||
    ACCOUNT.test(detail) ||
    quota.limit === "0" ||
    (QUOTA_WORDING.test(detail) && quota.quotaId === undefined && quota.retryAfterMs === undefined)
  ) {
    return make(
      "provider_auth_failed",
      `${label} refused the request for the account`,
      quota.limit === "0"
        ? `The plan of this key has no quota for ${call.model} (${quota.quotaId ?? "quota"}, limit 0): enable billing for the key's project, or use another model.`
        : "The account has no credit or quota left: check its plan and billing, or use another key.",
      named,
    );
  }
  if (
    status === 401 ||
    status === 403 ||
    (status === 400 && INVALID_KEY.test(detail)) ||
    (status === undefined && AUTH.test(detail))
  ) {
    return make(
      "provider_auth_failed",
      `${label} rejected the credentials`,
      call.hints?.auth ?? `Check the API key for ${call.provider}: ${keyHint(call.provider)}.`,
    );
  }
  if (status === 429 || (status === undefined && RATE.test(detail))) {
    if (quota.period === "day") {
      return make(
        "provider_rate_limited",
        `${label} has used up a daily quota`,
        dailyHint(call, quota, failure.retryAfterMs ?? quota.retryAfterMs),
        { ...named, retryable: false },
      );
    }
    return make(
      "provider_rate_limited",
      `${label} is rate limiting requests`,
      `Wait a little and try again, or lower the request rate${quota.quotaId ? ` (quota ${quotaName(quota)})` : ""}.`,
      named,
    );
  }
  if (status === 408 || (status === undefined && TIMEOUT.test(detail))) {
    return make("provider_timeout", `${label} did not answer in time`, timeoutHint(call));
  }
  if ((status !== undefined && status >= 500) || (status === undefined && UNAVAILABLE.test(detail))) {
    return make("provider_unavailable", `${label} is unavailable`, unavailableHint(call));
  }
  if (status === 404) {
    return make(
      "provider_bad_response",
      `${label} was not found`,
      call.hints?.settings ??
        `Check the model id (--model ${call.model}) and the base URL (${call.baseUrl}).`,
    );
  }
  if (/content_filter|refusal/i.test(detail)) {
    return make(
      "provider_bad_response",
      `${label} stopped the answer`,
      "The provider's safety filter refused this request; rephrase the task.",
    );
  }
  return make(
    "provider_bad_response",
    status !== undefined ? `${label} rejected the request` : `${label} sent a response reson could not use`,
    call.hints?.settings ??
      `Check the model id (--model ${call.model}) and the base URL (${call.baseUrl}); if it persists, the server may not be fully compatible.`,
  );
}

/** Our watchdog fired: no headers within the headers timeout, or a silence longer than the idle one. */
export function timeoutFailure(call: CallFacts, phase: "headers" | "idle", waitedMs: number): ResonError {
  const seconds = humanDuration(waitedMs);
  const message =
    phase === "headers"
      ? `${call.provider} (${call.model}) sent no response within ${seconds}`
      : `${call.provider} (${call.model}) stopped streaming: no data for ${seconds}`;
  return providerError(call, "provider_timeout", message, timeoutHint(call), { phase, timeoutMs: waitedMs });
}

/** The stream ended cleanly but without the protocol's end marker: the answer may be cut short. */
export function truncatedFailure(call: CallFacts): ResonError {
  return providerError(
    call,
    "provider_bad_response",
    `${call.provider} (${call.model}) ended the stream before the model finished (no finish reason)`,
    "The connection or a proxy cut the answer short; try again.",
    {},
  );
}

/** The stream broke the protocol (an event that is not JSON, say): retrying would not help. */
export function malformedFailure(call: CallFacts, detail: string): ResonError {
  return providerError(
    call,
    "provider_bad_response",
    `${call.provider} (${call.model}) sent a response reson could not read: ${detail}`,
    `Check the base URL (${call.baseUrl}); if it persists, the server may not be fully compatible.`,
    {},
  );
}

/** The error for a Retry-After longer than reson is willing to wait. */
export function retryAfterTooLong(error: ResonError, retryAfterMs: number, limitMs: number): ResonError {
  const quota = error.details?.quota as { id?: string; limit?: string } | undefined;
  const which = quota?.id
    ? ` (quota ${quotaName({ quotaId: quota.id, ...(quota.limit ? { limit: quota.limit } : {}) })})`
    : "";
  return new ResonError(error.code, error.message, {
    hint: `The provider asked to wait ${humanDuration(retryAfterMs)}${which}, longer than the ${humanDuration(limitMs)} reson waits; try again later.`,
    details: error.details,
    cause: error,
  });
}

/** The quota named in an error's details, for scripts: `{ id, limit, period }`. */
function quotaDetails(quota: QuotaFacts): Record<string, unknown> {
  if (quota.quotaId === undefined && quota.period === undefined) return {};
  return {
    quota: {
      ...(quota.quotaId !== undefined ? { id: quota.quotaId } : {}),
      ...(quota.limit !== undefined ? { limit: quota.limit } : {}),
      ...(quota.period !== undefined ? { period: quota.period } : {}),
    },
  };
}

function quotaName(quota: Pick<QuotaFacts, "quotaId" | "limit">): string {
  return `${quota.quotaId ?? "unnamed"}${quota.limit !== undefined ? `, limit ${quota.limit}` : ""}`;
}

/** A daily quota: waiting within the run cannot help; say which quota, when it returns, and the ways out. */
function dailyHint(call: CallFacts, quota: QuotaFacts, waitMs: number | undefined): string {
  const which = quota.quotaId ? `The daily quota ${quotaName(quota)}` : "The daily limit";
  const when =
    call.provider === "google"
      ? "It comes back when Google resets daily quotas, at midnight Pacific time"
      : waitMs !== undefined
        ? `The provider says to try again in ${humanDuration(waitMs)}`
        : "Try again tomorrow";
  return `${which} for ${call.model} is used up, so reson does not wait for it. ${when}; or use another model or key, or raise the quota (a paid plan).`;
}

function providerError(
  call: CallFacts,
  code: ProviderErrorCode,
  message: string,
  hint: string,
  details: Record<string, unknown>,
): ResonError {
  return new ResonError(code, redact(message, call.apiKey), {
    hint: redact(hint, call.apiKey),
    details: { provider: call.provider, model: call.model, ...details },
  });
}

/**
 * Status and a readable detail from pi-ai's text: "429 {json body}" → 429 and the body's
 * error message; Gemini's in-stream "got status: UNAVAILABLE. {json}" → the body's code and
 * message; raw SSE dumps cut off; whitespace collapsed; at most 300 characters.
 */
function describe(message: string): { status: number | undefined; detail: string } {
  const leading = /^(\d{3})\b\s*(.*)$/s.exec(message);
  const googleStatus = /got status:? (\d{3})/i.exec(message);
  let status = leading ? Number(leading[1]) : googleStatus ? Number(googleStatus[1]) : undefined;
  let detail = (leading ? leading[2] : message) ?? "";
  detail = detail.split("; data=")[0] ?? detail;
  detail = /^got status:? \S+\. (\{.*)$/is.exec(detail)?.[1] ?? detail;
  const fromJson = errorFromJson(detail);
  if (fromJson) {
    detail = fromJson.text;
    status ??= fromJson.code;
  }
  return { status, detail: clip(detail.replace(/\s+/g, " ").trim() || "no details") };
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

/** The error in a JSON body: "type: message" (Google: "STATUS: message") and a numeric code. */
function errorFromJson(text: string): { text: string; code?: number } | undefined {
  if (!text.startsWith("{")) return undefined;
  try {
    const body = JSON.parse(text) as { error?: unknown };
    const error = (typeof body.error === "object" && body.error !== null ? body.error : body) as {
      type?: unknown;
      status?: unknown;
      code?: unknown;
      message?: unknown;
    };
    const parts = [error.type ?? error.status, error.message].filter(
      (part): part is string => typeof part === "string" && part !== "",
    );
    if (parts.length === 0) return undefined;
    const code =
      typeof error.code === "number" && error.code >= 400 && error.code <= 599 ? error.code : undefined;
    return { text: parts.join(": "), ...(code !== undefined ? { code } : {}) };
  } catch {
    return undefined;
  }
}

function redact(text: string, secret: string): string {
  if (secret.length < 4 || secret === "none") return text;
  return text.split(secret).join("[redacted]");
}

function isLocal(call: CallFacts): boolean {
  return PROVIDER_CATALOG[call.provider].registry === undefined;
}

function timeoutHint(call: CallFacts): string {
  return isLocal(call)
    ? `Check that the server at ${call.baseUrl} is running; a slow local model may need longer timeouts.`
    : "Check the network connection; reson retries timeouts before giving up.";
}

function unavailableHint(call: CallFacts): string {
  return isLocal(call)
    ? `Check that the server at ${call.baseUrl} is running and reachable.`
    : "The provider's service is failing or the connection dropped; try again later.";
}
