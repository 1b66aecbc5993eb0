// Parses the arguments of `reson run` into options, or a usage error saying what is wrong.
import { parseArgs } from "node:util";
import { ResonError } from "../core/errors.js";

export interface RunArgs {
  task: string | "-";
  workspace?: string;
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  maxIterations?: number;
  json: boolean;
  help: boolean;
}

function positiveInteger(flag: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new ResonError(
      "usage_error",
      `${flag} must be a whole number of 1 or more, got ${JSON.stringify(raw)}.`,
    );
  }
  return value;
}

export function parseRunArgs(argv: string[]): RunArgs {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new ResonError("usage_error", (error as Error).message, { hint: "See `reson --help`." });
  }
  const { values, positionals } = parsed;
  const task = positionals.join(" ").trim();
  const help = values.help === true;
  if (!task && !help) {
    throw new ResonError("usage_error", "No task given.", {
      hint: 'Usage: reson run [options] "<task>"  (or "-" to read it from standard input)',
    });
  }
  const args: RunArgs = { task, json: values.json === true, help };
  if (values.workspace !== undefined) args.workspace = values.workspace;
  if (values.provider !== undefined) args.provider = values.provider;
  if (values.model !== undefined) args.model = values.model;
  if (values["base-url"] !== undefined) args.baseUrl = values["base-url"];
  if (values["api-key"] !== undefined) args.apiKey = values["api-key"];
  if (values["max-iterations"] !== undefined) {
    args.maxIterations = positiveInteger("--max-iterations", values["max-iterations"]);
  }
  return args;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      workspace: { type: "string", short: "w" },
      provider: { type: "string", short: "p" },
      model: { type: "string", short: "m" },
      "base-url": { type: "string" },
      "api-key": { type: "string" },
      "max-iterations": { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}
