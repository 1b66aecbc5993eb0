// reson's errors as JSON-RPC errors: the message as it is, reson's code and hint in `data`, and
// the JSON-RPC code that says whose move it is (the request was wrong, a login or key is
// missing, a session is unknown, or reson failed).
import { RequestError } from "@agentclientprotocol/sdk";
import { type ResonError, toResonError } from "../core/errors.js";

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
  no_provider_configured: AUTH_REQUIRED,
  provider_auth_failed: AUTH_REQUIRED,
  not_found: NOT_FOUND,
};

export function rpcError(error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  const failure = toResonError(error);
  return new RequestError(BY_CODE[failure.code] ?? INTERNAL, failure.message, {
    code: failure.code,
    ...(failure.hint ? { hint: failure.hint } : {}),
    ...(failure.details ? { details: failure.details } : {}),
  });
}
