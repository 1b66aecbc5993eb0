// Every command's options, parsed with node:util's parseArgs into reson's usage error: a flag
// the command does not know is named, with the nearest one it does know ("Did you mean
// --workspace?"), and the command's usage as the hint.
import { type ParseArgsConfig, parseArgs } from "node:util";
import { ResonError } from "../core/errors.js";
import { didYouMean } from "./did-you-mean.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

export function parseCommandArgs<T extends ParseArgsConfig>(
  config: T,
  hint: string,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw usageError(error, config.options ?? {}, hint);
  }
}

function usageError(error: unknown, options: Options, hint: string): ResonError {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /^Unknown option '([^']+)'/.exec(message)?.[1];
  if (unknown === undefined) return new ResonError("usage_error", message, { hint });
  // A one-letter flag is too short to guess from; "-workspace" is near "--workspace".
  const long = Object.keys(options).map((name) => `--${name}`);
  const near = unknown.length > 2 ? didYouMean(unknown, long) : "";
  return new ResonError("usage_error", `Unknown option ${unknown}.${near}`, { hint });
}
