// Configuration read from RESON_* environment variables, as a partial config.
import { ResonError } from "../core/errors.js";
import type { PartialConfig } from "./schema.js";

type Setter = (config: PartialConfig, value: string) => void;

function integer(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value)) {
    throw new ResonError("config_invalid", `${name}=${JSON.stringify(raw)} is not an integer.`, {
      hint: `Set ${name} to a whole number or unset it.`,
    });
  }
  return value;
}

const SETTERS: Record<string, Setter> = {
  RESON_PROVIDER: (c, v) => {
    c.provider = v as PartialConfig["provider"];
  },
  RESON_MODEL: (c, v) => {
    c.model = v;
  },
  RESON_BASE_URL: (c, v) => {
    c.baseUrl = v;
  },
  RESON_CONTEXT_WINDOW: (c, v) => {
    c.contextWindow = integer("RESON_CONTEXT_WINDOW", v);
  },
  RESON_MAX_ITERATIONS: (c, v) => {
    c.maxIterations = integer("RESON_MAX_ITERATIONS", v);
  },
  RESON_RETRY_MAX_ATTEMPTS: (c, v) => {
    c.retry = { ...c.retry, maxAttempts: integer("RESON_RETRY_MAX_ATTEMPTS", v) };
  },
  RESON_RETRY_BASE_DELAY_MS: (c, v) => {
    c.retry = { ...c.retry, baseDelayMs: integer("RESON_RETRY_BASE_DELAY_MS", v) };
  },
  RESON_RETRY_MAX_DELAY_MS: (c, v) => {
    c.retry = { ...c.retry, maxDelayMs: integer("RESON_RETRY_MAX_DELAY_MS", v) };
  },
  RESON_HEADERS_TIMEOUT_MS: (c, v) => {
    c.timeouts = { ...c.timeouts, headersMs: integer("RESON_HEADERS_TIMEOUT_MS", v) };
  },
  RESON_IDLE_TIMEOUT_MS: (c, v) => {
    c.timeouts = { ...c.timeouts, idleMs: integer("RESON_IDLE_TIMEOUT_MS", v) };
  },
  RESON_COMMAND_TIMEOUT_MS: (c, v) => {
    c.tools = { ...c.tools, commandTimeoutMs: integer("RESON_COMMAND_TIMEOUT_MS", v) };
  },
};

export const CONFIG_ENV_VARS = Object.keys(SETTERS);

export function configFromEnv(env: NodeJS.ProcessEnv): PartialConfig {
  const config: PartialConfig = {};
  for (const [name, set] of Object.entries(SETTERS)) {
    const raw = env[name]?.trim();
    if (raw) set(config, raw);
  }
  return config;
}
