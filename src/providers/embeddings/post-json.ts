// One embedding request: a JSON POST through fetch with the same guarantees as a chat attempt
// (a child AbortController linked to the caller's signal and unlinked afterwards, the headers
// and idle watchdog, status and Retry-After) and the outcome as a parsed body or a classified
// error. Nothing here retries.
import { abortError, linkedController } from "../../core/abort.js";
import type { ResonError } from "../../core/errors.js";
import { type CallFacts, classifyFailure, malformedFailure, timeoutFailure } from "../classify.js";
import { parseRetryAfter } from "../retry.js";
import type { ProviderTimeouts } from "../types.js";
import { Watchdog } from "../watchdog.js";

export interface JsonRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export type JsonOutcome = { ok: true; body: unknown } | { ok: false; error: ResonError };

/** The most of an error body that is read (the message is cut to 300 characters anyway). */
const ERROR_BODY_LIMIT = 64 * 1024;

/** A 400 that says an input is longer than the model accepts (OpenAI, vLLM, Ollama, Google wordings). */
const INPUT_TOO_LONG =
  /maximum context length|context length|too many tokens|input (?:is )?too long|exceeds? the (?:maximum|max)|token limit/i;

export async function postJson(
  call: CallFacts,
  request: JsonRequest,
  timeouts: ProviderTimeouts,
  signal: AbortSignal | undefined,
): Promise<JsonOutcome> {
  const link = linkedController(signal);
  const watchdog = new Watchdog(timeouts, () => link.controller.abort());
  try {
    const response = await fetch(request.url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal: link.signal,
    });
    watchdog.onHeaders();
    const text = await readText(
      response,
      response.ok ? Number.POSITIVE_INFINITY : ERROR_BODY_LIMIT,
      watchdog,
    );
    if (!response.ok) {
      const status = response.status;
      return failed(
        classifyFailure(call, {
          message: `${status} ${text}`.trim(),
          status,
          retryAfterMs: parseRetryAfter(response.headers),
          overflow: status === 400 && INPUT_TOO_LONG.test(text),
        }),
      );
    }
    try {
      return { ok: true, body: JSON.parse(text) };
    } catch {
      return failed(malformedFailure(call, `the response body is not valid JSON: ${text.slice(0, 80)}`));
    }
  } catch (error) {
    if (signal?.aborted) return failed(abortError(signal));
    if (watchdog.fired) return failed(timeoutFailure(call, watchdog.fired, watchdog.limitMs()));
    return failed(classifyFailure(call, { message: connectionMessage(error), overflow: false }));
  } finally {
    watchdog.stop();
    link.dispose();
  }
}

function failed(error: ResonError): JsonOutcome {
  return { ok: false, error };
}

/** The body as text, at most `limit` bytes of it; every chunk re-arms the idle watchdog. */
async function readText(response: Response, limit: number, watchdog: Watchdog): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    watchdog.onData();
    chunks.push(value);
    size += value.length;
    if (size >= limit) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).toString("utf8", 0, Math.min(size, limit));
}

/** Worded so classification sees a connection failure (retried as provider_unavailable). */
function connectionMessage(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
  const message = error instanceof Error ? error.message : String(error);
  if (!cause?.message) return `connection error: ${message}`;
  const code = cause.code && !cause.message.includes(cause.code) ? `${cause.code} ` : "";
  return `connection error: ${code}${cause.message}`;
}
