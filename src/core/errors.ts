// The one error type of reson: every failure that crosses a module boundary is a
// ResonError with a stable code, a message for people and a hint saying what to do next.
import { type Static, Type } from "typebox";

export const PROVIDER_ERROR_CODES = [
  "provider_timeout",
  "provider_rate_limited",
  "provider_auth_failed",
  "provider_bad_response",
  "provider_context_overflow",
  "provider_unavailable",
] as const;
export type ProviderErrorCode = (typeof PROVIDER_ERROR_CODES)[number];

export type ErrorCode =
  | ProviderErrorCode
  | "usage_error"
  | "config_invalid"
  | "no_provider_configured"
  | "unknown_provider"
  | "workspace_invalid"
  | "workspace_refused"
  | "workspace_untrusted"
  /** A workspace name or folder already registered (HTTP 409). */
  | "workspace_exists"
  | "aborted"
  /**
   * The process executing a run is shutting down (reson worker or serve past --grace): not a
   * cancel. The run stops where it is without ending, as a crash would leave it, for another
   * process to resume.
   */
  | "host_stopping"
  | "max_iterations"
  | "budget_exceeded"
  | "circuit_open"
  | "tool_not_found"
  | "tool_invalid_arguments"
  | "tool_failed"
  | "tool_denied"
  | "tool_interrupted"
  | "path_outside_workspace"
  | "path_invalid"
  | "path_protected"
  | "workspace_read_only"
  | "file_not_found"
  | "not_a_file"
  | "not_a_directory"
  | "file_too_large"
  | "file_binary"
  | "edit_no_match"
  | "edit_ambiguous"
  | "command_failed"
  | "command_timeout"
  | "sandbox_unavailable"
  | "sandbox_refused"
  | "goal_not_found"
  | "goal_invalid"
  | "context_exhausted"
  | "not_found"
  | "ambiguous_id"
  | "store_unavailable"
  | "store_conflict"
  | "run_leased"
  | "lease_lost"
  /** A queued run's workers died `maxAttempts` times (their leases expired); it will not be tried again. */
  | "worker_lost"
  /** An idempotency key reused for a different request, or while its first request still runs (HTTP 409). */
  | "idempotency_conflict"
  | "secrets_file_insecure"
  | "secrets_file_invalid"
  | "secret_invalid"
  | "secret_unavailable"
  | "web_fetch_failed"
  /** A URL web_fetch may not request (scheme, private address); nothing was sent. */
  | "web_fetch_refused"
  /** No Chromium to run, or it did not start. */
  | "browser_unavailable"
  /** A URL the browser may not open (scheme, private address). */
  | "browser_refused"
  | "browser_failed"
  | "unauthorized"
  | "forbidden"
  | "invalid_request"
  | "method_not_allowed"
  | "payload_too_large"
  | "unsupported_media_type"
  | "session_busy"
  | "prompt_closed"
  /** No snapshots of that run here (never taken, removed, or taken on another machine). */
  | "snapshot_missing"
  /** A snapshot's object is missing or does not match its hash. */
  | "snapshot_damaged"
  /** A rewind would overwrite files changed since reson's last snapshot, and was not told to. */
  | "rewind_conflict"
  | "mcp_unavailable"
  /** A chat platform could not be reached or refused the bot's credentials (try again later). */
  | "channel_unavailable"
  /** A chat platform refused a message for good (the chat is gone, the bot was blocked). */
  | "channel_send_refused"
  /** A webhook delivery whose signature or timestamp does not check out. */
  | "channel_signature_invalid"
  /** A plugin package that cannot be read (no plugin.json, a bad name, a path out of its folder). */
  | "plugin_invalid"
  /** A plugin that failed to load, install or run a hook. */
  | "plugin_failed"
  | "internal_error";

export interface ResonErrorOptions {
  hint?: string;
  /** Extra structured facts (status, retryAfterMs, path…); never secrets. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class ResonError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: ResonErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ResonError";
    this.code = code;
    this.hint = options.hint;
    this.details = options.details;
  }

  toJSON(): SerializedError {
    return serializeError(this);
  }
}

/** The plain-data form of an error, as it appears in events, tool results and traces. */
export const SerializedErrorSchema = Type.Object(
  {
    // A plain string on the wire: clients must accept codes added after they were built.
    code: Type.Unsafe<ErrorCode>(Type.String({ description: "stable error code, e.g. provider_timeout" })),
    message: Type.String(),
    hint: Type.Optional(Type.String({ description: "what to do next" })),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { $id: "SerializedError" },
);
export type SerializedError = Static<typeof SerializedErrorSchema>;

export function isResonError(value: unknown): value is ResonError {
  return value instanceof ResonError;
}

export function isProviderErrorCode(code: string): code is ProviderErrorCode {
  return (PROVIDER_ERROR_CODES as readonly string[]).includes(code);
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof ResonError) {
    const out: SerializedError = { code: error.code, message: error.message };
    if (error.hint !== undefined) out.hint = error.hint;
    if (error.details !== undefined) out.details = error.details;
    return out;
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: "internal_error", message };
}

/** Wraps anything thrown into a ResonError, keeping ResonErrors as they are. */
export function toResonError(error: unknown, fallback: ErrorCode = "internal_error"): ResonError {
  if (error instanceof ResonError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ResonError(fallback, message, { cause: error });
}
