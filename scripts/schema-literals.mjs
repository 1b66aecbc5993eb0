// A module of plain data written out as literals when the CLI is bundled: its exports
// (TypeBox schemas, defaults) are evaluated once at build time instead of at every start.
// TypeBox marks its schemas with non-enumerable properties ("~kind", "~optional"), which
// are kept as they were. Anything that is not data (a function, a class instance, a cycle)
// fails the build: such a module cannot be replaced by its values.
//   literalModule({ ConfigSchema, DEFAULT_CONFIG }) → "export const ConfigSchema = …"

function literal(value, path, seen) {
  if (value === undefined) return "undefined";
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`${path}: ${value} is not a finite number`);
    return Object.is(value, -0) ? "-0" : String(value);
  }
  if (typeof value !== "object") throw new Error(`${path}: a ${typeof value} is not data`);
  if (seen.has(value)) throw new Error(`${path}: a cycle`);
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) {
    throw new Error(`${path}: an instance of ${proto?.constructor?.name ?? "?"} is not data`);
  }
  if (Object.getOwnPropertySymbols(value).length > 0) throw new Error(`${path}: symbol keys are not data`);
  seen.add(value);
  try {
    const descriptors = Object.getOwnPropertyDescriptors(value);
    const hidden = [];
    const parts = [];
    for (const [key, descriptor] of Object.entries(descriptors)) {
      if (Array.isArray(value) && key === "length") continue;
      if (!("value" in descriptor)) throw new Error(`${path}.${key}: an accessor is not data`);
      const text = literal(descriptor.value, `${path}.${key}`, seen);
      if (descriptor.enumerable && descriptor.writable && descriptor.configurable) {
        parts.push(Array.isArray(value) ? text : `${JSON.stringify(key)}: ${text}`);
      } else {
        if (Array.isArray(value)) throw new Error(`${path}.${key}: a hidden array element`);
        hidden.push(
          `${JSON.stringify(key)}: { value: ${text}, enumerable: ${descriptor.enumerable}, writable: ${descriptor.writable}, configurable: ${descriptor.configurable} }`,
        );
      }
    }
    const body = Array.isArray(value) ? `[${parts.join(", ")}]` : `{ ${parts.join(", ")} }`;
    return hidden.length > 0 ? `Object.defineProperties(${body}, { ${hidden.join(", ")} })` : body;
  } finally {
    seen.delete(value);
  }
}

/** An ES module exporting each entry of `values` as the literal of its value. */
export function literalModule(values) {
  return Object.entries(values)
    .map(([name, value]) => `export const ${name} = ${literal(value, name, new Set())};`)
    .join("\n");
}
