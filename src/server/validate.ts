// Checking a request part (path params, query, body) against its TypeBox schema. A failure
// is invalid_request (400) listing every problem by JSON pointer, so a client can fix them all
// at once; what was received is not echoed back.
import type { TSchema } from "typebox";
import type { TLocalizedValidationError } from "typebox/error";
import { ResonError } from "../core/errors.js";
import { validatorFor } from "../core/schema-validator.js";
import type { Problem } from "./http-errors.js";

function escapePointer(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}

function problemsFrom(errors: readonly TLocalizedValidationError[]): Problem[] {
  const problems: Problem[] = [];
  for (const error of errors) {
    const at = error.instancePath;
    if (error.keyword === "required") {
      for (const name of error.params.requiredProperties) {
        problems.push({ path: `${at}/${escapePointer(name)}`, message: "is required" });
      }
    } else if (error.keyword === "additionalProperties") {
      for (const name of error.params.additionalProperties) {
        problems.push({ path: `${at}/${escapePointer(name)}`, message: "is not a known property" });
      }
    } else if (error.keyword !== "boolean") {
      // "boolean" is the schema-is-false twin of an additionalProperties error.
      problems.push({ path: at, message: error.message });
    }
  }
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export type RequestPart = "body" | "query" | "path";

/**
 * The value checked against `schema`. Query and path values arrive as strings, so they are
 * converted first ("5" -> 5, "true" -> true); a body is JSON and is taken as sent.
 */
export function validateRequestPart<T>(schema: TSchema, value: unknown, part: RequestPart): T {
  const validator = validatorFor(schema);
  const candidate = part === "body" ? value : validator.Convert(value);
  if (validator.Check(candidate)) return candidate as T;
  const problems = problemsFrom(validator.Errors(candidate));
  const where = part === "path" ? "path" : part === "query" ? "query string" : "request body";
  throw new ResonError(
    "invalid_request",
    `The ${where} is not valid: ${problems.map((p) => `${p.path || "/"} ${p.message}`).join("; ")}.`,
    { hint: "Fix the listed fields; /openapi.json describes every route.", details: { problems, part } },
  );
}
