// Embedding each text once per model: texts are redacted (secrets never reach an embedding
// API), hashed, looked up in a cache, and only the misses are sent. The store keeps a
// persistent cache behind the same interface; InMemoryEmbeddingCache serves tests and runs
// without a store.

import { throwIfAborted } from "../../core/abort.js";
import { contentHash } from "../../core/vector-bytes.js";
import type { EmbeddingCache, EmbeddingProvider, EmbedOptions } from "./types.js";

export { contentHash } from "../../core/vector-bytes.js";

/** Vectors in a Map per model, copied in and out so no caller can change what another reads. */
export class InMemoryEmbeddingCache implements EmbeddingCache {
  private readonly models = new Map<string, Map<string, Float32Array>>();

  async get(model: string, hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    const stored = this.models.get(model);
    const found = new Map<string, Float32Array>();
    if (!stored) return found;
    for (const hash of hashes) {
      const vec = stored.get(hash);
      if (vec) found.set(hash, vec.slice());
    }
    return found;
  }

  async put(model: string, entries: ReadonlyArray<{ hash: string; vec: Float32Array }>): Promise<void> {
    let stored = this.models.get(model);
    if (!stored) {
      stored = new Map();
      this.models.set(model, stored);
    }
    for (const { hash, vec } of entries) stored.set(hash, vec.slice());
  }

  /** Vectors held for `model`. */
  size(model: string): number {
    return this.models.get(model)?.size ?? 0;
  }
}

export interface CachedEmbedderOptions {
  /** Applied to every text before it is hashed and sent: remove secrets here. */
  redact?: (text: string) => string;
}

/**
 * `provider` behind `cache`, keyed by provider.id (model and requested dimensions): each
 * distinct (redacted) text is embedded once, later calls read it back. Vectors come back in
 * input order. A cached vector of another length than the provider's is treated as missing.
 */
export function cachedEmbedder(
  provider: EmbeddingProvider,
  cache: EmbeddingCache,
  options: CachedEmbedderOptions = {},
): EmbeddingProvider {
  const redact = options.redact ?? ((text: string) => text);
  return {
    get id() {
      return provider.id;
    },
    get model() {
      return provider.model;
    },
    get dimensions() {
      return provider.dimensions;
    },
    async embed(texts: string[], embedOptions: EmbedOptions = {}): Promise<Float32Array[]> {
      throwIfAborted(embedOptions.signal);
      if (texts.length === 0) return [];
      const sent = texts.map(redact);
      const hashes = sent.map(contentHash);
      const firstText = new Map<string, string>();
      hashes.forEach((hash, i) => {
        if (!firstText.has(hash)) firstText.set(hash, sent[i] ?? "");
      });
      const found = await cache.get(provider.id, [...firstText.keys()]);
      const size = provider.dimensions;
      for (const [hash, vec] of found) if (size !== undefined && vec.length !== size) found.delete(hash);

      const misses = [...firstText].filter(([hash]) => !found.has(hash));
      if (misses.length > 0) {
        const vectors = await provider.embed(
          misses.map(([, text]) => text),
          embedOptions,
        );
        const entries = misses.map(([hash], i) => ({ hash, vec: vectors[i] as Float32Array }));
        await cache.put(provider.id, entries);
        for (const { hash, vec } of entries) found.set(hash, vec);
      }
      // A text repeated in the input gets its own copy, so changing one result changes no other.
      const given = new Set<string>();
      return hashes.map((hash) => {
        const vec = found.get(hash) as Float32Array;
        if (given.has(hash)) return vec.slice();
        given.add(hash);
        return vec;
      });
    },
  };
}
