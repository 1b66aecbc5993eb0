// The provider contract: one `chat` call streams one model response and ends in a result
// or a ResonError whose code is one of the six provider codes (or `aborted` when the caller
// cancelled). pi-ai's message types are the conversation format: plain JSON that can be
// stored and replayed as it is.
import type {
  AssistantMessage,
  Message,
  ToolCall as PiToolCall,
  ThinkingLevel,
  ToolResultMessage,
  UserMessage,
} from "@mariozechner/pi-ai";
import type { TSchema } from "typebox";
import type { ResonError } from "../core/errors.js";
import type { StopReason } from "../core/events.js";
import type { Usage } from "../core/usage.js";

export type { AssistantMessage, Message, ThinkingLevel, ToolResultMessage, UserMessage };
export type ToolCall = PiToolCall;

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
}

/** Facts about the model in use. */
export interface ModelInfo {
  provider: ProviderName;
  id: string;
  baseUrl: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** USD per million tokens. */
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number };
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
}
