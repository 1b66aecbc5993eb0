// The assistant message of one streamed Chat Completions reply, built from its chunks: text,
// reasoning (`reasoning_content`, `reasoning` or `reasoning_text`, whichever comes first),
// tool calls assembled from fragments by index, usage, finish reason. Text and reasoning are
// passed on as they arrive; tool arguments are parsed once, at the end.
import type { Usage as PiUsage, TextContent, ThinkingContent } from "@mariozechner/pi-ai";
import type { AssistantMessage, ChatStreamEvent, ModelInfo, ToolCall } from "../types.js";
import { WIRE_API } from "./body.js";
import type { SseEvent } from "./sse.js";

/** The stream broke the protocol (an event that is not JSON): a bad response, not retried. */
export class StreamFormatError extends Error {}

/** An error the server reported inside a 200 stream (or body). */
export interface StreamFailure {
  message: string;
  /** A numeric HTTP-like code the error carried, if any. */
  status?: number;
}

interface PendingCall {
  block: ToolCall;
  args: string;
}

const REASONING_FIELDS = ["reasoning_content", "reasoning", "reasoning_text"] as const;

/** What a chunk may hold, as far as reson reads it; everything is checked before use. */
interface Chunk {
  id?: unknown;
  model?: unknown;
  usage?: unknown;
  choices?: unknown;
  error?: unknown;
}

interface Choice {
  delta?: Delta | null;
  finish_reason?: unknown;
  usage?: unknown;
}

interface Delta {
  content?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
  reasoning_text?: unknown;
  tool_calls?: unknown;
}

interface ToolCallDelta {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown } | null;
}

export class ReplyBuilder {
  readonly message: AssistantMessage;
  /** A finish_reason arrived. */
  finished = false;
  /** `data: [DONE]` arrived. */
  done = false;
  /** The server reported an error in the stream; nothing after it is read. */
  failure: StreamFailure | undefined;
  private finishError: string | undefined;
  private text: TextContent | undefined;
  private thinking: ThinkingContent | undefined;
  private readonly calls: PendingCall[] = [];
  private readonly byIndex = new Map<number, PendingCall>();
  private readonly byId = new Map<string, PendingCall>();

  constructor(
    private readonly model: Pick<ModelInfo, "id" | "provider" | "cost">,
    private readonly emit: ((event: ChatStreamEvent) => void) | undefined,
  ) {
    this.message = {
      role: "assistant",
      content: [],
      api: WIRE_API,
      provider: model.provider,
      model: model.id,
      usage: usageFrom(undefined, model.cost),
      stopReason: "stop",
      timestamp: Date.now(),
    };
  }

  /** Reads one SSE event. Throws StreamFormatError for data that is not JSON. */
  event(event: SseEvent): void {
    if (this.failure) return;
    const data = event.data;
    if (data.startsWith("[DONE]")) {
      this.done = true;
      return;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      if (event.event === "error") {
        this.failure = { message: data || "error event" };
        return;
      }
      if (data.trim() === "") return; // an empty keep-alive event
      throw new StreamFormatError(`an event is not valid JSON: ${data.slice(0, 80)}`);
    }
    if (event.event === "error") {
      this.failure = streamFailure(isObject(chunk) && chunk.error ? chunk.error : chunk);
      return;
    }
    if (chunk !== null && typeof chunk === "object") this.chunk(chunk as Chunk);
  }

  /** A whole (non-streamed) chat.completion, as some servers answer whatever was asked. */
  completion(body: unknown): void {
    if (body === null || typeof body !== "object") {
      throw new StreamFormatError("the response body is not a JSON object");
    }
    const { choices, ...rest } = body as Chunk;
    const first = Array.isArray(choices)
      ? (choices[0] as { message?: unknown; finish_reason?: unknown })
      : undefined;
    const message = (first?.message ?? {}) as Delta & { tool_calls?: unknown };
    const calls = Array.isArray(message.tool_calls)
      ? (message.tool_calls as ToolCallDelta[]).map((call, index) => ({ ...call, index }))
      : undefined;
    const delta: Delta = { ...message, ...(calls ? { tool_calls: calls } : {}) };
    this.chunk({ ...rest, choices: first ? [{ delta, finish_reason: first.finish_reason }] : [] });
    if (this.finished) this.done = true;
  }

  private chunk(chunk: Chunk): void {
    if (chunk.error) {
      this.failure = streamFailure(chunk.error);
      return;
    }
    const message = this.message;
    if (message.responseId === undefined && typeof chunk.id === "string" && chunk.id) {
      message.responseId = chunk.id;
    }
    if (
      message.responseModel === undefined &&
      typeof chunk.model === "string" &&
      chunk.model &&
      chunk.model !== this.model.id
    ) {
      message.responseModel = chunk.model;
    }
    if (isObject(chunk.usage)) message.usage = usageFrom(chunk.usage, this.model.cost);
    const choice = (Array.isArray(chunk.choices) ? chunk.choices[0] : undefined) as Choice | undefined;
    if (!isObject(choice)) return;
    // Some servers put the usage in the choice instead.
    if (!isObject(chunk.usage) && isObject(choice.usage)) {
      message.usage = usageFrom(choice.usage, this.model.cost);
    }
    if (typeof choice.finish_reason === "string" && choice.finish_reason) {
      this.finished = true;
      this.setFinish(choice.finish_reason);
    }
    const delta = choice.delta;
    if (!isObject(delta)) return;
    if (typeof delta.content === "string" && delta.content.length > 0) this.addText(delta.content);
    for (const field of REASONING_FIELDS) {
      const value = delta[field];
      if (typeof value === "string" && value.length > 0) {
        this.addThinking(value, field);
        break;
      }
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls as unknown[]) {
        if (isObject(call)) this.addToolCall(call as ToolCallDelta);
      }
    }
  }

  private addText(delta: string): void {
    if (!this.text) {
      this.text = { type: "text", text: "" };
      this.message.content.push(this.text);
    }
    this.text.text += delta;
    this.emit?.({ type: "text_delta", delta });
  }

  private addThinking(delta: string, field: string): void {
    if (!this.thinking) {
      // The field it came in is where it goes back to the server on the next call.
      this.thinking = { type: "thinking", thinking: "", thinkingSignature: field };
      this.message.content.push(this.thinking);
    }
    this.thinking.thinking += delta;
    this.emit?.({ type: "thinking_delta", delta });
  }

  private addToolCall(delta: ToolCallDelta): void {
    const index = typeof delta.index === "number" ? delta.index : undefined;
    const id = typeof delta.id === "string" && delta.id ? delta.id : undefined;
    let call = index !== undefined ? this.byIndex.get(index) : undefined;
    if (!call && id !== undefined) call = this.byId.get(id);
    if (!call) {
      call = { block: { type: "toolCall", id: "", name: "", arguments: {} }, args: "" };
      this.calls.push(call);
      this.message.content.push(call.block);
    }
    if (index !== undefined && !this.byIndex.has(index)) this.byIndex.set(index, call);
    if (id !== undefined) {
      if (!call.block.id) call.block.id = id;
      this.byId.set(id, call);
    }
    const fn = isObject(delta.function) ? delta.function : undefined;
    if (!call.block.name && typeof fn?.name === "string") call.block.name = fn.name;
    if (typeof fn?.arguments === "string") call.args += fn.arguments;
  }

  private setFinish(reason: string): void {
    const message = this.message;
    this.finishError = undefined;
    switch (reason) {
      case "stop":
      case "end":
        message.stopReason = "stop";
        break;
      case "length":
        message.stopReason = "length";
        break;
      case "tool_calls":
      case "function_call":
        message.stopReason = "toolUse";
        break;
      default:
        // content_filter, network_error and anything unknown: the answer is not usable.
        message.stopReason = "error";
        this.finishError = `Provider finish_reason: ${reason}`;
    }
  }

  /** The final message: tool arguments parsed, and errorMessage set for an error stop. */
  finish(): AssistantMessage {
    for (const call of this.calls) {
      const parsed = parseArguments(call.args);
      call.block.arguments = parsed.value;
      if (parsed.raw !== undefined) call.block.rawArguments = parsed.raw;
    }
    if (this.finishError !== undefined) this.message.errorMessage = this.finishError;
    return this.message;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object";
}

function streamFailure(error: unknown): StreamFailure {
  if (typeof error === "string") return { message: error };
  const failure: StreamFailure = { message: JSON.stringify(error) ?? "unknown error" };
  if (isObject(error)) {
    const code = typeof error.code === "number" ? error.code : error.status;
    if (typeof code === "number" && code >= 400 && code <= 599) failure.status = code;
  }
  return failure;
}

/** Chat Completions usage in pi-ai's terms (cached tokens apart from input), priced. */
function usageFrom(raw: Record<string, unknown> | undefined, price: ModelInfo["cost"]): PiUsage {
  const details = isObject(raw?.prompt_tokens_details) ? raw.prompt_tokens_details : undefined;
  const prompt = count(raw?.prompt_tokens);
  const cached = count(details?.cached_tokens ?? raw?.prompt_cache_hit_tokens);
  const cacheWrite = count(details?.cache_write_tokens);
  // Some gateways count this call's cache writes among the cached tokens as well.
  const cacheRead = cacheWrite > 0 ? Math.max(0, cached - cacheWrite) : cached;
  const input = Math.max(0, prompt - cacheRead - cacheWrite);
  const output = count(raw?.completion_tokens);
  const cost = {
    input: (price.input * input) / 1e6,
    output: (price.output * output) / 1e6,
    cacheRead: (price.cacheRead * cacheRead) / 1e6,
    cacheWrite: (price.cacheWrite * cacheWrite) / 1e6,
    total: 0,
  };
  cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * Tool arguments from their JSON text. Text that is not JSON is repaired when the fault is a
 * raw control character or a stray backslash in a string (local models write those); what is
 * still not a JSON object becomes {} with the text kept as `raw`, so the tool call fails
 * validation and the model sees an error, rather than a tool running on a cut-off guess.
 */
export function parseArguments(text: string): { value: Record<string, unknown>; raw?: string } {
  if (text.trim() === "") return { value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    try {
      value = JSON.parse(repairStrings(text));
    } catch {
      return { value: {}, raw: text };
    }
  }
  if (isObject(value) && !Array.isArray(value)) return { value };
  return { value: {}, raw: text };
}

const ESCAPABLE = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);
const CONTROL_ESCAPES: Record<string, string> = {
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

/** Escapes raw control characters in JSON strings and doubles backslashes that escape nothing. */
function repairStrings(text: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (!inString) {
      out += ch;
      if (ch === '"') inString = true;
    } else if (ch === '"') {
      out += ch;
      inString = false;
    } else if (ch === "\\") {
      const next = text[i + 1];
      const unicode = next === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6));
      if (next !== undefined && (ESCAPABLE.has(next) || unicode)) {
        out += ch + next;
        i++;
      } else {
        out += "\\\\";
      }
    } else if (ch < " ") {
      out += CONTROL_ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
    } else {
      out += ch;
    }
  }
  return out;
}
