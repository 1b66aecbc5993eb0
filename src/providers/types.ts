// The provider contract: one `chat` call streams one model response and ends in a result
// or a ResonError whose code is one of the six provider codes (or `aborted` when the caller
// cancelled). pi-ai's message types are the conversation format: plain JSON that can be
// stored and replayed as it is.
import type {
  AssistantMessage,
  ImageContent,
  Message,
  ToolCall as PiToolCall,
  TextContent,
  ThinkingLevel,
  ToolResultMessage,
  UserMessage,
} from "@mariozechner/pi-ai";
import type { TSchema } from "typebox";
import type { ResonError } from "../core/errors.js";
import type { StopReason } from "../core/events.js";
import type { Usage } from "../core/usage.js";

export type {
  AssistantMessage,
  ImageContent,
  Message,
  TextContent,
  ThinkingLevel,
  ToolResultMessage,
  UserMessage,
};

/**
 * A tool call as the model made it. When its arguments were not a JSON object (invalid JSON,
 * often a cut-off answer), the native wire sets `arguments` to {} and keeps the text the
 * model sent in `rawArguments`, for error messages; it is absent otherwise. Only `arguments`
 * is ever sent back to a model, so a stored conversation stays valid for every server.
 */
export type ToolCall = PiToolCall & { rawArguments?: string };

export const PROVIDER_NAMES = [
  "anthropic",
  "openai",
  "google",
  "deepseek",
  "openrouter",
  "ollama",
  "openai-compatible",
] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/**
 * How a provider talks to its server. "native" is reson's own OpenAI Chat Completions client
 * (incremental request bodies, node:http keep-alive), the default for openai-compatible and
 * ollama, the only providers it serves. "pi-ai" goes through @mariozechner/pi-ai, the only
 * wire of every other provider.
 */
export const WIRE_NAMES = ["native", "pi-ai"] as const;
export type WireName = (typeof WIRE_NAMES)[number];

/** What the user asked for (flags, config, environment), before resolution. */
export interface ProviderSettings {
  provider: ProviderName;
  /** Model id as the server knows it; a default per provider when absent. */
  model?: string;
  baseUrl?: string;
  /** The key itself; never logged or written anywhere. */
  apiKey?: string;
  contextWindow?: number;
  maxTokens?: number;
  /** Thinking effort for reasoning models; off when absent. */
  reasoning?: ThinkingLevel;
  /** The client to use; "native" for openai-compatible and ollama, "pi-ai" otherwise, when absent. */
  wire?: WireName;
}

/** Facts about the model in use. */
export interface ModelInfo {
  provider: ProviderName;
  id: string;
  baseUrl: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** USD per million tokens (zeros when the price is not known). */
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /**
   * The price is known (pi-ai's registry has the model): false for local servers and model ids
   * the registry lacks, whose calls cost an unknown amount (`Usage.unpricedTokens`), not $0.
   */
  priced: boolean;
  /** The client in use. */
  wire: WireName;
  /**
   * The model reads images in a user's message (pi-ai's registry says so, or a hosted
   * provider's unknown model); false for local servers, whose images become a placeholder.
   */
  takesImages: boolean;
}

export interface ToolSpec {
  name: string;
  description: string;
  parameters: TSchema;
}

export interface ChatRequest {
  systemPrompt: string;
  messages: Message[];
  tools: ToolSpec[];
}

export interface RetryNotice {
  /** The attempt that failed, 1-based. */
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  error: ResonError;
}

export type ChatStreamEvent =
  | { type: "text_delta"; delta: string }
  | { type: "thinking_delta"; delta: string }
  | { type: "retry"; notice: RetryNotice };

export interface ChatOptions {
  signal?: AbortSignal;
  onEvent?: (event: ChatStreamEvent) => void;
}

export interface ChatResult {
  /** A snapshot of the final assistant message, safe to store. */
  message: AssistantMessage;
  text: string;
  toolCalls: ToolCall[];
  stopReason: StopReason;
  /** Usage of the successful attempt plus any failed attempts before it. */
  usage: Usage;
  attempts: number;
}

export interface RetryPolicy {
  /** Total attempts including the first. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this fails at once instead of waiting. */
  maxRetryAfterMs: number;
  /** Fraction of the delay added or removed at random (0.25 = ±25%). */
  jitter: number;
}

export interface ProviderTimeouts {
  /** Until the response headers arrive. */
  headersTimeoutMs: number;
  /** Longest silence allowed between two stream chunks. */
  idleTimeoutMs: number;
}

export interface Provider {
  readonly model: ModelInfo;
  chat(request: ChatRequest, options?: ChatOptions): Promise<ChatResult>;
  /**
   * A call is coming: opens its connection now (TCP, and TLS for https), so it is ready when
   * the request is. Optional; a provider without kept connections does nothing.
   */
  preconnect?(): void;
}
