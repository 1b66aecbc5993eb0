// The embedding providers reson knows: the protocol each speaks, its endpoint, its default
// model and where its key comes from. Static data.
import type { EmbeddingProviderName } from "./types.js";

export type EmbeddingProtocolName = "openai" | "google";

export interface EmbeddingProviderEntry {
  protocol: EmbeddingProtocolName;
  /** Endpoint when none is configured; undefined when the user must give one. Ollama's comes from OLLAMA_HOST. */
  baseUrl: string | undefined;
  /** Undefined when the user must name the model (a self-hosted server serves what it serves). */
  defaultModel: string | undefined;
  /** The provider's own key variable; RESON_EMBEDDINGS_API_KEY, when set, comes first. */
  envKey: string | undefined;
  /** A hosted API that refuses requests without a key. */
  needsKey: boolean;
  /** A local or self-hosted server: longer timeouts, as for chat. */
  local: boolean;
}

/** The key of any embeddings provider, before the provider's own variable. Never read from config files. */
export const EMBEDDINGS_KEY_ENV = "RESON_EMBEDDINGS_API_KEY";

export const EMBEDDING_CATALOG: Readonly<Record<EmbeddingProviderName, EmbeddingProviderEntry>> = {
  openai: {
    protocol: "openai",
    baseUrl: "https://api.openai.com/v1",
    // 1536 dimensions, a fifth of text-embedding-3-large's price, and can be shortened.
    defaultModel: "text-embedding-3-small",
    envKey: "OPENAI_API_KEY",
    needsKey: true,
    local: false,
  },
  // Never OPENAI_API_KEY: a self-hosted server gets only a key meant for it.
  "openai-compatible": {
    protocol: "openai",
    baseUrl: undefined,
    defaultModel: undefined,
    envKey: undefined,
    needsKey: false,
    local: true,
  },
  ollama: {
    protocol: "openai",
    baseUrl: undefined,
    defaultModel: "nomic-embed-text",
    envKey: undefined,
    needsKey: false,
    local: true,
  },
  google: {
    protocol: "google",
    baseUrl: "https://generativelanguage.googleapis.com/v1beta",
    // text-embedding-004 was shut down on 2026-01-14; gemini-embedding-001 is its GA
    // successor (3072 dimensions, shortenable to 1536 or 768).
    defaultModel: "gemini-embedding-001",
    envKey: "GEMINI_API_KEY",
    needsKey: true,
    local: false,
  },
};

/** Texts per request unless configured: small enough that one failed request costs little. */
export const DEFAULT_EMBEDDING_BATCH_SIZE = 96;

/** The most texts each protocol accepts in one request (OpenAI: 2048 inputs; Google: 100 requests). */
export const PROTOCOL_MAX_BATCH: Readonly<Record<EmbeddingProtocolName, number>> = {
  openai: 2048,
  google: 100,
};

/**
 * Characters per request: OpenAI refuses requests over 300k tokens in total, and code or CJK
 * text can run close to one character per token.
 */
export const MAX_BATCH_CHARS = 250_000;
