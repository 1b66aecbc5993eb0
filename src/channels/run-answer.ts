// What a finished run says back to the chat: the text of its last answer, or in a few words why
// there is none (it failed, it was stopped). Read from the store, so any process can send it.
import type { RunRequestRecord, Store } from "../store/index.js";

export async function runAnswer(store: Store, request: RunRequestRecord): Promise<string> {
  if (request.status === "cancelled") return "(stopped)";
  const turns = await store.turns.list(request.sessionId);
  const last = turns.filter((turn) => turn.traceId === request.id && turn.role === "assistant").at(-1);
  const text = last ? assistantText(last.content) : "";
  if (request.status === "failed") {
    const trace = await store.traces.get(request.id);
    const error = trace?.error ?? request.lastError;
    const why = error ? `${error.message}${error.hint ? ` ${error.hint}` : ""}` : "unknown error";
    return text ? `${text}\n\n(the run failed: ${why})` : `The run failed: ${why}`;
  }
  return text || "(the run ended without an answer)";
}

function assistantText(content: unknown): string {
  const parts = (content as { content?: unknown }).content;
  if (typeof parts === "string") return parts.trim();
  if (!Array.isArray(parts)) return "";
  return parts
    .filter(
      (part): part is { type: "text"; text: string } =>
        part?.type === "text" && typeof part.text === "string",
    )
    .map((part) => part.text)
    .join("")
    .trim();
}
