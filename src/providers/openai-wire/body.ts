// The request body of an OpenAI Chat Completions call, built incrementally. An agent re-sends
// its whole history every step, and a message once sent never changes, so each message is
// converted to the wire format and encoded to UTF-8 once: the bytes are cached by message
// object (a WeakMap, so they go with the message) and a body is the concatenation of cached
// fragments. The fragments are laid out in one growing buffer that is rewritten only from the
// first fragment that differs from the previous call's, so a step copies only its new messages.
//
// Safe because the cache is keyed by identity: a message that is replaced (the agent swaps an
// old tool output for its short form) is a different object and is serialized afresh, and the
// caller must not mutate a message after passing it to chat() (the loop never does). The cache
// belongs to one provider, so the model a message is compared with never changes.
//
// The conversion follows pi-ai's for a plain OpenAI-compatible server (system role,
// max_tokens, no strict flag): a turn of this model replays its reasoning under the field it
// came in; another model's reasoning becomes text; failed or aborted turns are left out; a
// tool call with no result gets "No result provided"; images become a placeholder (the models
// served here are text-only). Lone UTF-16 surrogates are removed from every string: Node's
// JSON.stringify would escape them as \udXXX, valid JSON that many servers still reject.
import type { ImageContent, TextContent, ThinkingContent } from "@mariozechner/pi-ai";
import type {
  AssistantMessage,
  ChatRequest,
  Message,
  ToolCall,
  ToolResultMessage,
  ToolSpec,
  UserMessage,
} from "../types.js";

/** The api name pi-ai gives OpenAI Chat Completions; assistant messages carry it. */
export const WIRE_API = "openai-completions";

export interface WireModel {
  /** Sent as `model`, and compared with an assistant message's `model`. */
  id: string;
  /** Compared with an assistant message's `provider`. */
  provider: string;
  maxTokens: number;
}

/** A request body as the buffers to write, in order. */
export interface PreparedBody {
  parts: readonly Buffer[];
  length: number;
  /** The chat call is over: the buffers may be reused. */
  release(): void;
}

type WireObject = Record<string, unknown>;

interface CallRef {
  /** The id as sent. */
  id: string;
  /** Keys the cache of its placeholder result. */
  block: ToolCall;
}

interface Entry {
  /** The message on the wire; undefined when it is not sent. */
  bytes: Buffer | undefined;
  /** Assistant: the tool calls that expect results (none for a failed turn). */
  calls?: readonly CallRef[];
  /** Assistant: has tool calls at all (a request with tool history must carry `tools`). */
  hasCalls?: boolean;
  /** Assistant of another model whose tool call ids had to be renamed: original → sent. */
  renames?: readonly (readonly [string, string])[];
}

const USER_IMAGE_PLACEHOLDER = "(image omitted: the model takes text only)";
const TOOL_IMAGE_PLACEHOLDER = "(tool image omitted: the model takes text only)";
const NO_RESULT = "No result provided";
const COMMA = Buffer.from(",");
const TAIL = Buffer.from("]}");

export class BodyBuilder {
  private readonly entries = new WeakMap<Message, Entry>();
  private readonly placeholders = new WeakMap<ToolCall, Buffer>();
  private system: { prompt: string; bytes: Buffer | undefined } | undefined;
  private head: { tools: readonly ToolSpec[]; toolHistory: boolean; bytes: Buffer } | undefined;
  private readonly arena = new Arena();

  constructor(private readonly model: WireModel) {}

  build(request: ChatRequest): PreparedBody {
    const fragments: Buffer[] = [];
    const system = this.systemBytes(request.systemPrompt);
    if (system) fragments.push(system);
    const toolHistory = this.messageFragments(request.messages, fragments);
    const head = this.headBytes(request.tools, toolHistory);

    let messages: Buffer;
    let release = noop;
    if (this.arena.busy) {
      messages = joinFragments(fragments); // another call of this provider is still sending
    } else {
      messages = this.arena.layout(fragments);
      this.arena.busy = true;
      release = () => {
        this.arena.busy = false;
      };
    }
    return { parts: [head, messages, TAIL], length: head.length + messages.length + TAIL.length, release };
  }

  /** Appends the fragments of `messages`; returns whether there is tool history. */
  private messageFragments(messages: readonly Message[], out: Buffer[]): boolean {
    let toolHistory = false;
    let pending: readonly CallRef[] | undefined;
    let answered: string[] = [];
    let renamed: Map<string, string> | undefined;
    const answerPending = () => {
      if (!pending) return;
      for (const call of pending) {
        if (!answered.includes(call.id)) out.push(this.placeholderBytes(call));
      }
      pending = undefined;
    };

    for (const message of messages) {
      const entry = this.entryFor(message);
      switch (message.role) {
        case "assistant":
          answerPending();
          if (entry.hasCalls) toolHistory = true;
          if (entry.renames) {
            renamed ??= new Map();
            for (const [from, to] of entry.renames) renamed.set(from, to);
          }
          if (entry.calls && entry.calls.length > 0) {
            pending = entry.calls;
            answered = [];
          }
          break;
        case "toolResult": {
          toolHistory = true;
          const sentId = renamed?.get(message.toolCallId);
          if (sentId !== undefined) {
            answered.push(sentId);
            out.push(encode(toolResultToWire(message, sentId)));
            continue;
          }
          answered.push(message.toolCallId);
          break;
        }
        case "user":
          answerPending();
          break;
      }
      if (entry.bytes) out.push(entry.bytes);
    }
    answerPending();
    return toolHistory;
  }

  private entryFor(message: Message): Entry {
    let entry = this.entries.get(message);
    if (!entry) {
      entry = this.convert(message);
      this.entries.set(message, entry);
    }
    return entry;
  }

  private convert(message: Message): Entry {
    switch (message.role) {
      case "user":
        return { bytes: encodeOptional(userToWire(message)) };
      case "toolResult":
        return { bytes: encode(toolResultToWire(message, message.toolCallId)) };
      case "assistant":
        return this.convertAssistant(message);
    }
  }

  private convertAssistant(message: AssistantMessage): Entry {
    const same = isSameModel(message, this.model);
    const calls: CallRef[] = [];
    const renames: [string, string][] = [];
    for (const block of message.content) {
      if (block.type !== "toolCall") continue;
      const id = same ? block.id : portableId(block.id);
      if (id !== block.id) renames.push([block.id, id]);
      calls.push({ id, block });
    }
    const entry: Entry = { bytes: undefined, hasCalls: calls.length > 0 };
    if (renames.length > 0) entry.renames = renames;
    // A failed or aborted turn is not replayed: it may be incomplete, and a retry follows it.
    if (message.stopReason === "error" || message.stopReason === "aborted") return entry;
    entry.calls = calls;
    entry.bytes = encodeOptional(assistantToWire(message, same, calls));
    return entry;
  }

  private placeholderBytes(call: CallRef): Buffer {
    let bytes = this.placeholders.get(call.block);
    if (!bytes) {
      bytes = encode({ role: "tool", content: NO_RESULT, tool_call_id: call.id });
      this.placeholders.set(call.block, bytes);
    }
    return bytes;
  }

  private systemBytes(prompt: string): Buffer | undefined {
    if (this.system?.prompt !== prompt) {
      this.system = { prompt, bytes: prompt ? encode({ role: "system", content: prompt }) : undefined };
    }
    return this.system.bytes;
  }

  private headBytes(tools: readonly ToolSpec[], toolHistory: boolean): Buffer {
    const head = this.head;
    if (head && head.toolHistory === toolHistory && sameTools(head.tools, tools)) return head.bytes;
    const fields: WireObject = {
      model: this.model.id,
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: this.model.maxTokens,
    };
    // A server (or proxy) may refuse tool calls in the history of a request without tools.
    if (tools.length > 0 || toolHistory) fields.tools = tools.map(toolToWire);
    const json = wireJson(fields);
    const bytes = Buffer.from(`${json.slice(0, -1)},"messages":[`);
    this.head = { tools: [...tools], toolHistory, bytes };
    return bytes;
  }
}

/**
 * The fragments of a body joined by commas, in one buffer that keeps its bytes from one call
 * to the next: a layout rewrites from the first fragment that is not the one laid there last
 * time, so an append-only history costs only its new messages. Not used while a previous
 * body laid here may still be in flight (`busy`).
 */
class Arena {
  busy = false;
  private buffer = Buffer.allocUnsafe(64 * 1024);
  private laid: Buffer[] = [];
  /** End offset of each laid fragment. */
  private ends: number[] = [];

  layout(fragments: readonly Buffer[]): Buffer {
    const laid = this.laid;
    let same = 0;
    const common = Math.min(laid.length, fragments.length);
    while (same < common && laid[same] === fragments[same]) same++;
    laid.length = same;
    this.ends.length = same;
    let used = same === 0 ? 0 : (this.ends[same - 1] ?? 0);
    for (let i = same; i < fragments.length; i++) {
      const fragment = fragments[i]!;
      const needed = used + fragment.length + 1;
      if (needed > this.buffer.length) this.grow(needed, used);
      if (i > 0) this.buffer[used++] = 0x2c; // ","
      used += fragment.copy(this.buffer, used);
      laid.push(fragment);
      this.ends.push(used);
    }
    return this.buffer.subarray(0, used);
  }

  private grow(needed: number, used: number): void {
    // A new buffer: one handed out before (and perhaps still referenced) is never changed.
    const next = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
    this.buffer.copy(next, 0, 0, used);
    this.buffer = next;
  }
}

function joinFragments(fragments: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const fragment of fragments) {
    if (parts.length > 0) parts.push(COMMA);
    parts.push(fragment);
  }
  return Buffer.concat(parts);
}

function noop(): void {}

// --- conversion of one message -------------------------------------------------------------

function isSameModel(message: AssistantMessage, model: WireModel): boolean {
  return message.provider === model.provider && message.api === WIRE_API && message.model === model.id;
}

/**
 * Ids made by the OpenAI Responses API ("call_…|fc_…", hundreds of characters) are cut to
 * their call id, in the characters and length Chat Completions servers accept.
 */
function portableId(id: string): string {
  if (!id.includes("|")) return id;
  return (id.split("|")[0] ?? "").replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 40);
}

function userToWire(message: UserMessage): WireObject | undefined {
  if (typeof message.content === "string") return { role: "user", content: message.content };
  const parts = textParts(message.content, USER_IMAGE_PLACEHOLDER).map((text) => ({ type: "text", text }));
  return parts.length > 0 ? { role: "user", content: parts } : undefined;
}

function toolResultToWire(message: ToolResultMessage, id: string): WireObject {
  return {
    role: "tool",
    content: textParts(message.content, TOOL_IMAGE_PLACEHOLDER).join("\n"),
    tool_call_id: id,
  };
}

/** The texts of `blocks`, a run of images becoming one placeholder. */
function textParts(blocks: readonly (TextContent | ImageContent)[], placeholder: string): string[] {
  const texts: string[] = [];
  let afterPlaceholder = false;
  for (const block of blocks) {
    if (block.type === "image") {
      if (!afterPlaceholder) texts.push(placeholder);
      afterPlaceholder = true;
    } else {
      texts.push(block.text);
      afterPlaceholder = block.text === placeholder;
    }
  }
  return texts;
}

function assistantToWire(
  message: AssistantMessage,
  same: boolean,
  calls: readonly CallRef[],
): WireObject | undefined {
  let text = "";
  const reasoning: ThinkingContent[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      if (block.text.trim().length > 0) text += block.text;
    } else if (block.type === "thinking") {
      if (block.thinking.trim().length === 0 || (block.redacted && !same)) continue;
      // This model's reasoning is replayed as reasoning; another model's becomes text.
      if (same) reasoning.push(block);
      else text += block.thinking;
    }
  }
  const wire: WireObject = { role: "assistant", content: text.length > 0 ? text : null };
  const field = reasoning[0]?.thinkingSignature;
  if (field) wire[field] = reasoning.map((block) => block.thinking).join("\n");
  if (calls.length > 0) {
    wire.tool_calls = calls.map(({ id, block }) => ({
      id,
      type: "function",
      function: { name: block.name, arguments: wireJson(block.arguments ?? {}) },
    }));
    const details = same ? calls.flatMap(({ block }) => reasoningDetail(block)) : [];
    if (details.length > 0) wire.reasoning_details = details;
  }
  // Servers refuse an assistant message with neither content nor tool calls (an empty turn).
  return wire.content === null && calls.length === 0 ? undefined : wire;
}

/** Encrypted reasoning some gateways attach to a tool call, replayed to the same model. */
function reasoningDetail(block: ToolCall): unknown[] {
  if (!block.thoughtSignature) return [];
  try {
    const detail: unknown = JSON.parse(block.thoughtSignature);
    return detail ? [detail] : [];
  } catch {
    return [];
  }
}

function toolToWire(tool: ToolSpec): WireObject {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

function sameTools(a: readonly ToolSpec[], b: readonly ToolSpec[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.name !== y.name || x.description !== y.description || x.parameters !== y.parameters) return false;
  }
  return true;
}

// --- JSON ----------------------------------------------------------------------------------

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function stripLoneSurrogates(text: string): string {
  return text.replace(LONE_SURROGATE, "");
}

function withoutLoneSurrogates(_key: string, value: unknown): unknown {
  return typeof value === "string" ? stripLoneSurrogates(value) : value;
}

/**
 * JSON.stringify without lone surrogates. JSON.stringify writes a lone surrogate as an
 * escape (\ud800…\udfff) and a valid pair as itself, so the search for "\ud" finds every
 * string that needs cleaning; it may also find the text "\ud" itself, which costs a second
 * pass that changes nothing.
 */
export function wireJson(value: unknown): string {
  const json = JSON.stringify(value);
  return json.includes("\\ud") ? JSON.stringify(value, withoutLoneSurrogates) : json;
}

function encode(value: unknown): Buffer {
  return Buffer.from(wireJson(value), "utf8");
}

function encodeOptional(value: WireObject | undefined): Buffer | undefined {
  return value === undefined ? undefined : encode(value);
}
