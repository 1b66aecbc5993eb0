// Which provider, model, endpoint and key to use, from what the user gave and the
// environment. With nothing named: the first API key found in the environment, else a local
// Ollama if one answers, else an error that says exactly what to set.
//
// Keys: a hosted provider's key comes from --api-key or its own variable (ANTHROPIC_API_KEY…).
// openai-compatible takes --api-key or RESON_API_KEY, never OPENAI_API_KEY: that key goes
// only to the provider the user called `openai` (with whatever base URL they gave it).
import { ResonError } from "../core/errors.js";
import { AUTO_DETECT_ORDER, keyHint, OLLAMA_DEFAULT_ORIGIN, PROVIDER_CATALOG, WIRE_ENV } from "./catalog.js";
import {
  PROVIDER_NAMES,
  type ProviderName,
  type ProviderSettings,
  WIRE_NAMES,
  type WireName,
} from "./types.js";

export interface ProviderInput {
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  /** "native" or "pi-ai"; else RESON_WIRE for the providers it applies to; else the provider's default. */
  wire?: string;
}

export interface ResolveOptions {
  /** Answers whether a local Ollama is listening; the default asks OLLAMA_HOST's /api/tags. */
  probeOllama?: (signal: AbortSignal) => Promise<boolean>;
  /** Default 500 ms. */
  probeTimeoutMs?: number;
  /**
   * Where a provider's key comes from, in the words of the host the user is in (an editor has no
   * --api-key to pass); default "set ANTHROPIC_API_KEY or pass --api-key".
   */
  keyHint?: (provider: ProviderName) => string;
}

/** Key prefixes that name their provider unambiguously (an "sk-" key could be several). */
const KEY_PREFIXES: [string, ProviderName][] = [
  ["sk-ant-", "anthropic"],
  ["sk-or-", "openrouter"],
  ["AIza", "google"],
];

export async function resolveProviderSettings(
  input: ProviderInput,
  env: NodeJS.ProcessEnv,
  options: ResolveOptions = {},
): Promise<ProviderSettings> {
  const model = nonEmpty(input.model);
  const baseUrl = nonEmpty(input.baseUrl);
  const apiKey = nonEmpty(input.apiKey);
  const provider = nonEmpty(input.provider);
  const wire = nonEmpty(input.wire);
  const withWire = (settings: ProviderSettings) => applyWire(settings, wire, env);

  if (provider) return withWire(named(parseProviderName(provider), { model, baseUrl, apiKey }, env, options));
  if (baseUrl) return withWire(named("openai-compatible", { model, baseUrl, apiKey }, env, options));
  if (apiKey) {
    const guessed = KEY_PREFIXES.find(([prefix]) => apiKey.startsWith(prefix))?.[1];
    if (!guessed) {
      throw new ResonError("usage_error", "An API key was given without a provider.", {
        hint: `Name the provider with --provider (${PROVIDER_NAMES.join(", ")}).`,
      });
    }
    return withWire(named(guessed, { model, apiKey }, env, options));
  }
  for (const name of AUTO_DETECT_ORDER) {
    const envKey = PROVIDER_CATALOG[name].envKey;
    const key = envKey ? nonEmpty(env[envKey]) : undefined;
    if (key) return withWire(compact({ provider: name, model, apiKey: key }));
  }
  const ollamaOrigin = ollamaOriginFrom(env);
  if (await probe(ollamaOrigin, options)) {
    return withWire(compact({ provider: "ollama", model, baseUrl: `${ollamaOrigin}/v1` }));
  }
  throw noProviderError(ollamaOrigin);
}

export function parseProviderName(name: string): ProviderName {
  const normalised = name.trim().toLowerCase();
  if ((PROVIDER_NAMES as readonly string[]).includes(normalised)) return normalised as ProviderName;
  throw new ResonError("unknown_provider", `Unknown provider "${name}".`, {
    hint: `Use one of: ${PROVIDER_NAMES.join(", ")}.`,
  });
}

function named(
  provider: ProviderName,
  given: { model?: string; baseUrl?: string; apiKey?: string },
  env: NodeJS.ProcessEnv,
  options: ResolveOptions,
): ProviderSettings {
  const entry = PROVIDER_CATALOG[provider];
  if (provider === "openai-compatible" && !given.baseUrl) {
    throw new ResonError("config_invalid", "The openai-compatible provider needs a base URL.", {
      hint: "Pass --base-url http://host:port/v1 (the server's OpenAI-compatible endpoint).",
    });
  }
  const baseUrl = given.baseUrl ?? (provider === "ollama" ? `${ollamaOriginFrom(env)}/v1` : undefined);
  const apiKey = given.apiKey ?? (entry.envKey ? nonEmpty(env[entry.envKey]) : undefined);
  if (entry.needsKey && !apiKey) {
    throw new ResonError("no_provider_configured", `No API key for ${provider}.`, {
      hint: `To use ${provider}, ${(options.keyHint ?? keyHint)(provider)}.`,
      details: { provider, envKey: entry.envKey },
    });
  }
  return compact({ provider, model: given.model, baseUrl, apiKey });
}

/**
 * The wire asked for: given explicitly it always applies (createProvider refuses a wire the
 * provider lacks); from RESON_WIRE only to the providers that have a choice.
 */
function applyWire(
  settings: ProviderSettings,
  given: string | undefined,
  env: NodeJS.ProcessEnv,
): ProviderSettings {
  if (given !== undefined) return { ...settings, wire: parseWireName(given, "usage_error") };
  const fromEnv = nonEmpty(env[WIRE_ENV]);
  if (fromEnv === undefined || !PROVIDER_CATALOG[settings.provider].nativeWire) return settings;
  return { ...settings, wire: parseWireName(fromEnv, "config_invalid") };
}

function parseWireName(name: string, code: "usage_error" | "config_invalid"): WireName {
  const normalised = name.trim().toLowerCase();
  if ((WIRE_NAMES as readonly string[]).includes(normalised)) return normalised as WireName;
  throw new ResonError(code, `Unknown wire "${name}".`, { hint: `Use one of: ${WIRE_NAMES.join(", ")}.` });
}

/** OLLAMA_HOST as Ollama reads it: "host", "host:port" or a URL; 0.0.0.0 means this machine. */
export function ollamaOriginFrom(env: NodeJS.ProcessEnv): string {
  const raw = nonEmpty(env.OLLAMA_HOST);
  if (!raw) return OLLAMA_DEFAULT_ORIGIN;
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw);
  try {
    const url = new URL(hasScheme ? raw : `http://${raw}`);
    if (!hasScheme && url.port === "") url.port = "11434";
    if (url.hostname === "0.0.0.0") url.hostname = "127.0.0.1";
    return url.origin;
  } catch {
    return OLLAMA_DEFAULT_ORIGIN;
  }
}

async function probe(origin: string, options: ResolveOptions): Promise<boolean> {
  const signal = AbortSignal.timeout(options.probeTimeoutMs ?? 500);
  const check = options.probeOllama ?? ((s: AbortSignal) => answersTags(origin, s));
  try {
    return await check(signal);
  } catch {
    return false;
  }
}

async function answersTags(origin: string, signal: AbortSignal): Promise<boolean> {
  const response = await fetch(`${origin}/api/tags`, { signal });
  await response.body?.cancel();
  return response.ok;
}

function noProviderError(ollamaOrigin: string): ResonError {
  const envKeys = AUTO_DETECT_ORDER.map((name) => PROVIDER_CATALOG[name].envKey);
  const list = `${envKeys.slice(0, -1).join(", ")} or ${envKeys.at(-1)}`;
  return new ResonError("no_provider_configured", "No model provider is configured.", {
    hint:
      `Set one of ${list}; or start Ollama (nothing answered at ${ollamaOrigin}); ` +
      "or use any OpenAI-compatible server with --provider openai-compatible --base-url http://host:port/v1 (and --api-key if it needs one).",
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function compact(settings: ProviderSettings): ProviderSettings {
  const out: ProviderSettings = { provider: settings.provider };
  if (settings.model !== undefined) out.model = settings.model;
  if (settings.baseUrl !== undefined) out.baseUrl = settings.baseUrl;
  if (settings.apiKey !== undefined) out.apiKey = settings.apiKey;
  return out;
}
