// Embedding providers against the fake server over real HTTP: both protocols, batching,
// normalised vectors, retries, timeouts, cancellation and the checks on what comes back.
import { describe, expect, it } from "vitest";
import {
  type CreateEmbeddingProviderOptions,
  createEmbeddingProvider,
  type EmbeddingSettings,
  type RetryNotice,
  resolveEmbeddingSettings,
} from "../../src/providers/index.js";
import { type FakeModelServer, fakeEmbedding } from "../support/fake-model-server.js";
import { rejection, useFakeServer } from "./harness.js";

const OPENAI_KEY = "sk-test-embed-0123456789";
const GEMINI_KEY = "AIza-test-embed-0123456789";

const FAST: CreateEmbeddingProviderOptions = {
  retry: { baseDelayMs: 5, maxDelayMs: 20, jitter: 0 },
  timeouts: { headersTimeoutMs: 5_000, idleTimeoutMs: 5_000 },
};

interface ProtocolCase {
  name: string;
  path: (model: string) => string;
  settings(server: FakeModelServer): EmbeddingSettings;
  /** The texts a recorded request carried. */
  texts(body: unknown): string[];
  keyHeader: (headers: Record<string, string>) => string | undefined;
}

const openaiTexts = (body: unknown) => (body as { input: string[] }).input;
const googleTexts = (body: unknown) =>
  (body as { requests: { content: { parts: { text: string }[] } }[] }).requests.map(
    (r) => r.content.parts[0]?.text ?? "",
  );

const PROTOCOLS: ProtocolCase[] = [
  {
    name: "openai",
    path: () => "/v1/embeddings",
    settings: (server) => ({
      provider: "openai",
      model: "text-embedding-3-small",
      baseUrl: server.openaiBaseUrl,
      apiKey: OPENAI_KEY,
    }),
    texts: openaiTexts,
    keyHeader: (headers) => headers.authorization,
  },
  {
    name: "google",
    path: (model) => `/v1beta/models/${model}:batchEmbedContents`,
    settings: (server) => ({
      provider: "google",
      model: "gemini-embedding-001",
      baseUrl: server.googleBaseUrl,
      apiKey: GEMINI_KEY,
    }),
    texts: googleTexts,
    keyHeader: (headers) => headers["x-goog-api-key"],
  },
];

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}

function close(actual: Float32Array, expected: number[]): void {
  expect(actual.length).toBe(expected.length);
  for (const [i, value] of actual.entries()) expect(value).toBeCloseTo(expected[i] ?? Number.NaN, 5);
}

describe.each(PROTOCOLS)("$name embeddings", (protocol) => {
  const fake = useFakeServer();

  it("returns one unit vector per text, in input order, and learns the dimensions", async () => {
    const provider = createEmbeddingProvider(protocol.settings(fake.server), FAST);
    expect(provider.dimensions).toBeUndefined();
    const texts = ["the cat sat on the mat", "a cat sat down", "stock prices fell sharply"];
    const vectors = await provider.embed(texts);

    expect(vectors).toHaveLength(3);
    vectors.forEach((vec, i) => {
      close(vec, fakeEmbedding(texts[i] ?? "", 64));
    });
    for (const vec of vectors) expect(dot(vec, vec)).toBeCloseTo(1, 5);
    expect(dot(vectors[0]!, vectors[1]!)).toBeGreaterThan(dot(vectors[0]!, vectors[2]!));
    expect(provider.dimensions).toBe(64);

    const [request] = fake.server.requests;
    expect(request?.path).toBe(protocol.path(provider.model));
    expect(protocol.texts(request?.body)).toEqual(texts);
  });

  it("sends the key in a header and never in the URL", async () => {
    const provider = createEmbeddingProvider(protocol.settings(fake.server), FAST);
    await provider.embed(["hello"]);
    const [request] = fake.server.requests;
    expect(protocol.keyHeader(request?.headers ?? {})).toContain(
      protocol.name === "openai" ? OPENAI_KEY : GEMINI_KEY,
    );
    expect(request?.path).not.toContain("key");
  });

  it("cuts large inputs into batches of the configured size, keeping the order", async () => {
    const provider = createEmbeddingProvider({ ...protocol.settings(fake.server), batchSize: 4 }, FAST);
    const texts = Array.from({ length: 10 }, (_, i) => `note number ${i}`);
    const vectors = await provider.embed(texts);

    expect(fake.server.requests.map((r) => protocol.texts(r.body).length)).toEqual([4, 4, 2]);
    vectors.forEach((vec, i) => {
      close(vec, fakeEmbedding(texts[i] ?? "", 64));
    });
  });

  it("asks for the configured dimensions and checks them", async () => {
    const provider = createEmbeddingProvider({ ...protocol.settings(fake.server), dimensions: 32 }, FAST);
    expect(provider.dimensions).toBe(32);
    expect(provider.id).toMatch(/@32$/);
    const [vec] = await provider.embed(["short vectors"]);
    expect(vec).toHaveLength(32);
  });

  it("retries 429 and 503, honouring Retry-After, then succeeds", async () => {
    fake.server.enqueueEmbeddings(
      { fault: "http", status: 429, retryAfter: "0.05" },
      { fault: "http", status: 503 },
    );
    const notices: RetryNotice[] = [];
    const provider = createEmbeddingProvider(protocol.settings(fake.server), FAST);
    const vectors = await provider.embed(["try again"], { onRetry: (notice) => notices.push(notice) });

    expect(vectors).toHaveLength(1);
    expect(fake.server.requests).toHaveLength(3);
    expect(notices.map((n) => [n.attempt, n.error.code])).toEqual([
      [1, "provider_rate_limited"],
      [2, "provider_unavailable"],
    ]);
    expect(notices[0]?.delayMs).toBe(50);
  });

  it("gives up after the last attempt with the error and the number of attempts", async () => {
    fake.server.enqueueEmbeddings(
      ...Array.from({ length: 3 }, () => ({ fault: "http" as const, status: 503 })),
    );
    const provider = createEmbeddingProvider(protocol.settings(fake.server), {
      ...FAST,
      retry: { ...FAST.retry, maxAttempts: 3 },
    });
    const error = await rejection(provider.embed(["down"]));
    expect(error.code).toBe("provider_unavailable");
    expect(error.details?.attempts).toBe(3);
  });

  it("fails at once when Retry-After is longer than reson waits", async () => {
    fake.server.enqueueEmbeddings({ fault: "http", status: 429, retryAfter: "3600" });
    const provider = createEmbeddingProvider(protocol.settings(fake.server), FAST);
    const error = await rejection(provider.embed(["later"]));
    expect(error.code).toBe("provider_rate_limited");
    expect(error.hint).toMatch(/asked to wait 1 h,/);
    expect(fake.server.requests).toHaveLength(1);
  });

  it("maps an input that is too long to provider_context_overflow without retrying", async () => {
    fake.server.enqueueEmbeddings({ fault: "overflow" });
    const provider = createEmbeddingProvider(protocol.settings(fake.server), FAST);
    const error = await rejection(provider.embed(["very long"]));
    expect(error.code).toBe("provider_context_overflow");
    expect(error.hint).toMatch(/Split long texts/);
    expect(fake.server.requests).toHaveLength(1);
  });

  it("maps an unknown model to provider_bad_response naming the embeddings settings", async () => {
    fake.server.enqueueEmbeddings({ fault: "http", status: 404 });
    const provider = createEmbeddingProvider(protocol.settings(fake.server), FAST);
    const error = await rejection(provider.embed(["x"]));
    expect(error.code).toBe("provider_bad_response");
    expect(error.hint).toContain("embeddings.model");
  });

  it("fails with provider_bad_response when a vector has another size than before", async () => {
    const provider = createEmbeddingProvider(protocol.settings(fake.server), FAST);
    await provider.embed(["first"]);
    fake.server.enqueueEmbeddings({ dimensions: 16 });
    const error = await rejection(provider.embed(["second"]));
    expect(error.code).toBe("provider_bad_response");
    expect(error.message).toMatch(/16 dimensions, expected 64/);
    expect(fake.server.requests).toHaveLength(2);
  });

  it("fails with provider_bad_response when the vectors do not match the configured dimensions", async () => {
    fake.server.enqueueEmbeddings({ dimensions: 16 });
    const provider = createEmbeddingProvider({ ...protocol.settings(fake.server), dimensions: 32 }, FAST);
    const error = await rejection(provider.embed(["x"]));
    expect(error.code).toBe("provider_bad_response");
    expect(error.hint).toMatch(/embeddings\.dimensions is 32/);
  });

  it("fails with provider_bad_response when a vector is missing", async () => {
    fake.server.enqueueEmbeddings({ vectorCount: 1 });
    const provider = createEmbeddingProvider(protocol.settings(fake.server), FAST);
    const error = await rejection(provider.embed(["a", "b"]));
    expect(error.code).toBe("provider_bad_response");
    expect(error.message).toMatch(/1 vectors for 2 texts/);
  });

  it("fails with provider_bad_response on a body cut in half, without retrying", async () => {
    fake.server.enqueueEmbeddings({ fault: "truncate" });
    const provider = createEmbeddingProvider(protocol.settings(fake.server), FAST);
    const error = await rejection(provider.embed(["x"]));
    expect(error.code).toBe("provider_bad_response");
    expect(fake.server.requests).toHaveLength(1);
  });

  it("retries a connection reset", async () => {
    fake.server.enqueueEmbeddings({ fault: "reset", beforeHeaders: true });
    const provider = createEmbeddingProvider(protocol.settings(fake.server), FAST);
    expect(await provider.embed(["again"])).toHaveLength(1);
    expect(fake.server.requests).toHaveLength(2);
  });

  it("times out a server that sends no headers, then retries", async () => {
    fake.server.enqueueEmbeddings({ fault: "hang" });
    const provider = createEmbeddingProvider(protocol.settings(fake.server), {
      ...FAST,
      timeouts: { headersTimeoutMs: 200, idleTimeoutMs: 200 },
    });
    const notices: RetryNotice[] = [];
    expect(await provider.embed(["slow"], { onRetry: (n) => notices.push(n) })).toHaveLength(1);
    expect(notices[0]?.error.code).toBe("provider_timeout");
  });

  it("times out a body that stalls half way", async () => {
    fake.server.enqueueEmbeddings({ fault: "stall" }, { fault: "stall" });
    const provider = createEmbeddingProvider(protocol.settings(fake.server), {
      retry: { maxAttempts: 2, baseDelayMs: 5, jitter: 0 },
      timeouts: { headersTimeoutMs: 1_000, idleTimeoutMs: 200 },
    });
    const error = await rejection(provider.embed(["stalls"]));
    expect(error.code).toBe("provider_timeout");
    expect(error.message).toMatch(/no data for 200 ms/);
  });

  it("stops promptly when the caller aborts a hanging request", async () => {
    fake.server.enqueueEmbeddings({ fault: "hang" });
    const provider = createEmbeddingProvider(protocol.settings(fake.server), FAST);
    const controller = new AbortController();
    const pending = provider.embed(["never answered"], { signal: controller.signal });
    // Abort once the request is in (a busy machine may take longer than any fixed delay).
    for (let i = 0; i < 500 && fake.server.requests.length === 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    const error = await rejection(pending);
    expect(error.code).toBe("aborted");
    expect(fake.server.requests).toHaveLength(1);
  });

  it("stops during a retry wait when the caller aborts", async () => {
    fake.server.enqueueEmbeddings({ fault: "http", status: 429, retryAfter: "30" });
    const provider = createEmbeddingProvider(protocol.settings(fake.server), FAST);
    const controller = new AbortController();
    const error = await rejection(
      provider.embed(["x"], { signal: controller.signal, onRetry: () => controller.abort() }),
    );
    expect(error.code).toBe("aborted");
    expect(fake.server.requests).toHaveLength(1);
  });

  it("sends nothing for an empty list or an aborted signal", async () => {
    const provider = createEmbeddingProvider(protocol.settings(fake.server), FAST);
    expect(await provider.embed([])).toEqual([]);
    const error = await rejection(provider.embed(["x"], { signal: AbortSignal.abort() }));
    expect(error.code).toBe("aborted");
    expect(fake.server.requests).toHaveLength(0);
  });
});

describe("embedding errors", () => {
  const fake = useFakeServer();

  it("maps OpenAI's 401 to provider_auth_failed with a hint, and never repeats the key", async () => {
    fake.server.enqueueEmbeddings({ fault: "http", status: 401 });
    const provider = createEmbeddingProvider(PROTOCOLS[0]!.settings(fake.server), FAST);
    const error = await rejection(provider.embed(["x"]));

    expect(error.code).toBe("provider_auth_failed");
    expect(error.hint).toBe(
      "Check the key for openai embeddings: Set OPENAI_API_KEY (or RESON_EMBEDDINGS_API_KEY).",
    );
    // The fake server echoes the key in its 401 body, as OpenAI does.
    expect(JSON.stringify(error.toJSON())).not.toContain(OPENAI_KEY);
    expect(error.message).toContain("[redacted]");
    expect(fake.server.requests).toHaveLength(1);
  });

  it("maps Google's 400 API_KEY_INVALID to provider_auth_failed", async () => {
    fake.server.enqueueEmbeddings({
      fault: "http",
      status: 400,
      message: "API key not valid. Please pass a valid API key.",
    });
    const provider = createEmbeddingProvider(PROTOCOLS[1]!.settings(fake.server), FAST);
    const error = await rejection(provider.embed(["x"]));
    expect(error.code).toBe("provider_auth_failed");
    expect(error.hint).toContain("GEMINI_API_KEY");
  });

  it("maps a server that is not listening to provider_unavailable after the retries", async () => {
    const url = fake.server.openaiBaseUrl;
    await fake.server.close();
    const provider = createEmbeddingProvider(
      { provider: "openai-compatible", model: "bge-m3", baseUrl: url },
      { ...FAST, retry: { ...FAST.retry, maxAttempts: 2 } },
    );
    const error = await rejection(provider.embed(["x"]));
    expect(error.code).toBe("provider_unavailable");
    expect(error.hint).toContain(url);
    expect(error.details?.attempts).toBe(2);
  });

  it("refuses to create a hosted provider without a key", () => {
    expect(() =>
      createEmbeddingProvider({ provider: "openai", model: "m", baseUrl: "https://x.test/v1" }),
    ).toThrow(expect.objectContaining({ code: "no_provider_configured" }));
  });
});

describe("embedding batches", () => {
  const fake = useFakeServer();

  it("never sends Google more than its 100-request limit, whatever batch size is asked for", async () => {
    const provider = createEmbeddingProvider(
      { ...PROTOCOLS[1]!.settings(fake.server), batchSize: 500 },
      FAST,
    );
    const vectors = await provider.embed(Array.from({ length: 230 }, (_, i) => `t${i}`));
    expect(vectors).toHaveLength(230);
    expect(fake.server.requests.map((r) => googleTexts(r.body).length)).toEqual([100, 100, 30]);
  });

  it("uses 96 texts per request by default", async () => {
    const provider = createEmbeddingProvider(PROTOCOLS[0]!.settings(fake.server), FAST);
    await provider.embed(Array.from({ length: 100 }, (_, i) => `t${i}`));
    expect(fake.server.requests.map((r) => openaiTexts(r.body).length)).toEqual([96, 4]);
  });

  it("starts a new request before the characters of one would pass the budget", async () => {
    const provider = createEmbeddingProvider(PROTOCOLS[0]!.settings(fake.server), FAST);
    const big = "word ".repeat(30_000); // 150k characters
    await provider.embed([big, big, "small"]);
    expect(fake.server.requests.map((r) => openaiTexts(r.body).length)).toEqual([1, 2]);
  });
});

describe("ollama embeddings", () => {
  const fake = useFakeServer();

  it("talks to OLLAMA_HOST's /v1/embeddings with nomic-embed-text and no key", async () => {
    const env = { OLLAMA_HOST: fake.server.url, OPENAI_API_KEY: "sk-must-not-leak" };
    const { settings } = resolveEmbeddingSettings({ embeddings: { provider: "ollama" } }, env);
    expect(settings).toEqual({
      provider: "ollama",
      model: "nomic-embed-text",
      baseUrl: `${fake.server.url}/v1`,
    });
    const provider = createEmbeddingProvider(settings!, FAST);
    expect(provider.id).toBe("ollama/nomic-embed-text");
    await provider.embed(["local"]);

    const [request] = fake.server.requests;
    expect(request?.path).toBe("/v1/embeddings");
    expect(request?.body).toEqual({ model: "nomic-embed-text", input: ["local"], encoding_format: "float" });
    expect(request?.headers.authorization).toBeUndefined();
  });
});
