// An MCP server's input schema as reson checks arguments against it: without its regular
// expressions. A `pattern` (or a `patternProperties` key) is compiled and run by JavaScript's
// backtracking engine on the loop's thread, so a server that sends `^(a+)+$` could stall a run on
// one argument for minutes; the server checks its own input anyway. The model is still shown the
// whole schema. Where `patternProperties` goes, `additionalProperties` goes too (looser, never
// stricter: a property those patterns allowed must not be refused).

type Schema = Record<string, unknown>;

const SCHEMA_MAPS = ["properties", "$defs", "definitions", "dependentSchemas"];
const SCHEMA_ONE = [
  "items",
  "additionalItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
];
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `schema` with no `pattern` and no `patternProperties` at any depth. */
export function schemaWithoutPatterns(schema: Schema): Schema {
  const out: Schema = { ...schema };
  if (typeof out.pattern === "string") delete out.pattern;
  if (out.patternProperties !== undefined) {
    delete out.patternProperties;
    delete out.additionalProperties;
  }
  for (const key of SCHEMA_MAPS) {
    const map = out[key];
    if (!isSchema(map)) continue;
    out[key] = Object.fromEntries(
      Object.entries(map).map(([name, sub]) => [name, isSchema(sub) ? schemaWithoutPatterns(sub) : sub]),
    );
  }
  for (const key of SCHEMA_ONE) if (isSchema(out[key])) out[key] = schemaWithoutPatterns(out[key] as Schema);
  for (const key of SCHEMA_LISTS) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((sub) => (isSchema(sub) ? schemaWithoutPatterns(sub) : sub));
  }
  return out;
}
