// The data modules the CLI bundle carries as literals (scripts/schema-literals.mjs) are the
// same values as the modules compute: every property, TypeBox's hidden markers included.
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Type } from "typebox";
import { Value } from "typebox/value";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { DATA_MODULES, literalModule } from "../../scripts/schema-literals.mjs";
import * as configSchema from "../../src/config/schema.js";
import { type TempDir, tempDir } from "../support/cli.js";

/** Every own property with its flags, recursively: what `toEqual` does not compare. */
function shape(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = { array: Array.isArray(value) };
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(value))) {
    out[key] = {
      value: shape(descriptor.value),
      enumerable: descriptor.enumerable,
      writable: descriptor.writable,
      configurable: descriptor.configurable,
    };
  }
  return out;
}

describe("data modules as literals", () => {
  let dir: TempDir;
  let literal: Record<string, unknown>;
  beforeAll(async () => {
    dir = tempDir();
    const file = join(dir.path, "config-schema.mjs");
    writeFileSync(file, literalModule(configSchema));
    literal = await import(pathToFileURL(file).href);
  });
  afterAll(() => dir.remove());

  it("give every data module's values as the module builds them", async () => {
    for (const source of DATA_MODULES as string[]) {
      const modulePath = resolve(import.meta.dirname, "../..", source);
      const real = (await import(/* @vite-ignore */ pathToFileURL(modulePath).href)) as Record<
        string,
        unknown
      >;
      const file = join(dir.path, `${source.replaceAll("/", "_")}.mjs`);
      writeFileSync(file, literalModule(real));
      const copy = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      expect(Object.keys(copy).sort(), source).toEqual(Object.keys(real).sort());
      for (const name of Object.keys(real))
        expect(shape(copy[name]), `${source} ${name}`).toEqual(shape(real[name]));
    }
  });

  it("give the configuration's schemas and defaults as the module builds them", () => {
    expect(Object.keys(literal).sort()).toEqual(Object.keys(configSchema).sort());
    for (const name of Object.keys(configSchema)) {
      expect(shape(literal[name]), name).toEqual(shape((configSchema as Record<string, unknown>)[name]));
    }
    // TypeBox's markers survive, and TypeBox works on the literal as on the original.
    const schema = literal.PartialConfigSchema as typeof configSchema.PartialConfigSchema;
    expect(Object.getOwnPropertyDescriptor(schema, "~kind")).toMatchObject({
      value: "Object",
      enumerable: false,
    });
    expect(Value.Check(schema, { retry: { maxAttempts: 2 } })).toBe(true);
    expect(Value.Check(schema, { retry: { maxAttempts: 0 } })).toBe(false);
    expect(Value.Check(Type.Partial(schema), {})).toBe(true);
  });

  it("refuse what is not data", () => {
    expect(() => literalModule({ run: () => 1 })).toThrow(/run: a function is not data/);
    expect(() => literalModule({ missing: { value: undefined } })).toThrow(/undefined is not data/);
    expect(() => literalModule({ when: new Date(0) })).toThrow(/an instance of Date/);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => literalModule({ cycle })).toThrow(/cycle/);
    expect(() => literalModule({ big: Number.POSITIVE_INFINITY })).toThrow(/finite/);
  });
});
