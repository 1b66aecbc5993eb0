// The embeddings part of the provider layer: resolve settings from the `embeddings` config
// section, create a provider for OpenAI-style /embeddings or Google's batchEmbedContents, and
// put a cache (with redaction) in front of it.
export {
  type CachedEmbedderOptions,
  cachedEmbedder,
  contentHash,
  InMemoryEmbeddingCache,
} from "./cache.js";
export { DEFAULT_EMBEDDING_BATCH_SIZE, EMBEDDING_CATALOG, EMBEDDINGS_KEY_ENV } from "./catalog.js";
export {
  type CreateEmbeddingProviderOptions,
  createEmbeddingProvider,
  embeddingModelId,
} from "./provider.js";
export {
  type EmbeddingResolution,
  type EmbeddingsInput,
  parseEmbeddingProviderName,
  resolveEmbeddingSettings,
} from "./resolve.js";
export {
  EMBEDDING_PROVIDER_NAMES,
  type EmbeddingCache,
  type EmbeddingProvider,
  type EmbeddingProviderName,
  type EmbeddingSettings,
  type EmbedOptions,
} from "./types.js";
export { decodeVector, encodeVector, normalizedVector } from "./vector.js";
