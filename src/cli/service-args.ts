// The flags `reson serve` and `reson worker` share (grace, prompt timeout, lease TTL, log format,
// help) parsed once, with each command's own flags beside them; every bad value is a usage
// error that says what a good one looks like.
import { join, resolve } from "node:path";
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import { type ChannelsConfig, loadConfig, type ResonConfig } from "../config/index.js";
import { ResonError } from "../core/errors.js";
import { parseDuration } from "../store/index.js";
import { type LogFormat, parseLogFormat } from "./service-log.js";

const COMMON = {
  grace: { type: "string" },
  "prompt-timeout": { type: "string" },
  "lease-ttl": { type: "string" },
  "log-format": { type: "string" },
  "metrics-port": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type Values<T extends ParseArgsOptionsConfig> = {
  [K in keyof T]?: T[K] extends { multiple: true }
    ? string[]
    : T[K] extends { type: "boolean" }
      ? boolean
      : string;
};

export interface ServiceArgs<T extends ParseArgsOptionsConfig> {
  /** The command's own flags, as given. */
  values: Values<T>;
  help: boolean;
  graceMs: number;
  promptTimeoutMs: number;
  ttlMs: number;
  logFormat: LogFormat;
  /** --metrics-port: /metrics without a token on 127.0.0.1 only. */
  metricsPort: number | undefined;
  /** The config's telemetry section (OpenTelemetry endpoint, content on spans). */
  telemetry: ResonConfig["telemetry"];
  /**
   * serve.workspaceRoots of the user's own $RESON_HOME/config.json (never a project's: a
   * folder's config must not widen what requests may reach), absolute.
   */
  workspaceRoots: string[];
  /** channels of the user's own $RESON_HOME/config.json (never a project's). */
  channels: ChannelsConfig | undefined;
}

export async function parseServiceArgs<T extends ParseArgsOptionsConfig>(
  argv: string[],
  own: T,
): Promise<ServiceArgs<T>> {
  const { values } = parseArgs({ args: argv, options: { ...COMMON, ...own }, strict: true });
  const common = values as Record<string, string | boolean | undefined>;
  const text = (name: string) => common[name] as string | undefined;
  const loaded = await loadConfig({ workspace: process.cwd() });
  const { config } = loaded;
  const userFile = join(loaded.home, "config.json");
  const userValues = loaded.sources.find((s) => s.name === userFile)?.values;
  const userRoots = userValues?.serve?.workspaceRoots ?? [];
  return {
    values: values as Values<T>,
    help: common.help === true,
    graceMs: durationFlag("grace", text("grace"), 30_000),
    promptTimeoutMs: durationFlag("prompt-timeout", text("prompt-timeout"), 300_000),
    ttlMs: durationFlag("lease-ttl", text("lease-ttl"), config.lease.ttlMs),
    logFormat: parseLogFormat(text("log-format"), process.stderr),
    metricsPort:
      text("metrics-port") === undefined ? undefined : portFlag(text("metrics-port")!, "--metrics-port"),
    telemetry: config.telemetry,
    workspaceRoots: userRoots.map((root) => resolve(loaded.home, root)),
    channels: userValues?.channels,
  };
}

/** A whole number flag of at least `min` (default 1). */
export function positiveIntFlag(name: string, value: string, min = 1): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new ResonError("usage_error", `--${name} must be a whole number of at least ${min}.`);
  return n;
}

/** A duration flag (30s, 5m, 1h); absent: the fallback. */
export function durationFlag(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  try {
    return parseDuration(value);
  } catch {
    throw new ResonError("usage_error", `--${name} must be a duration such as 30s, 5m or 1h.`);
  }
}

/** A port flag: 0 (any free port) to 65535. */
export function portFlag(value: string, flag = "--port"): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new ResonError("usage_error", `${flag} must be a number from 0 to 65535.`);
  return n;
}
