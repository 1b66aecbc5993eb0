// An EmbeddingProvider over HTTP: texts cut into batches (the configured size, capped by the
// protocol's limit and a character budget), each batch sent with the chat provider's retry
// policy (backoff with jitter, Retry-After honoured and capped; only timeouts, rate limits and
// outages are retried), and the vectors checked (one per text, all the same length, the same
// length as before) and normalised.
import { sleep, throwIfAborted } from "../../core/abort.js";
import { ResonError } from "../../core/errors.js";
import { type CallFacts, type CallHints, malformedFailure } from "../classify.js";
import { DEFAULT_TIMEOUTS, definedOnly, LOCAL_DEFAULT_TIMEOUTS } from "../provider.js";
import { DEFAULT_RETRY_POLICY, planRetry } from "../retry.js";
import type { ProviderTimeouts, RetryPolicy } from "../types.js";
import {
  DEFAULT_EMBEDDING_BATCH_SIZE,
  EMBEDDING_CATALOG,
  EMBEDDINGS_KEY_ENV,
  type EmbeddingProviderEntry,
  MAX_BATCH_CHARS,
} from "./catalog.js";
import { googleProtocol } from "./google.js";
import { openaiProtocol } from "./openai.js";
import { postJson } from "./post-json.js";
import { EmbeddingFormatError, type EmbeddingProtocol } from "./protocol.js";
import {
  EMBEDDING_PROVIDER_NAMES,
  type EmbeddingProvider,
  type EmbeddingSettings,
  type EmbedOptions,
} from "./types.js";
import { normalizedVector } from "./vector.js";

export interface CreateEmbeddingProviderOptions {
  retry?: Partial<RetryPolicy>;
  /** Per request: until the response headers, then the longest silence in the body. */
  timeouts?: Partial<ProviderTimeouts>;
  /** Texts per request; default settings.batchSize, else 96; never above the protocol's limit. */
  batchSize?: number;
}

/**
 * A provider for `settings`, which must be complete (resolveEmbeddingSettings makes them):
 * the key is used as given and never read from the environment.
 */
export function createEmbeddingProvider(
  settings: EmbeddingSettings,
  options: CreateEmbeddingProviderOptions = {},
): EmbeddingProvider {
  if (!(EMBEDDING_PROVIDER_NAMES as readonly string[]).includes(settings.provider)) {
    throw new ResonError("unknown_provider", `Unknown embeddings provider "${settings.provider}".`, {
      hint: `Use one of: ${EMBEDDING_PROVIDER_NAMES.join(", ")}.`,
    });
  }
  const entry = EMBEDDING_CATALOG[settings.provider];
  if (entry.needsKey && !settings.apiKey) {
    throw new ResonError("no_provider_configured", `No API key for ${settings.provider} embeddings.`, {
      hint: keyHint(entry),
    });
  }
  const protocol = entry.protocol === "google" ? googleProtocol(settings) : openaiProtocol(settings);
  const requested = options.batchSize ?? settings.batchSize ?? DEFAULT_EMBEDDING_BATCH_SIZE;
  return new HttpEmbeddingProvider(settings, protocol, {
    call: {
      provider: settings.provider,
      model: settings.model,
      baseUrl: settings.baseUrl,
      contextWindow: 0,
      apiKey: settings.apiKey ?? "",
      hints: hintsFor(settings, entry),
    },
    policy: { ...DEFAULT_RETRY_POLICY, ...definedOnly(options.retry) },
    timeouts: {
      ...(entry.local ? LOCAL_DEFAULT_TIMEOUTS : DEFAULT_TIMEOUTS),
      ...definedOnly(options.timeouts),
    },
    batchSize: Math.max(1, Math.min(Math.floor(requested), protocol.maxBatch)),
  });
}

/** The identity of the vectors a provider makes: what they depend on, and nothing else. */
export function embeddingModelId(settings: EmbeddingSettings): string {
  const base = `${settings.provider}/${settings.model}`;
  return settings.dimensions !== undefined ? `${base}@${settings.dimensions}` : base;
}

interface Setup {
  call: CallFacts;
  policy: RetryPolicy;
  timeouts: ProviderTimeouts;
  batchSize: number;
}

type BatchOutcome = { ok: true; vectors: Float32Array[] } | { ok: false; error: ResonError };

class HttpEmbeddingProvider implements EmbeddingProvider {
  readonly id: string;
  readonly model: string;
  private knownDimensions: number | undefined;

  constructor(
    private readonly settings: EmbeddingSettings,
    private readonly protocol: EmbeddingProtocol,
    private readonly setup: Setup,
  ) {
    this.id = embeddingModelId(settings);
    this.model = settings.model;
    this.knownDimensions = settings.dimensions;
  }

  get dimensions(): number | undefined {
    return this.knownDimensions;
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    throwIfAborted(options.signal);
    const out: Float32Array[] = [];
    for (const batch of batches(texts, this.setup.batchSize, MAX_BATCH_CHARS)) {
      out.push(...(await this.embedBatch(batch, options)));
    }
    return out;
  }

  private async embedBatch(texts: string[], options: EmbedOptions): Promise<Float32Array[]> {
    const { signal, onRetry } = options;
    const { call, policy, timeouts } = this.setup;
    const request = this.protocol.request(texts);
    for (let attempt = 1; ; attempt++) {
      const response = await postJson(call, request, timeouts, signal);
      const outcome = response.ok ? this.read(response.body, texts.length) : response;
      if (outcome.ok) return outcome.vectors;
      const step = planRetry(policy, outcome.error, attempt);
      if (!step.retry) throw step.error;
      onRetry?.({ attempt, maxAttempts: policy.maxAttempts, delayMs: step.delayMs, error: outcome.error });
      await sleep(step.delayMs, signal);
    }
  }

  /** The vectors of a response body, checked: a wrong count or size is a bad response, not retried. */
  private read(body: unknown, count: number): BatchOutcome {
    const call = this.setup.call;
    let raw: number[][];
    try {
      raw = this.protocol.vectors(body);
    } catch (error) {
      if (error instanceof EmbeddingFormatError)
        return { ok: false, error: malformedFailure(call, error.message) };
      throw error;
    }
    if (raw.length !== count) {
      return {
        ok: false,
        error: malformedFailure(call, `it returned ${raw.length} vectors for ${count} texts`),
      };
    }
    const expected = this.knownDimensions ?? raw[0]?.length;
    for (const values of raw) {
      if (values.length === 0)
        return { ok: false, error: malformedFailure(call, "it returned an empty vector") };
      if (expected !== undefined && values.length !== expected) {
        return { ok: false, error: this.wrongSize(values.length, expected) };
      }
      if (!values.every(Number.isFinite)) {
        return {
          ok: false,
          error: malformedFailure(call, "a vector holds a value that is not a finite number"),
        };
      }
    }
    this.knownDimensions = expected;
    return { ok: true, vectors: raw.map(normalizedVector) };
  }

  private wrongSize(received: number, expected: number): ResonError {
    const { provider, model } = this.settings;
    const configured = this.settings.dimensions !== undefined;
    const hint = configured
      ? `embeddings.dimensions is ${expected}: the model may not shorten its vectors; remove embeddings.dimensions or choose a model that supports it.`
      : "The server may now be serving another model under this name; check embeddings.model. Vectors of different sizes are never mixed.";
    return new ResonError(
      "provider_bad_response",
      `${provider} (${model}) returned a vector of ${received} dimensions, expected ${expected}`,
      { hint, details: { provider, model, expectedDimensions: expected, receivedDimensions: received } },
    );
  }
}

/** Consecutive runs of at most `size` texts and, unless a single text is longer, `maxChars` characters. */
function* batches(texts: string[], size: number, maxChars: number): Generator<string[]> {
  let batch: string[] = [];
  let chars = 0;
  for (const text of texts) {
    if (batch.length > 0 && (batch.length >= size || chars + text.length > maxChars)) {
      yield batch;
      batch = [];
      chars = 0;
    }
    batch.push(text);
    chars += text.length;
  }
  if (batch.length > 0) yield batch;
}

function keyHint(entry: EmbeddingProviderEntry): string {
  return entry.envKey
    ? `Set ${entry.envKey} (or ${EMBEDDINGS_KEY_ENV}).`
    : `Set ${EMBEDDINGS_KEY_ENV} to the key the server expects.`;
}

/** Hints that name the embeddings settings rather than the chat flags. */
function hintsFor(settings: EmbeddingSettings, entry: EmbeddingProviderEntry): CallHints {
  const pull = settings.provider === "ollama" ? ` (with Ollama: ollama pull ${settings.model})` : "";
  return {
    auth: `Check the key for ${settings.provider} embeddings: ${keyHint(entry)}`,
    settings: `Check embeddings.model (${settings.model})${pull} and embeddings.baseUrl (${settings.baseUrl}); if it persists, the server may not speak the ${entry.protocol} embeddings protocol.`,
    overflow: `Split long texts into smaller pieces before embedding them, or use a model that accepts longer inputs than ${settings.model}.`,
  };
}
