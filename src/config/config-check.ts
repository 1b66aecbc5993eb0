// Whether a value is a whole or a partial configuration. The CLI bundle replaces this module
// with the same checks generated from these schemas when it is built (scripts/schema-checks.mjs),
// which run without TypeBox's schema engine: loading and warming that engine for the first
// check was ~4 ms of every start.
import { typeboxValue } from "../core/typebox-runtime.js";
import { ConfigSchema, type PartialConfig, PartialConfigSchema, type ResonConfig } from "./schema.js";

export function isPartialConfig(value: unknown): value is PartialConfig {
  return typeboxValue().Check(PartialConfigSchema, value);
}

export function isConfig(value: unknown): value is ResonConfig {
  return typeboxValue().Check(ConfigSchema, value);
}
