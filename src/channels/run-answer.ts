// What a finished run says back to the chat: the text of its last answer, or in a few words why
// there is none (it failed, it was stopped). Read from the store, so any process can send it.
// Why a run failed is told in full only to an owner in their own chat: a provider's or the
// config's message can name environment variables, addresses and file paths, which anyone else
// in a group, an allowed friend or an open-mode stranger has no business reading; they get the
// run's id, which the owner can look up (`reson trace show <id>`).
import type { RunRequestRecord, Store } from "../store/index.js";

/** Who the answer goes to: the sender's standing when the run started, and where they asked. */
export interface AnswerAudience {
  owner: boolean;
  direct: boolean;
}

export async function runAnswer(
  store: Store,
  request: RunRequestRecord,
  audience: AnswerAudience,
): Promise<string> {
  if (request.status === "cancelled") return "(stopped)";
  const turns = await store.turns.list(request.sessionId);
  const last = turns.filter((turn) => turn.traceId === request.id && turn.role === "assistant").at(-1);
  const text = last ? assistantText(last.content) : "";
  if (request.status === "failed") {
    if (!audience.owner || !audience.direct) {
      const lookUp = `run ${request.id}; the agent's owner can see why`;
      return text ? `${text}\n\n(the run failed: ${lookUp})` : `The run failed (${lookUp}).`;
    }
    const trace = await store.traces.get(request.id);
    const error = trace?.error ?? request.lastError;
    const why = error
      ? withoutCredentials(`${error.message}${error.hint ? ` ${error.hint}` : ""}`)
      : "unknown error";
    return text ? `${text}\n\n(the run failed: ${why})` : `The run failed: ${why}`;
  }
  return text || "(the run ended without an answer)";
}

/** Whether the sender was an owner, read from the run's spec (as the run was started). */
export function startedByOwner(request: RunRequestRecord): boolean {
  const message = (
    request.spec as { channelMessage?: { untrusted?: unknown; envelope?: { roleLabel?: unknown } } }
  ).channelMessage;
  return message?.untrusted === false && message.envelope?.roleLabel === "owner";
}

/**
 * Credentials a message may carry even for the owner's own chat, which a chat platform keeps and
 * shows on other devices: the password in a URL (https://user:secret@host), a token in a query
 * string, an API key or bot token in its usual shape. Provider keys are already taken out where
 * the provider's error is made; this is the last look before the text leaves reson.
 */
export function withoutCredentials(text: string): string {
  return text
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, "$1…@")
    .replace(/([?&](?:[a-z_-]*key|[a-z_-]*token|secret|password|sig|signature)=)[^&\s]+/gi, "$1…")
    .replace(/\b(sk-|xox[abprs]-|xapp-|ghp_|gho_|github_pat_|AIza)[A-Za-z0-9_-]{8,}/g, "$1…")
    .replace(/\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g, "Bearer …")
    .replace(/\b\d{6,12}:[A-Za-z0-9_-]{30,}\b/g, "<bot token>");
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
