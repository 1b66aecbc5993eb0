// What a provider's retry loop needs from the client underneath it, whichever it is: pi-ai
// (every provider) or reson's own OpenAI Chat Completions client (openai-compatible, ollama).
import type { Usage as PiUsage } from "@mariozechner/pi-ai";
import type { ResonError } from "../core/errors.js";
import type { AssistantMessage, ChatRequest, ChatStreamEvent } from "./types.js";

export type AttemptOutcome =
  | { ok: true; message: AssistantMessage }
  | { ok: false; error: ResonError; usage: PiUsage | undefined };

export interface Wire<Prepared> {
  /** The work done once per chat call, before its first attempt (a request body, say). */
  prepare(request: ChatRequest): Prepared;
  /**
   * One attempt, never retried here. Settles as soon as `signal` aborts. Failures are
   * outcomes; only an error thrown by `onEvent` is thrown, as it is.
   */
  attempt(
    prepared: Prepared,
    signal: AbortSignal | undefined,
    onEvent: ((event: ChatStreamEvent) => void) | undefined,
  ): Promise<AttemptOutcome>;
  /** The chat call is over, whatever its outcome. */
  release(prepared: Prepared): void;
  /** Opens the connection the next attempt will use, if this client keeps connections. */
  preconnect?(): void;
}
