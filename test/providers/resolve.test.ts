import { describe, expect, it } from "vitest";
import {
  createProvider,
  modelTakesImages,
  ollamaOriginFrom,
  PROVIDER_CATALOG,
  type ProviderInput,
  type ProviderName,
  resolveProviderSettings,
  UNKNOWN_MODEL_CONTEXT_WINDOW,
  UNKNOWN_MODEL_MAX_TOKENS,
} from "../../src/providers/index.js";
import { rejection, useFakeServer } from "./harness.js";

const noOllama = { probeOllama: async () => false };
const resolve = (input: ProviderInput, env: NodeJS.ProcessEnv) =>
  resolveProviderSettings(input, env, noOllama);

describe("resolveProviderSettings with no provider named", () => {
  const all = {
    ANTHROPIC_API_KEY: "sk-ant-a",
    OPENAI_API_KEY: "sk-o",
    GEMINI_API_KEY: "AIza-g",
    DEEPSEEK_API_KEY: "sk-d",
    OPENROUTER_API_KEY: "sk-or-r",
  };
  const order = [
    ["anthropic", "ANTHROPIC_API_KEY"],
    ["openai", "OPENAI_API_KEY"],
    ["google", "GEMINI_API_KEY"],
    ["deepseek", "DEEPSEEK_API_KEY"],
    ["openrouter", "OPENROUTER_API_KEY"],
  ] as const;

  it.each(order.map((entry, i) => [...entry, i] as const))(
    "picks %s from %s when no earlier key is set",
    async (provider, envKey, index) => {
      const env: NodeJS.ProcessEnv = { ...all };
      for (const [, earlier] of order.slice(0, index)) delete env[earlier];
      expect(await resolve({}, env)).toEqual({ provider, apiKey: env[envKey] });
    },
  );

  it("ignores empty variables and keeps the model asked for", async () => {
    const env = { ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "  ", DEEPSEEK_API_KEY: "sk-d" };
    expect(await resolve({ model: "deepseek-v4-pro" }, env)).toEqual({
      provider: "deepseek",
      apiKey: "sk-d",
      model: "deepseek-v4-pro",
    });
  });

  it("falls back to a local Ollama when one answers", async () => {
    const settings = await resolveProviderSettings({}, {}, { probeOllama: async () => true });
    expect(settings).toEqual({ provider: "ollama", baseUrl: "http://127.0.0.1:11434/v1" });
  });

  describe("probing OLLAMA_HOST", () => {
    const fake = useFakeServer();
    it("finds a server listening there", async () => {
      const settings = await resolveProviderSettings({}, { OLLAMA_HOST: fake.server.url });
      expect(settings).toEqual({ provider: "ollama", baseUrl: `${fake.server.url}/v1` });
      expect(fake.server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /api/tags"]);
    });
  });

  it("says exactly what to set when there is no key and no Ollama", async () => {
    const error = await rejection(resolveProviderSettings({}, { OLLAMA_HOST: "127.0.0.1:1" }));
    expect(error.code).toBe("no_provider_configured");
    expect(error.message).toBe("No model provider is configured.");
    for (const name of [
      "ANTHROPIC_API_KEY",
      "OPENAI_API_KEY",
      "GEMINI_API_KEY",
      "DEEPSEEK_API_KEY",
      "OPENROUTER_API_KEY",
    ]) {
      expect(error.hint).toContain(name);
    }
    expect(error.hint).toContain("--provider openai-compatible --base-url");
    expect(error.hint).toContain("http://127.0.0.1:1");
  });

  it("a base URL alone means an OpenAI-compatible server, with RESON_API_KEY but never OPENAI_API_KEY", async () => {
    const env = { OPENAI_API_KEY: "sk-secret", ANTHROPIC_API_KEY: "sk-ant-secret" };
    expect(await resolve({ baseUrl: "http://gpu:8000/v1" }, env)).toEqual({
      provider: "openai-compatible",
      baseUrl: "http://gpu:8000/v1",
    });
    expect(await resolve({ baseUrl: "http://gpu:8000/v1" }, { ...env, RESON_API_KEY: "local-key" })).toEqual({
      provider: "openai-compatible",
      baseUrl: "http://gpu:8000/v1",
      apiKey: "local-key",
    });
  });

  it("a key alone picks its provider when the prefix says which", async () => {
    expect(await resolve({ apiKey: "sk-ant-abc" }, {})).toEqual({
      provider: "anthropic",
      apiKey: "sk-ant-abc",
    });
    expect(await resolve({ apiKey: "sk-or-abc" }, {})).toEqual({
      provider: "openrouter",
      apiKey: "sk-or-abc",
    });
    const error = await rejection(resolve({ apiKey: "sk-abc" }, {}));
    expect(error.code).toBe("usage_error");
    expect(error.hint).toContain("--provider");
  });
});

describe("resolveProviderSettings with a provider named", () => {
  it("takes the key from that provider's variable, and --api-key over it", async () => {
    const env = { ANTHROPIC_API_KEY: "sk-ant-env", OPENAI_API_KEY: "sk-env" };
    expect(await resolve({ provider: "openai" }, env)).toEqual({ provider: "openai", apiKey: "sk-env" });
    expect(await resolve({ provider: "openai", apiKey: "sk-flag" }, env)).toEqual({
      provider: "openai",
      apiKey: "sk-flag",
    });
  });

  it("sends OPENAI_API_KEY to a custom base URL only when the user chose openai", async () => {
    const env = { OPENAI_API_KEY: "sk-env" };
    expect(await resolve({ provider: "openai", baseUrl: "http://proxy/v1" }, env)).toEqual({
      provider: "openai",
      baseUrl: "http://proxy/v1",
      apiKey: "sk-env",
    });
    expect(await resolve({ provider: "openai-compatible", baseUrl: "http://proxy/v1" }, env)).toEqual({
      provider: "openai-compatible",
      baseUrl: "http://proxy/v1",
    });
  });

  it("a hosted provider without a key is a configuration error naming the variable", async () => {
    const error = await rejection(resolve({ provider: "deepseek" }, {}));
    expect(error.code).toBe("no_provider_configured");
    expect(error.hint).toBe("To use deepseek, set DEEPSEEK_API_KEY or pass --api-key.");
  });

  it("openai-compatible needs a base URL", async () => {
    const error = await rejection(resolve({ provider: "openai-compatible" }, {}));
    expect(error.code).toBe("config_invalid");
    expect(error.hint).toContain("--base-url");
  });

  it("ollama uses OLLAMA_HOST and needs no key", async () => {
    expect(await resolve({ provider: "ollama" }, { OLLAMA_HOST: "0.0.0.0:9999" })).toEqual({
      provider: "ollama",
      baseUrl: "http://127.0.0.1:9999/v1",
    });
  });

  it("an unknown provider lists the known ones", async () => {
    const error = await rejection(resolve({ provider: "skynet" }, {}));
    expect(error.code).toBe("unknown_provider");
    expect(error.hint).toContain("openai-compatible");
  });
});

describe("ollamaOriginFrom", () => {
  it.each([
    [undefined, "http://127.0.0.1:11434"],
    ["", "http://127.0.0.1:11434"],
    ["example.com", "http://example.com:11434"],
    ["10.0.0.2:8080", "http://10.0.0.2:8080"],
    ["0.0.0.0", "http://127.0.0.1:11434"],
    ["https://ollama.example.com", "https://ollama.example.com"],
    ["http://box:1234/", "http://box:1234"],
  ])("OLLAMA_HOST=%s → %s", (value, origin) => {
    expect(ollamaOriginFrom(value === undefined ? {} : { OLLAMA_HOST: value })).toBe(origin);
  });
});

describe("createProvider", () => {
  it("takes the window, output limit and prices of a known model from pi-ai's registry", async () => {
    const provider = await createProvider({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k" });
    expect(provider.model).toEqual({
      provider: "anthropic",
      id: "claude-sonnet-4-5",
      baseUrl: "https://api.anthropic.com",
      contextWindow: 200_000,
      maxOutputTokens: 32_000,
      cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      priced: true,
      wire: "pi-ai",
      takesImages: true,
    });
  });

  it("uses defaults for a model it does not know, and the user's overrides over both", async () => {
    const unknown = await createProvider({
      provider: "openai-compatible",
      baseUrl: "http://h/v1/",
      model: "qwen",
    });
    expect(unknown.model).toEqual({
      provider: "openai-compatible",
      id: "qwen",
      baseUrl: "http://h/v1",
      contextWindow: UNKNOWN_MODEL_CONTEXT_WINDOW,
      maxOutputTokens: UNKNOWN_MODEL_MAX_TOKENS,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      priced: false,
      wire: "native",
      takesImages: false,
    });
    const overridden = await createProvider({
      provider: "openai",
      model: "gpt-4o",
      apiKey: "k",
      contextWindow: 50_000,
      maxTokens: 1_000,
    });
    expect(overridden.model).toMatchObject({ contextWindow: 50_000, maxOutputTokens: 1_000 });
  });

  it.each([
    ["anthropic", /^claude-sonnet/],
    ["openai", /^gpt-/],
    ["google", /^gemini-.*flash/],
    ["deepseek", /^deepseek-/],
    ["openrouter", /^anthropic\//],
    ["ollama", /^llama/],
  ] as const)("has a default model for %s", async (name, pattern) => {
    const provider = await createProvider({ provider: name, apiKey: "k" });
    expect(provider.model.id).toMatch(pattern);
    expect(provider.model.contextWindow).toBeGreaterThan(0);
    // What `reson acp` says of images before a model is resolved is what the model says.
    expect(provider.model.takesImages).toBe(modelTakesImages(name, provider.model.id));
  });

  it("says without pi-ai whether each model of pi-ai's registry reads images, as the registry does", async () => {
    const { getModels } = await import("@mariozechner/pi-ai");
    for (const [name, entry] of Object.entries(PROVIDER_CATALOG)) {
      if (!entry.registry) {
        expect(modelTakesImages(name as ProviderName, "any-local-model")).toBe(false);
        continue;
      }
      // After a pi-ai upgrade: node scripts/text-only-models.mjs brings the list back.
      const models = getModels(entry.registry as Parameters<typeof getModels>[0]);
      const said = models.map((model) => [model.id, modelTakesImages(name as ProviderName, model.id)]);
      expect(said).toEqual(models.map((model) => [model.id, model.input.includes("image")]));
      // One the registry does not know is resolved as reading images (model.ts unknownModel).
      expect(modelTakesImages(name as ProviderName, "a-model-the-registry-lacks")).toBe(true);
    }
  });

  it("leaves /v1 off an Anthropic base URL, where the SDK adds it", async () => {
    const provider = await createProvider({
      provider: "anthropic",
      apiKey: "k",
      baseUrl: "http://proxy:9000/v1",
    });
    expect(provider.model.baseUrl).toBe("http://proxy:9000");
  });

  it("refuses a hosted provider without a key, and an unknown provider", async () => {
    const noKey = await rejection(createProvider({ provider: "openai" }));
    expect(noKey.code).toBe("no_provider_configured");
    expect(noKey.hint).toContain("OPENAI_API_KEY");
    const unknown = await rejection(createProvider({ provider: "nope" as "openai" }));
    expect(unknown.code).toBe("unknown_provider");
  });
});
