// reson's errors as JSON-RPC errors: the message as it is (with what to do, where reson's hint
// speaks to a terminal), reson's code and hint in `data`, and the JSON-RPC code that says whose
// move it is (the request was wrong or came at a busy time, a key is missing, a session is
// unknown, or reson failed).
import { RequestError } from "@agentclientprotocol/sdk";
import { type ResonError, toResonError } from "../core/errors.js";
import { SESSION_HELD_REMEDY } from "./editor-hints.js";

/** JSON-RPC's "invalid params", and ACP's "authentication required" and "resource not found". */
const INVALID_PARAMS = -32602;
const AUTH_REQUIRED = -32000;
const NOT_FOUND = -32002;
const INTERNAL = -32603;

const BY_CODE: Partial<Record<ResonError["code"], number>> = {
  usage_error: INVALID_PARAMS,
  invalid_request: INVALID_PARAMS,
  workspace_invalid: INVALID_PARAMS,
  workspace_refused: INVALID_PARAMS,
  workspace_untrusted: INVALID_PARAMS,
  session_busy: INVALID_PARAMS,
  // Not reson failing: the session is another process's for now, as a busy one is this one's.
  run_leased: INVALID_PARAMS,
  no_provider_configured: AUTH_REQUIRED,
  provider_auth_failed: AUTH_REQUIRED,
  not_found: NOT_FOUND,
};

/** What to do, in the message itself where an editor may show nothing else (its hint speaks to a terminal). */
const EDITOR_REMEDY: Partial<Record<ResonError["code"], string>> = {
  run_leased: SESSION_HELD_REMEDY,
};

export function rpcError(error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  const failure = toResonError(error);
  const remedy = EDITOR_REMEDY[failure.code];
  const message = remedy ? `${failure.message} ${remedy}` : failure.message;
  return new RequestError(BY_CODE[failure.code] ?? INTERNAL, message, {
    code: failure.code,
    ...(failure.hint ? { hint: failure.hint } : {}),
    ...(failure.details ? { details: failure.details } : {}),
  });
}
