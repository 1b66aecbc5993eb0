// Configuration read from RESON_* environment variables, as a partial config.
import { ResonError } from "../core/errors.js";
import type { PartialConfig } from "./schema.js";

type Kind = "string" | "integer" | "number" | "boolean";

/** Each variable and where it lands in the config: [top-level key] or [section, key]. */
const VARIABLES: ReadonlyArray<readonly [name: string, path: readonly string[], kind: Kind]> = [
  ["RESON_PROVIDER", ["provider"], "string"],
  ["RESON_MODEL", ["model"], "string"],
  ["RESON_BASE_URL", ["baseUrl"], "string"],
  ["RESON_CONTEXT_WINDOW", ["contextWindow"], "integer"],
  ["RESON_SUMMARY_MODEL", ["summaryModel"], "string"],
  ["RESON_CONTEXT_BUDGET_RATIO", ["contextBudgetRatio"], "number"],
  ["RESON_MAX_ITERATIONS", ["maxIterations"], "integer"],
  ["RESON_RETRY_MAX_ATTEMPTS", ["retry", "maxAttempts"], "integer"],
  ["RESON_RETRY_BASE_DELAY_MS", ["retry", "baseDelayMs"], "integer"],
  ["RESON_RETRY_MAX_DELAY_MS", ["retry", "maxDelayMs"], "integer"],
  ["RESON_HEADERS_TIMEOUT_MS", ["timeouts", "headersMs"], "integer"],
  ["RESON_IDLE_TIMEOUT_MS", ["timeouts", "idleMs"], "integer"],
  ["RESON_COMMAND_TIMEOUT_MS", ["tools", "commandTimeoutMs"], "integer"],
  ["RESON_COMMAND_DISK_BYTES", ["tools", "commandDiskBytes"], "integer"],
  ["RESON_EMBEDDINGS_PROVIDER", ["embeddings", "provider"], "string"],
  ["RESON_MEMORY", ["memory", "enabled"], "boolean"],
  ["RESON_MEMORY_REFLECT", ["memory", "reflect"], "string"],
  ["RESON_MEMORY_HOLDOUT", ["memory", "holdout"], "number"],
  ["RESON_EMBEDDINGS_MODEL", ["embeddings", "model"], "string"],
  ["RESON_EMBEDDINGS_BASE_URL", ["embeddings", "baseUrl"], "string"],
  ["RESON_EMBEDDINGS_DIMENSIONS", ["embeddings", "dimensions"], "integer"],
  ["RESON_LEASE_TTL_MS", ["lease", "ttlMs"], "integer"],
  ["RESON_SNAPSHOTS", ["snapshots", "enabled"], "boolean"],
];

export const CONFIG_ENV_VARS = VARIABLES.map(([name]) => name);

function parse(name: string, raw: string, kind: Kind): string | number | boolean {
  if (kind === "string") return raw;
  if (kind === "boolean") {
    if (/^(1|true|on|yes)$/i.test(raw)) return true;
    if (/^(0|false|off|no)$/i.test(raw)) return false;
    throw new ResonError("config_invalid", `${name}=${JSON.stringify(raw)} is not on or off.`, {
      hint: `Set ${name} to on or off (or 1 / 0), or unset it.`,
    });
  }
  const value = Number(raw);
  if (kind === "number" && Number.isFinite(value)) return value;
  if (!Number.isInteger(value)) {
    throw new ResonError("config_invalid", `${name}=${JSON.stringify(raw)} is not an integer.`, {
      hint: `Set ${name} to a whole number or unset it.`,
    });
  }
  return value;
}

export function configFromEnv(env: NodeJS.ProcessEnv): PartialConfig {
  const config: Record<string, unknown> = {};
  for (const [name, path, kind] of VARIABLES) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const value = parse(name, raw, kind);
    const [first, second] = path as [string, string | undefined];
    if (second === undefined) {
      config[first] = value;
      continue;
    }
    config[first] = { ...(config[first] as Record<string, unknown> | undefined), [second]: value };
  }
  // Shape and ranges are checked by the caller against the schema, naming "environment".
  return config as PartialConfig;
}
