// Which embedding provider a config and an environment give: nothing configured or "none"
// means full-text search with one line saying so; keys go only where they belong.
import { describe, expect, it } from "vitest";
import { createEmbeddingProvider, resolveEmbeddingSettings } from "../../src/providers/index.js";
import { rejection, useFakeServer } from "./harness.js";

const ALL_KEYS = { OPENAI_API_KEY: "sk-openai-secret", GEMINI_API_KEY: "AIza-gemini-secret" };

describe("resolveEmbeddingSettings", () => {
  it("gives no provider and one explanatory line when nothing is configured, even with keys set", () => {
    const resolution = resolveEmbeddingSettings({}, ALL_KEYS);
    expect(resolution).toEqual({
      settings: undefined,
      notice:
        "memory search: full text only (no embedding model configured; set embeddings.provider to enable similarity search)",
    });
    expect(resolveEmbeddingSettings({ embeddings: {} }, ALL_KEYS).settings).toBeUndefined();
  });

  it('gives no provider for "none", whatever else is set', () => {
    const resolution = resolveEmbeddingSettings(
      { embeddings: { provider: "none", model: "text-embedding-3-small", baseUrl: "http://x.test/v1" } },
      ALL_KEYS,
    );
    expect(resolution).toEqual({
      settings: undefined,
      notice: 'memory search: full text only (embeddings.provider is "none")',
    });
  });

  it("says why when a model is named without a provider", () => {
    const { settings, notice } = resolveEmbeddingSettings({ embeddings: { model: "nomic-embed-text" } }, {});
    expect(settings).toBeUndefined();
    expect(notice).toMatch(/embeddings\.model is "nomic-embed-text" but no embeddings\.provider is set/);
  });

  it("fills in OpenAI's endpoint, default model and key", () => {
    expect(resolveEmbeddingSettings({ embeddings: { provider: "openai" } }, ALL_KEYS)).toEqual({
      settings: {
        provider: "openai",
        model: "text-embedding-3-small",
        baseUrl: "https://api.openai.com/v1",
        apiKey: "sk-openai-secret",
      },
    });
  });

  it("fills in Google's endpoint, gemini-embedding-001 and GEMINI_API_KEY", () => {
    expect(
      resolveEmbeddingSettings({ embeddings: { provider: "google", dimensions: 768 } }, ALL_KEYS).settings,
    ).toEqual({
      provider: "google",
      model: "gemini-embedding-001",
      baseUrl: "https://generativelanguage.googleapis.com/v1beta",
      apiKey: "AIza-gemini-secret",
      dimensions: 768,
    });
  });

  it('takes Google\'s "models/" form of a model name as the same model', () => {
    const { settings } = resolveEmbeddingSettings(
      { embeddings: { provider: "google", model: "models/gemini-embedding-001" } },
      ALL_KEYS,
    );
    expect(settings?.model).toBe("gemini-embedding-001");
  });

  it("prefers RESON_EMBEDDINGS_API_KEY over the provider's own key", () => {
    const env = { ...ALL_KEYS, RESON_EMBEDDINGS_API_KEY: "sk-embeddings-only" };
    expect(resolveEmbeddingSettings({ embeddings: { provider: "openai" } }, env).settings?.apiKey).toBe(
      "sk-embeddings-only",
    );
  });

  it("treats a base URL without a provider as openai-compatible, never with OPENAI_API_KEY", () => {
    const { settings } = resolveEmbeddingSettings(
      { embeddings: { baseUrl: "http://gpu.local:8000/v1/", model: "bge-m3", batchSize: 32 } },
      ALL_KEYS,
    );
    expect(settings).toEqual({
      provider: "openai-compatible",
      model: "bge-m3",
      baseUrl: "http://gpu.local:8000/v1",
      batchSize: 32,
    });
  });

  it("uses OLLAMA_HOST for ollama and the default 127.0.0.1:11434 without it", () => {
    expect(resolveEmbeddingSettings({ embeddings: { provider: "ollama" } }, {}).settings?.baseUrl).toBe(
      "http://127.0.0.1:11434/v1",
    );
    expect(
      resolveEmbeddingSettings({ embeddings: { provider: "ollama" } }, { OLLAMA_HOST: "0.0.0.0:9999" })
        .settings?.baseUrl,
    ).toBe("http://127.0.0.1:9999/v1");
  });

  it("fails with the variable to set when a hosted provider has no key", () => {
    expect(() => resolveEmbeddingSettings({ embeddings: { provider: "google" } }, {})).toThrow(
      expect.objectContaining({
        code: "no_provider_configured",
        hint: expect.stringContaining("GEMINI_API_KEY"),
      }),
    );
  });

  it("fails when openai-compatible lacks its base URL or model, and on a non-http URL", () => {
    expect(() => resolveEmbeddingSettings({ embeddings: { provider: "openai-compatible" } }, {})).toThrow(
      expect.objectContaining({ code: "config_invalid", message: expect.stringMatching(/needs a base URL/) }),
    );
    expect(() => resolveEmbeddingSettings({ embeddings: { baseUrl: "http://h:1/v1" } }, {})).toThrow(
      expect.objectContaining({
        code: "config_invalid",
        message: expect.stringMatching(/needs a model name/),
      }),
    );
    expect(() =>
      resolveEmbeddingSettings({ embeddings: { provider: "ollama", baseUrl: "file:///etc" } }, {}),
    ).toThrow(expect.objectContaining({ code: "config_invalid" }));
  });

  it("names the valid providers for an unknown one", () => {
    expect(() => resolveEmbeddingSettings({ embeddings: { provider: "cohere" } }, {})).toThrow(
      expect.objectContaining({
        code: "unknown_provider",
        hint: expect.stringContaining("openai-compatible"),
      }),
    );
  });
});

describe("embedding keys on the wire", () => {
  const fake = useFakeServer();
  const FAST = { retry: { baseDelayMs: 5, jitter: 0 } };

  it("never sends OPENAI_API_KEY to a custom base URL", async () => {
    const env = { OPENAI_API_KEY: "sk-openai-never-leaves" };
    for (const embeddings of [
      { baseUrl: fake.server.openaiBaseUrl, model: "bge-m3" },
      { provider: "openai-compatible", baseUrl: fake.server.openaiBaseUrl, model: "bge-m3" },
      { provider: "ollama", baseUrl: fake.server.openaiBaseUrl },
    ]) {
      const { settings } = resolveEmbeddingSettings({ embeddings }, env);
      await createEmbeddingProvider(settings!, FAST).embed(["hello"]);
    }
    expect(fake.server.requests).toHaveLength(3);
    expect(JSON.stringify(fake.server.requests)).not.toContain("sk-openai-never-leaves");
    expect(fake.server.requests.map((r) => r.headers.authorization)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("sends RESON_EMBEDDINGS_API_KEY to a self-hosted server that needs one", async () => {
    const { settings } = resolveEmbeddingSettings(
      { embeddings: { baseUrl: fake.server.openaiBaseUrl, model: "bge-m3" } },
      { OPENAI_API_KEY: "sk-openai", RESON_EMBEDDINGS_API_KEY: "vllm-key-123" },
    );
    await createEmbeddingProvider(settings!, FAST).embed(["hello"]);
    expect(fake.server.requests[0]?.headers.authorization).toBe("Bearer vllm-key-123");
  });

  it("hints at RESON_EMBEDDINGS_API_KEY when a self-hosted server refuses", async () => {
    fake.server.enqueueEmbeddings({ fault: "http", status: 401 });
    const provider = createEmbeddingProvider(
      { provider: "openai-compatible", model: "bge-m3", baseUrl: fake.server.openaiBaseUrl },
      FAST,
    );
    const error = await rejection(provider.embed(["x"]));
    expect(error.code).toBe("provider_auth_failed");
    expect(error.hint).toContain("RESON_EMBEDDINGS_API_KEY");
  });
});
