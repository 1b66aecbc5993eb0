// A Provider over pi-ai: `chat` runs attempts until one succeeds, retrying timeouts, rate
// limits and outages with backoff (Retry-After honoured, and a cap on it), and returns a
// snapshot of the final message with the usage of every attempt.
import type { AssistantMessage, Context, Usage as PiUsage } from "@mariozechner/pi-ai";
import { sleep, throwIfAborted } from "../core/abort.js";
import { ResonError } from "../core/errors.js";
import type { StopReason } from "../core/events.js";
import { addUsage, emptyUsage, type Usage } from "../core/usage.js";
import { type AttemptSetup, runAttempt } from "./attempt.js";
import { DUMMY_API_KEY, keyHint, PROVIDER_CATALOG, type WireApi } from "./catalog.js";
import { retryAfterTooLong } from "./classify.js";
import { resolveModel } from "./model.js";
import { loadPiAi } from "./pi.js";
import { backoffDelayMs, DEFAULT_RETRY_POLICY, isRetryable, retryAfterOf } from "./retry.js";
import {
  type ChatOptions,
  type ChatRequest,
  type ChatResult,
  type ModelInfo,
  PROVIDER_NAMES,
  type Provider,
  type ProviderSettings,
  type ProviderTimeouts,
  type RetryPolicy,
  type ToolCall,
} from "./types.js";

/** Hosted APIs answer headers quickly; silences over 90 s mean a dead stream. */
export const DEFAULT_TIMEOUTS: Readonly<ProviderTimeouts> = {
  headersTimeoutMs: 60_000,
  idleTimeoutMs: 90_000,
};
/** Local servers may load a model before answering, and run slowly on small machines. */
export const LOCAL_DEFAULT_TIMEOUTS: Readonly<ProviderTimeouts> = {
  headersTimeoutMs: 300_000,
  idleTimeoutMs: 120_000,
};

/** The raw stream's last word per protocol; a stream ending without it was cut short. */
const FINISH_MARKERS: Record<WireApi, RegExp | undefined> = {
  "openai-completions": /"finish_reason"\s*:\s*"[^"]|data:\s*\[DONE\]/,
  "anthropic-messages": /event:\s*message_stop|"type"\s*:\s*"message_stop"/,
  "google-generative-ai": undefined,
};

export interface CreateProviderOptions {
  retry?: Partial<RetryPolicy>;
  timeouts?: Partial<ProviderTimeouts>;
}

/**
 * A provider for `settings`, which must be complete: the key is used as given and never read
 * from the environment (resolveProviderSettings does that). Loads pi-ai (once per process).
 */
export async function createProvider(
  settings: ProviderSettings,
  options: CreateProviderOptions = {},
): Promise<Provider> {
  if (!(PROVIDER_NAMES as readonly string[]).includes(settings.provider)) {
    throw new ResonError("unknown_provider", `Unknown provider "${settings.provider}".`, {
      hint: `Use one of: ${PROVIDER_NAMES.join(", ")}.`,
    });
  }
  const entry = PROVIDER_CATALOG[settings.provider];
  const apiKey = settings.apiKey || (entry.needsKey ? undefined : DUMMY_API_KEY);
  if (!apiKey) {
    throw new ResonError("no_provider_configured", `No API key for ${settings.provider}.`, {
      hint: `To use ${settings.provider}, ${keyHint(settings.provider)}.`,
    });
  }
  const { pi, stream } = await loadPiAi(entry.api);
  const { model, info, maxTokens } = resolveModel(pi, settings);
  const timeouts = {
    ...(entry.registry === undefined ? LOCAL_DEFAULT_TIMEOUTS : DEFAULT_TIMEOUTS),
    ...definedOnly(options.timeouts),
  };
  const setup: AttemptSetup = {
    stream,
    isContextOverflow: pi.isContextOverflow,
    model,
    call: {
      provider: settings.provider,
      model: info.id,
      baseUrl: info.baseUrl,
      contextWindow: info.contextWindow,
      apiKey,
    },
    streamOptions: {
      apiKey,
      maxRetries: 0,
      timeoutMs: timeouts.headersTimeoutMs,
      maxTokens,
      // Explicit, so PI_CACHE_RETENTION in the environment cannot change it; "short" keeps
      // Anthropic's prompt cache on, and OpenAI-compatible servers ignore it.
      cacheRetention: "short",
      ...(settings.reasoning ? { reasoning: settings.reasoning } : {}),
    },
    timeouts,
    finishMarker: FINISH_MARKERS[entry.api],
  };
  return new PiProvider(info, setup, { ...DEFAULT_RETRY_POLICY, ...definedOnly(options.retry) });
}

class PiProvider implements Provider {
  constructor(
    readonly model: ModelInfo,
    private readonly setup: AttemptSetup,
    private readonly policy: RetryPolicy,
  ) {}

  async chat(request: ChatRequest, options: ChatOptions = {}): Promise<ChatResult> {
    const { signal, onEvent } = options;
    throwIfAborted(signal);
    const context: Context = {
      systemPrompt: request.systemPrompt,
      messages: request.messages,
      tools: request.tools,
    };
    let spent = emptyUsage();
    for (let attempt = 1; ; attempt++) {
      const outcome = await runAttempt(this.setup, context, signal, onEvent);
      if (outcome.ok) return toResult(outcome.message, spent, attempt);
      if (outcome.usage) spent = addUsage(spent, toUsage(outcome.usage));
      const error = outcome.error;
      if (error.code === "aborted") throw error;
      if (!isRetryable(error)) throw withAttempts(error, attempt);
      const retryAfterMs = retryAfterOf(error);
      if (retryAfterMs !== undefined && retryAfterMs > this.policy.maxRetryAfterMs) {
        throw withAttempts(retryAfterTooLong(error, retryAfterMs, this.policy.maxRetryAfterMs), attempt);
      }
      if (attempt >= this.policy.maxAttempts) throw withAttempts(error, attempt);
      const delayMs = backoffDelayMs(this.policy, attempt, retryAfterMs);
      onEvent?.({ type: "retry", notice: { attempt, maxAttempts: this.policy.maxAttempts, delayMs, error } });
      await sleep(delayMs, signal);
    }
  }
}

function toResult(final: AssistantMessage, spent: Usage, attempts: number): ChatResult {
  // pi-ai no longer touches the message after `done`; the copy protects the caller's store
  // from anyone mutating the returned tool calls.
  const message = structuredClone(final);
  let text = "";
  const toolCalls: ToolCall[] = [];
  for (const block of message.content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "toolCall") toolCalls.push(block);
  }
  return {
    message,
    text,
    toolCalls,
    stopReason: message.stopReason as StopReason,
    usage: addUsage(spent, toUsage(message.usage)),
    attempts,
  };
}

function toUsage(usage: PiUsage): Usage {
  return {
    input: usage.input,
    output: usage.output,
    cacheRead: usage.cacheRead,
    cacheWrite: usage.cacheWrite,
    totalTokens: usage.totalTokens,
    costUsd: usage.cost.total,
  };
}

function withAttempts(error: ResonError, attempts: number): ResonError {
  return new ResonError(error.code, error.message, {
    hint: error.hint,
    details: { ...error.details, attempts },
    cause: error.cause,
  });
}

function definedOnly<T extends object>(value: Partial<T> | undefined): Partial<T> {
  if (!value) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
