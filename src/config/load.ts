// Loads the one merged, validated config:
// defaults < $RESON_HOME/config.json < <workspace>/.reson/config.json < env < flags.
// Each source is validated on its own, so an error names the file and the field.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ResonError } from "../core/errors.js";
import { typeboxValue } from "../core/typebox-runtime.js";
import { isConfig, isPartialConfig } from "./config-check.js";
import { configFromEnv } from "./env.js";
import { resonHome } from "./home.js";
import { DEFAULT_CONFIG, type PartialConfig, PartialConfigSchema, type ResonConfig } from "./schema.js";

export interface ConfigSource {
  /** "defaults", a file path, "environment" or "flags". */
  name: string;
  values: PartialConfig;
}

export interface LoadedConfig {
  config: ResonConfig;
  /** The sources that contributed, lowest precedence first. */
  sources: ConfigSource[];
  home: string;
  /** Things the user should know (ignored fields and why). */
  warnings: string[];
}

export interface LoadConfigOptions {
  workspace: string;
  env?: NodeJS.ProcessEnv;
  flags?: PartialConfig;
  /**
   * A registered workspace's settings (`reson workspace settings`): the user's own values for
   * runs in it, over $RESON_HOME/config.json and under the project's file, the environment and flags.
   */
  workspaceSettings?: { name: string; values: unknown };
}

function describeErrors(schema: typeof PartialConfigSchema, value: unknown): string {
  return typeboxValue()
    .Errors(schema, value)
    .filter((e) => e.keyword !== "boolean")
    .map((e) => {
      const where = e.instancePath ? e.instancePath.slice(1).replaceAll("/", ".") : "(top level)";
      const extra = e.keyword === "additionalProperties" ? ` (${JSON.stringify(e.params)})` : "";
      return `${where}: ${e.message}${extra}`;
    })
    .join("; ");
}

export function validatePartialConfig(name: string, value: unknown): PartialConfig {
  if (isPartialConfig(value)) return value;
  throw new ResonError(
    "config_invalid",
    `Invalid configuration in ${name}: ${describeErrors(PartialConfigSchema, value)}`,
    {
      hint: `Fix or remove the listed fields in ${name}.`,
    },
  );
}

function readConfigFile(path: string): PartialConfig | undefined {
  let text: string;
  try {
    // A small file, read synchronously: a trip through the thread pool costs more than the read.
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ResonError("config_invalid", `Cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ResonError("config_invalid", `${path} is not valid JSON: ${(error as Error).message}`, {
      hint: "Fix the JSON syntax or delete the file.",
    });
  }
  return validatePartialConfig(path, parsed);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function merge<T extends Record<string, unknown>>(base: T, over: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? merge(current, value) : value;
  }
  return out as T;
}

/**
 * A project's files come with the repository, so they may not point the model calls at
 * another server: that would send the user's API key wherever the repository says.
 */
function withoutKeyRedirect(file: string, values: PartialConfig, warnings: string[]): PartialConfig {
  let out = values;
  if (out.baseUrl !== undefined) {
    warnings.push(
      `Ignored "baseUrl" in ${file}: a project file cannot redirect model calls (and your API key). ` +
        "Set it in $RESON_HOME/config.json, RESON_BASE_URL or --base-url instead.",
    );
    const { baseUrl: _ignored, ...rest } = out;
    out = rest;
  }
  if (out.embeddings?.baseUrl !== undefined) {
    warnings.push(
      `Ignored "embeddings.baseUrl" in ${file}: a project file cannot redirect embedding calls (your memory and your API key). ` +
        "Set it in $RESON_HOME/config.json or RESON_EMBEDDINGS_BASE_URL instead.",
    );
    const { baseUrl: _ignored, ...embeddings } = out.embeddings;
    out = { ...out, embeddings };
  }
  return out;
}

/**
 * Nor may they widen what the agent reaches or trusts: the loopback and private hosts web_fetch
 * and the browser may open, and MCP servers whose results count as trusted, are the user's word.
 */
function withoutTrustWidening(file: string, values: PartialConfig, warnings: string[]): PartialConfig {
  let out = values;
  for (const section of ["web", "browser"] as const) {
    const current = out[section];
    if (current?.allowPrivateHosts === undefined) continue;
    warnings.push(
      `Ignored "${section}.allowPrivateHosts" in ${file}: a project file cannot open the local network to the agent. ` +
        "Set web.allowPrivateHosts in $RESON_HOME/config.json instead.",
    );
    const { allowPrivateHosts: _ignored, ...rest } = current;
    out = { ...out, [section]: rest };
  }
  if (out.channels !== undefined) {
    warnings.push(
      `Ignored "channels" in ${file}: a project file cannot open a way for other people to reach the agent. ` +
        "Set channels in $RESON_HOME/config.json instead.",
    );
    const { channels: _ignored, ...rest } = out;
    out = rest;
  }
  const servers = out.mcp?.servers;
  if (servers && Object.values(servers).some((server) => server.trusted !== undefined)) {
    warnings.push(
      `Ignored "trusted" of MCP servers in ${file}: only your own $RESON_HOME/config.json can mark a server trusted.`,
    );
    const kept = Object.fromEntries(
      Object.entries(servers).map(([name, { trusted: _ignored, ...server }]) => [name, server]),
    );
    out = { ...out, mcp: { ...out.mcp, servers: kept } };
  }
  return out;
}

export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const env = options.env ?? process.env;
  const home = resonHome(env);
  const warnings: string[] = [];
  const sources: ConfigSource[] = [{ name: "defaults", values: DEFAULT_CONFIG }];
  const userFile = join(home, "config.json");
  const projectFile = join(options.workspace, ".reson", "config.json");
  // A broken user file is the error reported first.
  const userValues = readConfigFile(userFile);
  const projectValues = readConfigFile(projectFile);
  if (userValues) sources.push({ name: userFile, values: userValues });
  if (options.workspaceSettings) {
    const { name, values } = options.workspaceSettings;
    sources.push({ name, values: validatePartialConfig(name, values) });
  }
  if (projectValues)
    sources.push({
      name: projectFile,
      values: withoutTrustWidening(
        projectFile,
        withoutKeyRedirect(projectFile, projectValues, warnings),
        warnings,
      ),
    });
  sources.push({ name: "environment", values: validatePartialConfig("environment", configFromEnv(env)) });
  if (options.flags) sources.push({ name: "flags", values: validatePartialConfig("flags", options.flags) });

  let merged: Record<string, unknown> = {};
  for (const source of sources) merged = merge(merged, source.values as Record<string, unknown>);
  if (!isConfig(merged)) {
    throw new ResonError("config_invalid", "The merged configuration is invalid.", {
      hint: "Check the values in your config files, RESON_* variables and flags.",
    });
  }
  return { config: merged, sources, home, warnings };
}
