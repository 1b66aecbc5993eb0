// A Provider: `chat` runs attempts until one succeeds, retrying timeouts, rate limits and
// outages with backoff (Retry-After honoured, and a cap on it), and returns a snapshot of the
// final message with the usage of every attempt. The attempts go through a Wire: pi-ai, or
// for openai-compatible and ollama reson's own OpenAI Chat Completions client.
import type { AssistantMessage, Context, Usage as PiUsage } from "@mariozechner/pi-ai";
import { sleep, throwIfAborted } from "../core/abort.js";
import { ResonError } from "../core/errors.js";
import type { StopReason } from "../core/events.js";
import { addUsage, emptyUsage, type Usage } from "../core/usage.js";
import { flattenDeepArguments } from "./argument-depth.js";
import { type AttemptSetup, runAttempt } from "./attempt.js";
import { DUMMY_API_KEY, keyHint, PROVIDER_CATALOG, type WireApi } from "./catalog.js";
import type { CallFacts, CallHints } from "./classify.js";
import { resolveModel } from "./model.js";
import { createNativeWire } from "./openai-wire/native.js";
import { loadPiAi } from "./pi.js";
import { DEFAULT_RETRY_POLICY, planRetry } from "./retry.js";
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
  WIRE_NAMES,
  type WireName,
} from "./types.js";
import type { Wire } from "./wire.js";

/** The providers the native wire serves: plain OpenAI-compatible servers, no vendor quirks. */
const NATIVE_WIRE_PROVIDERS = PROVIDER_NAMES.filter((name) => PROVIDER_CATALOG[name].nativeWire);

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
  // Gemini's last chunk carries the finish reason (a function call ends with STOP too).
  "google-generative-ai": /"finishReason"\s*:\s*"/,
};

export interface CreateProviderOptions {
  retry?: Partial<RetryPolicy>;
  timeouts?: Partial<ProviderTimeouts>;
  /** The host's own hints for failed calls (an editor's user has no --api-key to pass). */
  hints?: CallHints;
}

/**
 * A provider for `settings`, which must be complete: the key is used as given and never read
 * from the environment (resolveProviderSettings does that). The pi-ai wire loads pi-ai (once
 * per process); the native wire does not.
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
  const wire = wireFor(settings);
  const apiKey = settings.apiKey || (entry.needsKey ? undefined : DUMMY_API_KEY);
  if (!apiKey) {
    throw new ResonError("no_provider_configured", `No API key for ${settings.provider}.`, {
      hint: `To use ${settings.provider}, ${keyHint(settings.provider)}.`,
    });
  }
  const timeouts = {
    ...(entry.registry === undefined ? LOCAL_DEFAULT_TIMEOUTS : DEFAULT_TIMEOUTS),
    ...definedOnly(options.timeouts),
  };
  const policy = { ...DEFAULT_RETRY_POLICY, ...definedOnly(options.retry) };

  if (wire === "native") {
    const { info, maxTokens } = resolveModel(undefined, settings, wire);
    const native = await createNativeWire({
      model: info,
      maxTokens,
      call: callFacts(info, apiKey, options.hints),
      timeouts,
    });
    return new RetryingProvider(info, native, policy);
  }

  const { pi, stream } = await loadPiAi(entry.api);
  const { model, info, maxTokens } = resolveModel(pi, settings, wire);
  const setup: AttemptSetup = {
    stream,
    isContextOverflow: pi.isContextOverflow,
    model,
    call: callFacts(info, apiKey, options.hints),
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
  const piWire: Wire<Context> = {
    prepare: (request) => ({
      systemPrompt: request.systemPrompt,
      messages: request.messages,
      tools: request.tools,
    }),
    attempt: (context, signal, onEvent) => runAttempt(setup, context, signal, onEvent),
    release: () => {},
  };
  return new RetryingProvider(info, piWire, policy);
}

function wireFor(settings: ProviderSettings): WireName {
  const nativeCapable = PROVIDER_CATALOG[settings.provider].nativeWire === true;
  const wire = settings.wire ?? (nativeCapable ? "native" : "pi-ai");
  if (!(WIRE_NAMES as readonly string[]).includes(wire)) {
    throw new ResonError("config_invalid", `Unknown wire "${wire}".`, {
      hint: `Use one of: ${WIRE_NAMES.join(", ")}.`,
    });
  }
  if (wire === "native" && !nativeCapable) {
    throw new ResonError(
      "config_invalid",
      `The native wire does not serve the ${settings.provider} provider.`,
      {
        hint: `It serves ${NATIVE_WIRE_PROVIDERS.join(" and ")}; use the pi-ai wire (the default) for ${settings.provider}.`,
      },
    );
  }
  return wire;
}

function callFacts(info: ModelInfo, apiKey: string, hints: CallHints | undefined): CallFacts {
  return {
    provider: info.provider,
    model: info.id,
    baseUrl: info.baseUrl,
    contextWindow: info.contextWindow,
    apiKey,
    ...(hints ? { hints } : {}),
  };
}

class RetryingProvider<Prepared> implements Provider {
  constructor(
    readonly model: ModelInfo,
    private readonly wire: Wire<Prepared>,
    private readonly policy: RetryPolicy,
  ) {}

  preconnect(): void {
    this.wire.preconnect?.();
  }

  async chat(request: ChatRequest, options: ChatOptions = {}): Promise<ChatResult> {
    const { signal, onEvent } = options;
    throwIfAborted(signal);
    const prepared = this.wire.prepare(request);
    try {
      let spent = emptyUsage();
      for (let attempt = 1; ; attempt++) {
        const outcome = await this.wire.attempt(prepared, signal, onEvent);
        if (outcome.ok) return toResult(outcome.message, spent, attempt, this.model.priced);
        if (outcome.usage) spent = addUsage(spent, toUsage(outcome.usage, this.model.priced));
        const error = outcome.error;
        const step = planRetry(this.policy, error, attempt);
        if (!step.retry) throw step.error;
        const { delayMs } = step;
        onEvent?.({
          type: "retry",
          notice: { attempt, maxAttempts: this.policy.maxAttempts, delayMs, error },
        });
        await sleep(delayMs, signal);
      }
    } finally {
      this.wire.release(prepared);
    }
  }
}

function toResult(final: AssistantMessage, spent: Usage, attempts: number, priced: boolean): ChatResult {
  // No wire touches the message after its attempt; the copy protects the caller's store
  // from anyone mutating the returned tool calls.
  // Arguments nested past what a copy (or a store) can walk are dropped first, on every wire.
  const message = structuredClone(flattenDeepArguments(final));
  let text = "";
  const toolCalls: ToolCall[] = [];
  for (const block of message.content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "toolCall") toolCalls.push(block);
  }
  // A reply with complete tool calls is a tool-use stop, whatever the stream said: some
  // servers end with [DONE] and no finish_reason (OpenRouter), or say "stop" (older Ollama),
  // and both wires then default to "stop". A cut-off reply ("length") stays what it is.
  if (message.stopReason === "stop" && toolCalls.length > 0) message.stopReason = "toolUse";
  return {
    message,
    text,
    toolCalls,
    stopReason: message.stopReason as StopReason,
    usage: addUsage(spent, toUsage(message.usage, priced)),
    attempts,
  };
}

/** A call's usage; a model with no known price adds its tokens to `unpricedTokens`, not $0. */
function toUsage(usage: PiUsage, priced: boolean): Usage {
  return {
    input: usage.input,
    output: usage.output,
    cacheRead: usage.cacheRead,
    cacheWrite: usage.cacheWrite,
    totalTokens: usage.totalTokens,
    costUsd: usage.cost.total,
    ...(!priced && usage.totalTokens > 0 ? { unpricedTokens: usage.totalTokens } : {}),
  };
}

/** The fields of `value` that are set, so they can be spread over defaults. */
export function definedOnly<T extends object>(value: Partial<T> | undefined): Partial<T> {
  if (!value) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
