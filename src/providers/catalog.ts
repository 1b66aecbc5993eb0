// The providers reson knows: which wire protocol each speaks, its endpoint, its default
// model and where its key comes from. Static data, readable without loading pi-ai.
import { TEXT_ONLY_MODELS } from "./text-only-models.js";
import type { ProviderName } from "./types.js";

export type WireApi = "anthropic-messages" | "openai-completions" | "google-generative-ai";

/** Provider ids of pi-ai's model registry that reson maps onto. */
export type RegistryProvider = "anthropic" | "openai" | "google" | "deepseek" | "openrouter";

export interface ProviderEntry {
  api: WireApi;
  /** Where pi-ai's registry has this provider's models (context window, prices). */
  registry?: RegistryProvider;
  /** Endpoint when none is configured. OpenAI-style URLs include /v1; Anthropic's does not. */
  baseUrl: string;
  defaultModel: string;
  /** The environment variable the key is read from. */
  envKey?: string;
  /** A hosted API that refuses requests without a real key. */
  needsKey: boolean;
  /** Served by reson's own OpenAI client (the native wire), by default; pi-ai serves the rest. */
  nativeWire?: true;
}

export const PROVIDER_CATALOG: Readonly<Record<ProviderName, ProviderEntry>> = {
  anthropic: {
    api: "anthropic-messages",
    registry: "anthropic",
    baseUrl: "https://api.anthropic.com",
    defaultModel: "claude-sonnet-4-6",
    envKey: "ANTHROPIC_API_KEY",
    needsKey: true,
  },
  // Chat Completions rather than pi-ai's default Responses API for OpenAI: one protocol for
  // every OpenAI-style endpoint, and the one the fake server and the benchmarks speak.
  openai: {
    api: "openai-completions",
    registry: "openai",
    baseUrl: "https://api.openai.com/v1",
    defaultModel: "gpt-5.4",
    envKey: "OPENAI_API_KEY",
    needsKey: true,
  },
  google: {
    api: "google-generative-ai",
    registry: "google",
    baseUrl: "https://generativelanguage.googleapis.com/v1beta",
    defaultModel: "gemini-2.5-flash",
    envKey: "GEMINI_API_KEY",
    needsKey: true,
  },
  deepseek: {
    api: "openai-completions",
    registry: "deepseek",
    baseUrl: "https://api.deepseek.com",
    defaultModel: "deepseek-v4-flash",
    envKey: "DEEPSEEK_API_KEY",
    needsKey: true,
  },
  openrouter: {
    api: "openai-completions",
    registry: "openrouter",
    baseUrl: "https://openrouter.ai/api/v1",
    defaultModel: "anthropic/claude-sonnet-4.6",
    envKey: "OPENROUTER_API_KEY",
    needsKey: true,
  },
  ollama: {
    api: "openai-completions",
    baseUrl: "http://127.0.0.1:11434/v1",
    defaultModel: "llama3.1",
    needsKey: false,
    nativeWire: true,
  },
  // Any OpenAI-compatible server. Its key comes from --api-key or RESON_API_KEY, never from
  // OPENAI_API_KEY: that key is only sent when the user chose the `openai` provider.
  "openai-compatible": {
    api: "openai-completions",
    baseUrl: "",
    defaultModel: "default",
    envKey: "RESON_API_KEY",
    needsKey: false,
    nativeWire: true,
  },
};

/** Picks the wire of openai-compatible and ollama ("native" or "pi-ai"); no effect on other providers. */
export const WIRE_ENV = "RESON_WIRE";

/** The order in which environment keys pick a provider when none is named. */
export const AUTO_DETECT_ORDER: readonly ProviderName[] = [
  "anthropic",
  "openai",
  "google",
  "deepseek",
  "openrouter",
];

/** Sent to servers that need no key, so no SDK ever falls back to a key from the environment. */
export const DUMMY_API_KEY = "none";

export const OLLAMA_DEFAULT_ORIGIN = "http://127.0.0.1:11434";

/**
 * Whether `provider`'s model `id` reads images, as resolveModel (model.ts) will say once pi-ai's
 * registry is loaded, without loading it: the registry's text-only models are listed
 * (text-only-models.ts, a test holds it equal to the registry); a model the registry does not
 * know is taken to read images on a hosted API, and never on a local server.
 */
export function modelTakesImages(provider: ProviderName, id: string): boolean {
  const registry = PROVIDER_CATALOG[provider].registry;
  return registry !== undefined && !(TEXT_ONLY_MODELS[registry] ?? []).includes(id);
}

/** Where to get a key for `provider`, for hints: "set ANTHROPIC_API_KEY or pass --api-key". */
export function keyHint(provider: ProviderName): string {
  const envKey = PROVIDER_CATALOG[provider].envKey;
  return envKey ? `set ${envKey} or pass --api-key` : "pass --api-key";
}
