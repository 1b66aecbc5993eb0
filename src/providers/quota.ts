// What a rate-limit or quota refusal says about itself beyond its status: Google's structured
// details (google.rpc.RetryInfo's retryDelay, google.rpc.QuotaFailure's quota ids and limits)
// and the vendors' wording ("Please try again in 7m12s", "requests per day (RPD)"), so that a
// per-minute limit is waited out and a daily quota or a plan without quota stops the run.

export interface QuotaFacts {
  /** The wait the body asks for: Google's RetryInfo, else "try again in …" in the message. */
  retryAfterMs?: number;
  /** The quota that ran out, as the provider names it. */
  quotaId?: string;
  /** Its limit as the provider states it; "0" means the plan has none for this model. */
  limit?: string;
  /** A daily quota does not come back within a run; a per-minute one does. */
  period?: "minute" | "day";
}

/** A Google error detail, as far as this module reads it. */
interface ErrorDetail {
  "@type"?: unknown;
  retryDelay?: unknown;
  violations?: unknown;
}

interface Violation {
  quotaId?: unknown;
  quotaValue?: unknown;
}

const DAY = /per[ -]?day|\bRPD\b|\bTPD\b/i;
const MINUTE = /per[ -]?min(ute)?|\bRPM\b|\bTPM\b/i;
/** "Please try again in 7m12s" (OpenAI), "Please retry in 17.5s" (Google), "in 20ms". */
const WAIT = /\b(?:try again|retry) in ((?:\d+(?:\.\d+)?(?:ms|h|m|s))+)/i;

/** Facts from an error's text: pi-ai's message, or a status and the raw body. */
export function quotaFacts(message: string): QuotaFacts {
  const facts: QuotaFacts = {};
  const violations: Violation[] = [];
  for (const detail of googleDetails(message)) {
    const type = typeof detail["@type"] === "string" ? detail["@type"] : "";
    if (type.endsWith("google.rpc.RetryInfo") && typeof detail.retryDelay === "string") {
      const ms = protobufDurationMs(detail.retryDelay);
      if (ms !== undefined) facts.retryAfterMs = ms;
    } else if (type.endsWith("google.rpc.QuotaFailure") && Array.isArray(detail.violations)) {
      violations.push(...(detail.violations as unknown[]).filter(isObject));
    }
  }
  // Of several quotas used up at once, the one that lasts longest is the one that matters.
  const violation =
    violations.find((v) => typeof v.quotaId === "string" && DAY.test(v.quotaId)) ?? violations[0];
  if (typeof violation?.quotaId === "string") facts.quotaId = violation.quotaId;
  if (typeof violation?.quotaValue === "string" || typeof violation?.quotaValue === "number") {
    facts.limit = String(violation.quotaValue);
  }
  if (facts.retryAfterMs === undefined) {
    const wait = WAIT.exec(message);
    if (wait) facts.retryAfterMs = durationMs(wait[1] ?? "");
  }
  const named = facts.quotaId ?? message;
  if (DAY.test(named)) facts.period = "day";
  else if (MINUTE.test(named)) facts.period = "minute";
  return facts;
}

/** The `error.details` of a Google error body found in the text (after any prefix). */
function googleDetails(message: string): ErrorDetail[] {
  const start = message.indexOf("{");
  if (start < 0 || !message.includes("details")) return [];
  try {
    const body = JSON.parse(message.slice(start)) as { error?: { details?: unknown } };
    const details = body.error?.details;
    return Array.isArray(details) ? details.filter(isObject) : [];
  } catch {
    return [];
  }
}

/** google.protobuf.Duration in JSON: "17s", "0.5s". */
function protobufDurationMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)s$/.exec(text.trim());
  return match ? Math.round(Number(match[1]) * 1000) : undefined;
}

/** "7m12s", "1.5s", "20ms", "1h2m" in milliseconds. */
function durationMs(text: string): number {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  let total = 0;
  for (const [, value, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) {
    total += Number(value) * (units[unit ?? "s"] ?? 1000);
  }
  return Math.round(total);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object";
}
