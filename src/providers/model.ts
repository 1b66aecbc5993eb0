// Turns provider settings into the pi-ai model object that drives the wire protocol, plus
// the facts reson needs about it (window, output limit, prices): from pi-ai's registry when
// it knows the model, otherwise from defaults, with the user's overrides on top.
import type { Api, Model, OpenAICompletionsCompat } from "@mariozechner/pi-ai";
import { ResonError } from "../core/errors.js";
import { PROVIDER_CATALOG, type WireApi } from "./catalog.js";
import type { PiAi } from "./pi.js";
import type { ModelInfo, ProviderSettings, WireName } from "./types.js";

/** For models pi-ai does not know. */
export const UNKNOWN_MODEL_CONTEXT_WINDOW = 128_000;
export const UNKNOWN_MODEL_MAX_TOKENS = 8_192;
/** Output tokens asked for by default, even when a model allows more (as pi-ai's streamSimple does). */
const DEFAULT_MAX_TOKENS_CAP = 32_000;

/** What local and unknown OpenAI-compatible servers accept: system role, max_tokens, no extras. */
const PLAIN_OPENAI_COMPAT: OpenAICompletionsCompat = {
  supportsStore: false,
  supportsDeveloperRole: false,
  supportsReasoningEffort: false,
  supportsStrictMode: false,
  maxTokensField: "max_tokens",
};

export interface ResolvedModel {
  model: Model<Api>;
  info: ModelInfo;
  /** Sent as the request's max output tokens. */
  maxTokens: number;
}

/**
 * `pi` is needed only for providers with a registry (openai-compatible and ollama have none,
 * so the native wire resolves its model without loading pi-ai).
 */
export function resolveModel(
  pi: Pick<PiAi, "getModels"> | undefined,
  settings: ProviderSettings,
  wire: WireName,
): ResolvedModel {
  const entry = PROVIDER_CATALOG[settings.provider];
  const id = settings.model || entry.defaultModel;
  const baseUrl = normaliseBaseUrl(entry.api, settings.baseUrl || entry.baseUrl);
  if (!baseUrl) {
    throw new ResonError("config_invalid", `The ${settings.provider} provider needs a base URL.`, {
      hint: "Pass --base-url http://host:port/v1 (the server's OpenAI-compatible endpoint).",
    });
  }
  if (entry.registry && !pi) throw new Error(`resolveModel: the ${settings.provider} registry needs pi-ai`);
  const known =
    entry.registry && pi
      ? (pi.getModels(entry.registry) as Model<Api>[]).find((m) => m.id === id)
      : undefined;
  const model: Model<Api> = known
    ? { ...known, api: entry.api, baseUrl, compat: known.api === entry.api ? known.compat : undefined }
    : unknownModel(settings, id, entry.api, baseUrl);
  if (settings.contextWindow) model.contextWindow = settings.contextWindow;
  const maxTokens = settings.maxTokens || Math.min(model.maxTokens, DEFAULT_MAX_TOKENS_CAP);
  if (maxTokens > model.maxTokens) model.maxTokens = maxTokens;
  return {
    model,
    maxTokens,
    info: {
      provider: settings.provider,
      id,
      baseUrl,
      contextWindow: model.contextWindow,
      maxOutputTokens: maxTokens,
      cost: { ...model.cost },
      priced: known !== undefined,
      wire,
      takesImages: model.input.includes("image"),
    },
  };
}

function unknownModel(settings: ProviderSettings, id: string, api: WireApi, baseUrl: string): Model<Api> {
  const entry = PROVIDER_CATALOG[settings.provider];
  const local = entry.registry === undefined;
  return {
    id,
    name: id,
    api,
    // Known provider names keep pi-ai's per-provider quirks (compat detection for DeepSeek,
    // OpenRouter); local servers get a name pi-ai has no environment key for.
    provider: settings.provider,
    baseUrl,
    reasoning: false,
    input: local ? ["text"] : ["text", "image"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: UNKNOWN_MODEL_CONTEXT_WINDOW,
    maxTokens: UNKNOWN_MODEL_MAX_TOKENS,
    ...(local ? { compat: PLAIN_OPENAI_COMPAT } : {}),
  };
}

/**
 * Trailing slashes off; for Anthropic also a trailing /v1, which users copy from OpenAI-style
 * URLs but the Anthropic SDK adds itself (it would post to /v1/v1/messages).
 */
export function normaliseBaseUrl(api: WireApi, url: string): string {
  const trimmed = url.trim().replace(/\/+$/, "");
  return api === "anthropic-messages" ? trimmed.replace(/\/v1$/, "") : trimmed;
}
