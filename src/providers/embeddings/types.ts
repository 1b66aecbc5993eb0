// The embedding contract: texts in, one unit-length vector per text out, in order. Settings
// say which server and model; the cache keeps vectors by content hash so a text is embedded
// once per model.
import type { RetryNotice } from "../types.js";

export const EMBEDDING_PROVIDER_NAMES = ["openai", "openai-compatible", "ollama", "google"] as const;
export type EmbeddingProviderName = (typeof EMBEDDING_PROVIDER_NAMES)[number];

/** Resolved settings: every field a provider needs, the key included (never logged). */
export interface EmbeddingSettings {
  provider: EmbeddingProviderName;
  model: string;
  /** OpenAI style: includes /v1 (POST {baseUrl}/embeddings). Google: includes /v1beta. */
  baseUrl: string;
  apiKey?: string;
  /** Vector length to ask for, from models that can shorten their vectors (text-embedding-3-*, gemini-embedding-001). */
  dimensions?: number;
  /** Texts per request; capped by the provider's own limit. */
  batchSize?: number;
}

export interface EmbedOptions {
  signal?: AbortSignal;
  /** Called before each wait for a retry (rate limit, outage, timeout). */
  onRetry?: (notice: RetryNotice) => void;
}

export interface EmbeddingProvider {
  /**
   * What the vectors depend on: provider, model and the requested dimensions
   * ("openai/text-embedding-3-small", "openai/text-embedding-3-small@512"). Vectors with
   * different ids must never be compared; the cache and the index key on it.
   */
  readonly id: string;
  readonly model: string;
  /** The vector length: from the settings, else known after the first call. */
  readonly dimensions: number | undefined;
  /**
   * One L2-normalised vector per text, in input order (cosine similarity is a dot product).
   * Fails with one of the six provider error codes, or `aborted`.
   */
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
}

/** Vectors by content hash (sha256 hex of the text sent), per embedding model id. */
export interface EmbeddingCache {
  /** The vectors found; hashes not cached are absent from the map. */
  get(model: string, hashes: readonly string[]): Promise<Map<string, Float32Array>>;
  put(model: string, entries: ReadonlyArray<{ hash: string; vec: Float32Array }>): Promise<void>;
}
