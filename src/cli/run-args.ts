// Parses the arguments of `reson run` and `reson resume` into options, or a usage error
// saying what is wrong.
import { ResonError } from "../core/errors.js";
import type { RunLimits } from "../core/usage.js";
import { parseDuration } from "../store/index.js";
import { parseCommandArgs } from "./command-args.js";
import { didYouMean } from "./did-you-mean.js";
import { COMMAND_NAMES, unknownCommandText } from "./help.js";

export interface ModelArgs {
  workspace?: string;
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  maxIterations?: number;
  /** --max-tokens, --max-cost, --max-time: the run's hard limits (its sub-agents included). */
  limits: RunLimits;
  permissionMode?: string;
  allow: string[];
  deny: string[];
  /** "off": commands run without the OS sandbox (the user's explicit choice). */
  sandbox: "on" | "off";
  /** --browser headed: the run's browser shows its window (for watching); default headless. */
  browserHeaded: boolean;
  /** An agent type: explore, plan, analyst, evaluate, default, or one from presets.json. */
  preset?: string;
  /** Work in a broad folder (home, above it, holding $RESON_HOME) for this run, untrusted. */
  trustWorkspace: boolean;
  /** --allow-mcp NAME: start the project's MCP server NAME without asking. */
  allowMcp: string[];
  json: boolean;
  /** ask_human reads the user's answers from standard input, one line each. */
  interactiveStdin: boolean;
  help: boolean;
}

export interface RunArgs extends ModelArgs {
  /** The task; "-" reads it from standard input; empty with --continue resumes. */
  task: string;
  continue: boolean;
  /** With --continue and no task: take over the run although its expired lease has a live holder. */
  force: boolean;
}

export interface ResumeArgs extends ModelArgs {
  id: string;
  /** Take over a run whose lease expired although its holder is still alive (stopped, stuck). */
  force: boolean;
}

const MODEL_OPTIONS = {
  workspace: { type: "string", short: "w" },
  provider: { type: "string", short: "p" },
  model: { type: "string", short: "m" },
  "base-url": { type: "string" },
  "api-key": { type: "string" },
  "max-iterations": { type: "string" },
  "max-tokens": { type: "string" },
  "max-cost": { type: "string" },
  "max-time": { type: "string" },
  "permission-mode": { type: "string" },
  allow: { type: "string", multiple: true },
  deny: { type: "string", multiple: true },
  sandbox: { type: "string" },
  browser: { type: "string" },
  preset: { type: "string" },
  "trust-workspace": { type: "boolean" },
  "allow-mcp": { type: "string", multiple: true },
  json: { type: "boolean" },
  "interactive-stdin": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

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

function positiveAmount(flag: string, raw: string): number {
  const value = Number(raw.replace(/^\$/, ""));
  if (!Number.isFinite(value) || value <= 0) {
    throw new ResonError("usage_error", `${flag} must be an amount above 0, got ${JSON.stringify(raw)}.`, {
      hint: `e.g. ${flag} 0.50 (US dollars).`,
    });
  }
  return value;
}

function duration(flag: string, raw: string): number {
  try {
    const ms = parseDuration(raw);
    if (ms > 0) return ms;
  } catch {
    // said below, with the flag's name
  }
  throw new ResonError(
    "usage_error",
    `${flag} must be a duration such as 90s, 10m or 2h, got ${JSON.stringify(raw)}.`,
  );
}

/** The hard limits given as flags. */
function limitArgs(values: Record<string, string | boolean | string[] | undefined>): RunLimits {
  const limits: RunLimits = {};
  const tokens = values["max-tokens"];
  const cost = values["max-cost"];
  const time = values["max-time"];
  if (typeof tokens === "string") limits.maxTokens = positiveInteger("--max-tokens", tokens);
  if (typeof cost === "string") limits.maxCostUsd = positiveAmount("--max-cost", cost);
  if (typeof time === "string") limits.maxWallMs = duration("--max-time", time);
  return limits;
}

function parse<T extends Record<string, { type: "string" | "boolean"; short?: string }>>(
  argv: string[],
  extra: T,
) {
  return parseCommandArgs(
    { args: argv, allowPositionals: true, strict: true, options: { ...MODEL_OPTIONS, ...extra } },
    "See `reson --help`.",
  );
}

function sandboxChoice(value: unknown): "on" | "off" {
  if (value === undefined || value === "on") return "on";
  if (value === "off") return "off";
  throw new ResonError("usage_error", `--sandbox takes on or off, got ${JSON.stringify(value)}.`, {
    hint: "--sandbox off runs commands without the OS sandbox; `reson doctor` shows what the sandbox needs.",
  });
}

function browserChoice(value: unknown): boolean {
  if (value === undefined || value === "headless") return false;
  if (value === "headed") return true;
  throw new ResonError("usage_error", `--browser takes headless or headed, got ${JSON.stringify(value)}.`, {
    hint: "--browser headed shows the browser's window, to watch the agent browse.",
  });
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function modelArgs(values: Record<string, string | boolean | string[] | undefined>): ModelArgs {
  const args: ModelArgs = {
    json: values.json === true,
    interactiveStdin: values["interactive-stdin"] === true,
    help: values.help === true,
    allow: strings(values.allow),
    deny: strings(values.deny),
    sandbox: sandboxChoice(values.sandbox),
    browserHeaded: browserChoice(values.browser),
    trustWorkspace: values["trust-workspace"] === true,
    allowMcp: strings(values["allow-mcp"]),
    limits: limitArgs(values),
  };
  if (typeof values["permission-mode"] === "string") args.permissionMode = values["permission-mode"];
  if (typeof values.preset === "string") args.preset = values.preset;
  if (typeof values.workspace === "string") args.workspace = values.workspace;
  if (typeof values.provider === "string") args.provider = values.provider;
  if (typeof values.model === "string") args.model = values.model;
  if (typeof values["base-url"] === "string") args.baseUrl = values["base-url"];
  if (typeof values["api-key"] === "string") args.apiKey = values["api-key"];
  if (typeof values["max-iterations"] === "string") {
    args.maxIterations = positiveInteger("--max-iterations", values["max-iterations"]);
  }
  return args;
}

export function parseRunArgs(argv: string[]): RunArgs {
  const { values, positionals } = parse(argv, {
    continue: { type: "boolean", short: "c" },
    force: { type: "boolean" },
  });
  const task = positionals.join(" ").trim();
  const args: RunArgs = {
    ...modelArgs(values),
    task,
    continue: values.continue === true,
    force: values.force === true,
  };
  if (args.force && (task || !args.continue)) {
    throw new ResonError("usage_error", "--force is for taking over a run to resume it.", {
      hint: "Use `reson resume <id> --force`, or `reson run --continue --force` with no task.",
    });
  }
  if (task === "-" && args.interactiveStdin) {
    throw new ResonError(
      "usage_error",
      "With --interactive-stdin, standard input carries the answers to ask_human, not the task.",
      { hint: 'Give the task as an argument: reson run --interactive-stdin "<task>"' },
    );
  }
  if (!task && !args.help && !args.continue) {
    throw new ResonError("usage_error", "No task given.", {
      hint: 'Usage: reson run [options] "<task>"  (or "-" to read it from standard input; --continue to resume)',
    });
  }
  return args;
}

export function parseResumeArgs(argv: string[]): ResumeArgs {
  const { values, positionals } = parse(argv, { force: { type: "boolean" } });
  const args: ResumeArgs = { ...modelArgs(values), id: positionals[0] ?? "", force: values.force === true };
  if (positionals.length > 1) {
    throw new ResonError("usage_error", "reson resume takes one id.", {
      hint: "Usage: reson resume <id-or-prefix>",
    });
  }
  if (!args.id && !args.help) {
    throw new ResonError("usage_error", "No run or session id given.", {
      hint: "Usage: reson resume <id-or-prefix>; `reson sessions` lists them.",
    });
  }
  return args;
}

export interface ReplArgs extends ModelArgs {
  continue: boolean;
}

/** `reson [options]`: the interactive terminal takes the run options, and no task. */
export function parseReplArgs(argv: string[]): ReplArgs {
  const { values, positionals } = parse(argv, { continue: { type: "boolean", short: "c" } });
  if (positionals.length > 0) {
    const typed = positionals[0] ?? "";
    throw new ResonError(
      "usage_error",
      unknownCommandText(
        typed,
        didYouMean(typed, COMMAND_NAMES, (c) => `reson ${c}`),
      ),
      { hint: '`reson` alone opens the interactive terminal; `reson run "<task>"` runs one task.' },
    );
  }
  const args: ReplArgs = { ...modelArgs(values), continue: values.continue === true };
  if (args.json)
    throw new ResonError("usage_error", "--json is for `reson run`, not the interactive terminal.");
  if (args.interactiveStdin)
    throw new ResonError(
      "usage_error",
      "--interactive-stdin is for `reson run`; the interactive terminal asks you directly.",
    );
  return args;
}
