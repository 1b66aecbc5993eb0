// How a failure leaves the server: one HTTP status per error code and one JSON shape,
// { error: { code, message, hint?, problems? } }. Never a stack, never details that could
// carry user data; message and hint pass through the redactor, as every other sink does.
import { type Static, Type } from "typebox";
import { type ErrorCode, ResonError, toResonError } from "../core/errors.js";

const STATUS_BY_CODE: Partial<Record<ErrorCode, number>> = {
  not_found: 404,
  goal_not_found: 404,
  file_not_found: 404,
  usage_error: 400,
  invalid_request: 400,
  config_invalid: 400,
  ambiguous_id: 400,
  unauthorized: 401,
  channel_signature_invalid: 401,
  forbidden: 403,
  workspace_refused: 403,
  workspace_untrusted: 403,
  workspace_invalid: 400,
  path_invalid: 400,
  not_a_directory: 400,
  path_outside_workspace: 403,
  method_not_allowed: 405,
  run_leased: 409,
  session_busy: 409,
  prompt_closed: 409,
  snapshot_missing: 404,
  rewind_conflict: 409,
  idempotency_conflict: 409,
  store_conflict: 409,
  workspace_exists: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  store_unavailable: 503,
  // Only a request cut short by the server's own shutdown ends this way.
  aborted: 503,
};

export function httpStatusFor(code: ErrorCode): number {
  return STATUS_BY_CODE[code] ?? 500;
}

/** Where in a request body a value was wrong, as a JSON pointer, and what was wrong. */
export const ProblemSchema = Type.Object({
  path: Type.String({ description: "JSON pointer into the request body, e.g. /limits/maxSteps" }),
  message: Type.String(),
});
export type Problem = Static<typeof ProblemSchema>;

export const ErrorBodySchema = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: "stable error code, e.g. not_found, unauthorized" }),
      message: Type.String(),
      hint: Type.Optional(Type.String({ description: "what to do next" })),
      problems: Type.Optional(Type.Array(ProblemSchema)),
    }),
  },
  { $id: "Error" },
);
export type ErrorBody = Static<typeof ErrorBodySchema>;

function problemsOf(error: ResonError): Problem[] | undefined {
  const problems = error.details?.problems;
  if (!Array.isArray(problems)) return undefined;
  const valid = problems.filter(
    (p): p is Problem =>
      typeof p === "object" && p !== null && typeof p.path === "string" && typeof p.message === "string",
  );
  return valid.length > 0 ? valid : undefined;
}

export interface HttpError {
  status: number;
  body: ErrorBody;
}

/**
 * The response for anything thrown by a route. An error that is not a ResonError is a bug:
 * its message (which may hold anything) stays in the server's log, the client gets a code.
 */
export function httpErrorFrom(thrown: unknown, redact: (text: string) => string = (text) => text): HttpError {
  const error =
    thrown instanceof ResonError
      ? thrown
      : new ResonError("internal_error", "The server failed on this request.", {
          hint: "The server's log has the details; try again, and report it if it persists.",
          cause: toResonError(thrown),
        });
  const status = httpStatusFor(error.code);
  const body: ErrorBody = { error: { code: error.code, message: redact(error.message) } };
  if (error.hint !== undefined) body.error.hint = redact(error.hint);
  const problems = problemsOf(error);
  if (problems) body.error.problems = problems.map((p) => ({ path: p.path, message: redact(p.message) }));
  return { status, body };
}
