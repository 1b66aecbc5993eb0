// Validating a tool call's arguments against the tool's TypeBox schema before it runs.
// Primitives are coerced first the way pi-ai does ("42" -> 42, "true" -> true), and a
// failure becomes a message the model can act on: which argument, what was expected, what
// was received, and the tool's full argument list.
import type { TSchema } from "typebox";
import type { TLocalizedValidationError } from "typebox/error";
import { ResonError } from "../core/errors.js";
import { validatorFor } from "../core/schema-validator.js";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value at a JSON pointer ("/a/0/b") inside `root`. */
function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isRecord(value) && !Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function fieldName(pointer: string): string {
  const path = pointer.split("/").slice(1).join(".");
  return path === "" ? "(arguments)" : path;
}

function shown(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function typeName(schema: unknown): string {
  if (!isRecord(schema)) return "any";
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (Array.isArray(schema.anyOf)) return schema.anyOf.map(typeName).join(" | ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (typeof schema.type === "string") {
    return schema.type === "array" ? `${typeName(schema.items)}[]` : schema.type;
  }
  return "any";
}

/** "path: string, offset?: integer" from an object schema. */
export function describeArguments(schema: TSchema): string {
  const object = schema as unknown as Record<string, unknown>;
  const properties = isRecord(object.properties) ? object.properties : {};
  const required = new Set(Array.isArray(object.required) ? (object.required as string[]) : []);
  const names = Object.keys(properties);
  if (names.length === 0) return "(no arguments)";
  return names
    .map((name) => `${name}${required.has(name) ? "" : "?"}: ${typeName(properties[name])}`)
    .join(", ");
}

function problemLines(errors: readonly TLocalizedValidationError[], received: unknown): string[] {
  const lines: string[] = [];
  const unknown = new Set<string>();
  for (const error of errors) {
    if (error.keyword === "additionalProperties") {
      for (const name of error.params.additionalProperties) unknown.add(name);
    }
  }
  for (const name of unknown) lines.push(`- ${name}: unknown argument`);
  for (const error of errors) {
    const field = fieldName(error.instancePath);
    switch (error.keyword) {
      case "additionalProperties":
        break;
      case "boolean":
        // The "schema is false" twin of an additionalProperties error.
        if (!unknown.has(field)) lines.push(`- ${field}: not allowed`);
        break;
      case "required":
        for (const name of error.params.requiredProperties) {
          lines.push(`- ${error.instancePath === "" ? name : `${field}.${name}`}: missing (required)`);
        }
        break;
      case "type":
        lines.push(
          `- ${field}: expected ${error.params.type}, received ${shown(valueAt(received, error.instancePath))}`,
        );
        break;
      default:
        lines.push(`- ${field}: ${error.message}, received ${shown(valueAt(received, error.instancePath))}`);
    }
  }
  return [...new Set(lines)];
}

export type ValidationOutcome =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; error: ResonError };

export function validateArguments(toolName: string, schema: TSchema, received: unknown): ValidationOutcome {
  const signature = `${toolName}(${describeArguments(schema)})`;
  if (!isRecord(received)) {
    return {
      ok: false,
      error: new ResonError("tool_invalid_arguments", `Arguments for ${toolName} must be a JSON object.`, {
        hint: `Call it as ${signature}.`,
        details: { tool: toolName },
      }),
    };
  }
  const validator = validatorFor(schema);
  const value = validator.Convert(structuredClone(received));
  if (validator.Check(value) && isRecord(value)) return { ok: true, value };
  const problems = problemLines(validator.Errors(value), received);
  return {
    ok: false,
    error: new ResonError(
      "tool_invalid_arguments",
      `Invalid arguments for ${toolName}:\n${problems.join("\n")}`,
      {
        hint: `Call it as ${signature}.`,
        details: { tool: toolName, problems },
      },
    ),
  };
}
