// A module of plain data written out as literals when the CLI is bundled: its exports
// (TypeBox schemas, defaults) are evaluated once at build time instead of at every start.
// TypeBox marks its schemas with non-enumerable properties ("~kind", "~optional"), which
// are kept as they were. Anything that is not data (a function, a class instance, a cycle)
// fails the build: such a module cannot be replaced by its values.
//   literalModule({ ConfigSchema, DEFAULT_CONFIG }) → "export const ConfigSchema = …"

/** The modules the CLI bundle carries as literals: each exports data only (schemas, defaults). */
export const DATA_MODULES = ["src/config/schema.ts"];

const HIDDEN = "\u0000hidden";

/** `value` as JSON-able data, its hidden properties under HIDDEN; throws at what is not data. */
function plain(value, path, seen) {
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value) || Object.is(value, -0)) throw new Error(`${path}: ${value} is not a finite number`);
    return value;
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
    if (Array.isArray(value)) {
      if (Object.getOwnPropertyNames(value).length !== value.length + 1) throw new Error(`${path}: an array with extra properties`);
      return value.map((item, index) => plain(item, `${path}[${index}]`, seen));
    }
    const out = {};
    const hidden = {};
    for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(value))) {
      if (key === HIDDEN) throw new Error(`${path}: a property named like the hidden marker`);
      if (!("value" in descriptor)) throw new Error(`${path}.${key}: an accessor is not data`);
      if (descriptor.value === undefined) throw new Error(`${path}.${key}: undefined is not data`);
      const item = plain(descriptor.value, `${path}.${key}`, seen);
      if (descriptor.enumerable && descriptor.writable && descriptor.configurable) out[key] = item;
      else if (!descriptor.enumerable && descriptor.writable && descriptor.configurable) hidden[key] = item;
      else throw new Error(`${path}.${key}: a read-only or fixed property`);
    }
    if (Object.keys(hidden).length > 0) out[HIDDEN] = hidden;
    return out;
  } finally {
    seen.delete(value);
  }
}

/**
 * An ES module exporting each entry of `values`: one JSON text (parsed natively, the cheapest
 * way to make many objects) and a walk that makes the hidden properties hidden again.
 */
export function literalModule(values) {
  const data = plain(Object.fromEntries(Object.entries(values)), "module", new Set());
  const names = Object.keys(values);
  return [
    `const hidden = ${JSON.stringify(HIDDEN)};`,
    "function restore(value) {",
    '  if (typeof value !== "object" || value === null) return value;',
    "  if (Array.isArray(value)) {",
    "    for (const item of value) restore(item);",
    "    return value;",
    "  }",
    "  for (const key in value) restore(value[key]);",
    "  const marks = value[hidden];",
    "  if (marks !== undefined) {",
    "    delete value[hidden];",
    "    for (const key in marks) Object.defineProperty(value, key, { value: marks[key], writable: true, configurable: true, enumerable: false });",
    "  }",
    "  return value;",
    "}",
    `const data = restore(JSON.parse(${JSON.stringify(JSON.stringify(data))}));`,
    ...names.map((name) => `export const ${name} = data[${JSON.stringify(name)}];`),
  ].join("\n");
}
