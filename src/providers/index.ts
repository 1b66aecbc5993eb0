// The provider layer's public surface: resolve settings from flags and the environment,
// create a provider, and `chat` with it; the same for embedding models (embeddings/). pi-ai is loaded by createProvider, not by importing
// this module, so commands that never call a model start fast.
export {
  AUTO_DETECT_ORDER,
  DUMMY_API_KEY,
  modelTakesImages,
  PROVIDER_CATALOG,
  type ProviderEntry,
  WIRE_ENV,
  type WireApi,
} from "./catalog.js";
export * from "./embeddings/index.js";
export { UNKNOWN_MODEL_CONTEXT_WINDOW, UNKNOWN_MODEL_MAX_TOKENS } from "./model.js";
export {
  type CreateProviderOptions,
  createProvider,
  DEFAULT_TIMEOUTS,
  LOCAL_DEFAULT_TIMEOUTS,
} from "./provider.js";
export {
  ollamaOriginFrom,
  type ProviderInput,
  parseProviderName,
  type ResolveOptions,
  resolveProviderSettings,
} from "./resolve.js";
export {
  backoffDelayMs,
  DEFAULT_RETRY_POLICY,
  type HeaderSource,
  isRetryable,
  parseRetryAfter,
} from "./retry.js";
export * from "./types.js";
