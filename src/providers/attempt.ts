// One attempt at a model call: a child AbortController linked to the caller's signal (its
// listener removed afterwards), a watchdog for the headers and for silences mid-stream, the
// HTTP exchange watched underneath pi-ai, and the outcome as a message or a classified error.
// Nothing here retries; chat() decides that.
import type {
  Api,
  AssistantMessage,
  AssistantMessageEventStream,
  Context,
  Model,
  Usage as PiUsage,
  SimpleStreamOptions,
} from "@mariozechner/pi-ai";
import { abortError, linkedController } from "../core/abort.js";
import type { ResonError } from "../core/errors.js";
import { type CallFacts, classifyFailure, timeoutFailure, truncatedFailure } from "./classify.js";
import { Exchange, forgetExchange, watchExchange } from "./http-capture.js";
import type { StreamFunction } from "./pi.js";
import type { ChatStreamEvent, ProviderTimeouts } from "./types.js";
import { Watchdog } from "./watchdog.js";
import type { AttemptOutcome } from "./wire.js";

/** Everything about a provider that stays the same from one attempt to the next. */
export interface AttemptSetup {
  stream: StreamFunction;
  isContextOverflow: (message: AssistantMessage, contextWindow?: number) => boolean;
  model: Model<Api>;
  call: CallFacts;
  /** pi-ai options without the signal, which is per attempt. */
  streamOptions: SimpleStreamOptions;
  timeouts: ProviderTimeouts;
  /** Matches the raw stream's end marker for this protocol; undefined to skip the check. */
  finishMarker: RegExp | undefined;
}

export async function runAttempt(
  setup: AttemptSetup,
  context: Context,
  signal: AbortSignal | undefined,
  onEvent: ((event: ChatStreamEvent) => void) | undefined,
): Promise<AttemptOutcome> {
  const link = linkedController(signal);
  const watchdog = new Watchdog(setup.timeouts, () => link.controller.abort());
  const exchange = new Exchange(setup.finishMarker, watchdog);
  const progress: { partial?: AssistantMessage } = {};
  let message: AssistantMessage | undefined;
  try {
    let stream: AssistantMessageEventStream;
    try {
      stream = setup.stream(setup.model, context, {
        ...setup.streamOptions,
        signal: link.signal,
        headers: watchExchange(exchange),
      });
    } catch (error) {
      // pi-ai throws only for a setup it cannot run at all.
      const text = error instanceof Error ? error.message : String(error);
      return failed(classifyFailure(setup.call, { message: text, overflow: false }), undefined);
    }
    message = await consume(stream, link.signal, watchdog, progress, onEvent);
  } catch (error) {
    link.controller.abort(); // the caller's onEvent threw: stop the request, let the error through
    throw error;
  } finally {
    watchdog.stop();
    link.dispose();
    forgetExchange(exchange);
  }

  if (signal?.aborted) return failed(abortError(signal), progress.partial?.usage);
  if (watchdog.fired) {
    return failed(timeoutFailure(setup.call, watchdog.fired, watchdog.limitMs()), progress.partial?.usage);
  }
  if (!message) {
    return failed(classifyFailure(setup.call, { message: "no result", overflow: false }), undefined);
  }
  if (message.stopReason === "error" || message.stopReason === "aborted") {
    const error = classifyFailure(setup.call, {
      message: message.errorMessage ?? "",
      status: exchange.status,
      retryAfterMs: exchange.retryAfterMs,
      overflow: setup.isContextOverflow(message, setup.call.contextWindow),
    });
    return failed(error, message.usage);
  }
  if (exchange.truncated) return failed(truncatedFailure(setup.call), message.usage);
  return { ok: true, message };
}

function failed(error: ResonError, usage: PiUsage | undefined): AttemptOutcome {
  return { ok: false, error, usage };
}

/**
 * Reads pi-ai's events to the final message. Settles with undefined as soon as `signal`
 * aborts, without waiting for pi-ai to notice, so a cancel or a watchdog is always prompt.
 */
function consume(
  stream: AssistantMessageEventStream,
  signal: AbortSignal,
  watchdog: Watchdog,
  progress: { partial?: AssistantMessage },
  onEvent: ((event: ChatStreamEvent) => void) | undefined,
): Promise<AssistantMessage | undefined> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = () => {
      settled = true;
      signal.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      settle();
      resolve(undefined);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });

    const read = async (): Promise<AssistantMessage | undefined> => {
      for await (const event of stream) {
        if (settled) return undefined;
        watchdog.onData();
        switch (event.type) {
          case "start":
            progress.partial = event.partial;
            break;
          case "text_delta":
            onEvent?.({ type: "text_delta", delta: event.delta });
            break;
          case "thinking_delta":
            onEvent?.({ type: "thinking_delta", delta: event.delta });
            break;
          case "done":
            return event.message;
          case "error":
            return event.error;
        }
      }
      return undefined;
    };
    read().then(
      (message) => {
        if (settled) return;
        settle();
        resolve(message);
      },
      (error: unknown) => {
        if (settled) return;
        settle();
        reject(error);
      },
    );
  });
}
