// TypeBox validators compiled once per schema: compiling costs far more than checking, and
// tool arguments and request bodies are checked against the same few schemas again and again.
import type { TSchema } from "typebox";
import { Compile, type Validator } from "typebox/compile";

const validators = new WeakMap<TSchema, Validator>();

export function validatorFor(schema: TSchema): Validator {
  let validator = validators.get(schema);
  if (!validator) {
    validator = Compile(schema);
    validators.set(schema, validator);
  }
  return validator;
}
