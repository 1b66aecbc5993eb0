// The embedding cache in front of a real provider and the fake server: each distinct text is
// sent once per model, secrets are redacted before hashing and sending, and the vector bytes
// round-trip through the store's encoding.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  cachedEmbedder,
  contentHash,
  createEmbeddingProvider,
  decodeVector,
  type EmbeddingProvider,
  type EmbeddingSettings,
  encodeVector,
  InMemoryEmbeddingCache,
} from "../../src/providers/index.js";
import type { FakeModelServer } from "../support/fake-model-server.js";
import { useFakeServer } from "./harness.js";

const FAST = { retry: { baseDelayMs: 5, maxDelayMs: 20, jitter: 0 } };

function settings(server: FakeModelServer, extra: Partial<EmbeddingSettings> = {}): EmbeddingSettings {
  return { provider: "openai-compatible", model: "bge-m3", baseUrl: server.openaiBaseUrl, ...extra };
}

function sentTexts(server: FakeModelServer): string[] {
  return server.requests.flatMap((r) => (r.body as { input: string[] }).input);
}

describe("cachedEmbedder", () => {
  const fake = useFakeServer();

  it("embeds only what the cache lacks; a second call sends nothing", async () => {
    const cache = new InMemoryEmbeddingCache();
    const embedder = cachedEmbedder(createEmbeddingProvider(settings(fake.server), FAST), cache);
    const first = await embedder.embed(["alpha", "beta"]);
    expect(sentTexts(fake.server)).toEqual(["alpha", "beta"]);

    const second = await embedder.embed(["beta", "alpha"]);
    expect(fake.server.requests).toHaveLength(1);
    expect(second).toEqual([first[1], first[0]]);

    await embedder.embed(["alpha", "gamma"]);
    expect(sentTexts(fake.server)).toEqual(["alpha", "beta", "gamma"]);
    expect(cache.size(embedder.id)).toBe(3);
  });

  it("sends a text repeated in one call once and returns it at every position", async () => {
    const embedder = cachedEmbedder(
      createEmbeddingProvider(settings(fake.server), FAST),
      new InMemoryEmbeddingCache(),
    );
    const vectors = await embedder.embed(["same", "other", "same"]);
    expect(sentTexts(fake.server)).toEqual(["same", "other"]);
    expect(vectors[2]).toEqual(vectors[0]);
    vectors[0]?.fill(0);
    expect(vectors[2]?.some((v) => v !== 0)).toBe(true);
  });

  it("redacts before hashing and sending: the secret never reaches the server", async () => {
    const canary = "sk-live-CANARY-7f3a9c";
    const redact = (text: string) => text.split(canary).join("[secret]");
    const cache = new InMemoryEmbeddingCache();
    const embedder = cachedEmbedder(createEmbeddingProvider(settings(fake.server), FAST), cache, { redact });
    await embedder.embed([`deploy with token ${canary}`, "plain note"]);

    expect(JSON.stringify(fake.server.requests)).not.toContain(canary);
    expect(sentTexts(fake.server)).toEqual(["deploy with token [secret]", "plain note"]);
    const byHash = await cache.get(embedder.id, [contentHash("deploy with token [secret]")]);
    expect(byHash.size).toBe(1);
  });

  it("keeps vectors of different models and dimensions apart", async () => {
    const cache = new InMemoryEmbeddingCache();
    const small = cachedEmbedder(createEmbeddingProvider(settings(fake.server), FAST), cache);
    const shortened = cachedEmbedder(
      createEmbeddingProvider(settings(fake.server, { dimensions: 16 }), FAST),
      cache,
    );
    const [a] = await small.embed(["text"]);
    const [b] = await shortened.embed(["text"]);
    expect(fake.server.requests).toHaveLength(2);
    expect(a).toHaveLength(64);
    expect(b).toHaveLength(16);
    expect(small.id).not.toBe(shortened.id);
  });

  it("treats a cached vector of the wrong length as missing", async () => {
    const cache = new InMemoryEmbeddingCache();
    const provider = createEmbeddingProvider(settings(fake.server, { dimensions: 32 }), FAST);
    await cache.put(provider.id, [{ hash: contentHash("stale"), vec: new Float32Array(8) }]);
    const [vec] = await cachedEmbedder(provider, cache).embed(["stale"]);
    expect(vec).toHaveLength(32);
    expect(sentTexts(fake.server)).toEqual(["stale"]);
  });

  it("lets provider errors through and caches nothing from a failed call", async () => {
    fake.server.enqueueEmbeddings({ fault: "http", status: 401 });
    const cache = new InMemoryEmbeddingCache();
    const embedder = cachedEmbedder(createEmbeddingProvider(settings(fake.server), FAST), cache);
    await expect(embedder.embed(["x"])).rejects.toMatchObject({ code: "provider_auth_failed" });
    expect(cache.size(embedder.id)).toBe(0);
  });

  it("does not call the provider when everything is cached", async () => {
    const calls: string[][] = [];
    const provider: EmbeddingProvider = {
      id: "test/model",
      model: "model",
      dimensions: 2,
      embed: async (texts) => {
        calls.push(texts);
        return texts.map(() => new Float32Array([1, 0]));
      },
    };
    const embedder = cachedEmbedder(provider, new InMemoryEmbeddingCache());
    await embedder.embed(["a"]);
    await embedder.embed(["a", "a"]);
    expect(calls).toEqual([["a"]]);
  });
});

describe("vector encoding", () => {
  it("round-trips any float32 vector through little-endian bytes", () => {
    fc.assert(
      fc.property(fc.array(fc.float({ noNaN: true }), { maxLength: 300 }), (values) => {
        const vec = new Float32Array(values);
        const bytes = encodeVector(vec);
        expect(bytes.length).toBe(vec.length * 4);
        expect(decodeVector(bytes)).toEqual(vec);
      }),
    );
  });

  it("writes little-endian float32", () => {
    expect([...encodeVector(new Float32Array([1]))]).toEqual([0, 0, 0x80, 0x3f]);
    const sub = new Float32Array([9, 1, 2]).subarray(1);
    expect(decodeVector(encodeVector(sub))).toEqual(new Float32Array([1, 2]));
  });

  it("refuses bytes that are not whole floats", () => {
    expect(() => decodeVector(new Uint8Array(6))).toThrow(/not a multiple of 4/);
  });
});
