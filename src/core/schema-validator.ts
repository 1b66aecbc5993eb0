// TypeBox validators compiled once per schema: compiling costs far more than checking, and
// tool arguments and request bodies are checked against the same few schemas again and again.
import type { TSchema } from "typebox";
import type { Validator } from "typebox/compile";
import { typeboxCompile } from "./typebox-runtime.js";

const validators = new WeakMap<TSchema, Validator>();

export function validatorFor(schema: TSchema): Validator {
  let validator = validators.get(schema);
  if (!validator) {
    validator = typeboxCompile()(schema);
    validators.set(schema, validator);
  }
  return validator;
}
