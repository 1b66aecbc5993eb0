// Which embedding server, model and key to use, from the `embeddings` config section and the
// environment. Nothing is guessed: without embeddings.provider (or a base URL) there is no
// embedding model and memory search is full text only, which is said once, not an error. The
// network is never probed to pick a provider.
//
// Keys: RESON_EMBEDDINGS_API_KEY for any provider; else OPENAI_API_KEY for `openai` and
// GEMINI_API_KEY for `google`. openai-compatible and ollama never get OPENAI_API_KEY: that
// key goes only to the provider the user called `openai`, as for chat.
import { ResonError } from "../../core/errors.js";
import { ollamaOriginFrom } from "../resolve.js";
import { EMBEDDING_CATALOG, EMBEDDINGS_KEY_ENV } from "./catalog.js";
import { EMBEDDING_PROVIDER_NAMES, type EmbeddingProviderName, type EmbeddingSettings } from "./types.js";

/** The `embeddings` section of the config, as given. */
export interface EmbeddingsInput {
  /** An embedding provider name, or "none" for full-text search only. */
  provider?: string;
  model?: string;
  baseUrl?: string;
  dimensions?: number;
  batchSize?: number;
}

/** Settings to create a provider from, or none and the one line that says why. */
export type EmbeddingResolution =
  | { settings: EmbeddingSettings; notice?: undefined }
  | { settings: undefined; notice: string };

const FULL_TEXT_ONLY = "memory search: full text only";

export function resolveEmbeddingSettings(
  config: { embeddings?: EmbeddingsInput | undefined },
  env: NodeJS.ProcessEnv,
): EmbeddingResolution {
  const input = config.embeddings ?? {};
  const named = nonEmpty(input.provider)?.toLowerCase();
  const model = nonEmpty(input.model);
  const baseUrl = nonEmpty(input.baseUrl);

  if (named === "none") {
    return { settings: undefined, notice: `${FULL_TEXT_ONLY} (embeddings.provider is "none")` };
  }
  if (named === undefined && baseUrl === undefined) {
    const why =
      model === undefined
        ? "no embedding model configured"
        : `embeddings.model is "${model}" but no embeddings.provider is set`;
    return {
      settings: undefined,
      notice: `${FULL_TEXT_ONLY} (${why}; set embeddings.provider to enable similarity search)`,
    };
  }
  const provider = named === undefined ? "openai-compatible" : parseEmbeddingProviderName(named);
  const entry = EMBEDDING_CATALOG[provider];

  const resolvedUrl =
    baseUrl ?? entry.baseUrl ?? (provider === "ollama" ? `${ollamaOriginFrom(env)}/v1` : undefined);
  if (resolvedUrl === undefined) {
    throw new ResonError("config_invalid", `The ${provider} embeddings provider needs a base URL.`, {
      hint: 'Set embeddings.baseUrl (or RESON_EMBEDDINGS_BASE_URL) to the server\'s OpenAI-compatible endpoint, like "http://host:port/v1".',
    });
  }
  checkHttpUrl(resolvedUrl, provider);
  // Google's own form "models/gemini-embedding-001" names the same model (and the same vectors).
  const givenModel = model ?? entry.defaultModel;
  const resolvedModel = provider === "google" ? givenModel?.replace(/^models\//, "") : givenModel;
  if (resolvedModel === undefined) {
    throw new ResonError("config_invalid", `The ${provider} embeddings provider needs a model name.`, {
      hint: "Set embeddings.model (or RESON_EMBEDDINGS_MODEL) to the embedding model the server serves.",
    });
  }

  const apiKey =
    nonEmpty(env[EMBEDDINGS_KEY_ENV]) ?? (entry.envKey ? nonEmpty(env[entry.envKey]) : undefined);
  if (entry.needsKey && apiKey === undefined) {
    throw new ResonError("no_provider_configured", `No API key for ${provider} embeddings.`, {
      hint: `Set ${entry.envKey} (or ${EMBEDDINGS_KEY_ENV}); or set embeddings.provider to "none" to search memory by full text only.`,
      details: { provider, envKey: entry.envKey },
    });
  }

  const settings: EmbeddingSettings = { provider, model: resolvedModel, baseUrl: stripSlash(resolvedUrl) };
  if (apiKey !== undefined) settings.apiKey = apiKey;
  if (input.dimensions !== undefined) settings.dimensions = input.dimensions;
  if (input.batchSize !== undefined) settings.batchSize = input.batchSize;
  return { settings };
}

export function parseEmbeddingProviderName(name: string): EmbeddingProviderName {
  const normalised = name.trim().toLowerCase();
  if ((EMBEDDING_PROVIDER_NAMES as readonly string[]).includes(normalised)) {
    return normalised as EmbeddingProviderName;
  }
  throw new ResonError("unknown_provider", `Unknown embeddings provider "${name}".`, {
    hint: `Use one of: ${EMBEDDING_PROVIDER_NAMES.join(", ")}, or "none".`,
  });
}

function checkHttpUrl(url: string, provider: EmbeddingProviderName): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol === "http:" || protocol === "https:") return;
  throw new ResonError(
    "config_invalid",
    `The ${provider} embeddings base URL is not an http(s) URL: ${url}`,
    {
      hint: 'Set embeddings.baseUrl to the server\'s endpoint, like "http://host:port/v1".',
    },
  );
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
