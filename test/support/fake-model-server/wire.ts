// What the protocols share: how a reply is cut into deltas, and how a scripted response or
// fault is written to the socket (SSE pacing, byte chunking, stalls and resets).
import type { ServerResponse } from "node:http";
import type { FakeFault, FakeFinish, FakeQuotaFault, FakeResponse, FakeUsage } from "../fake-model-server.js";

export interface WireContext {
  model: string;
  streaming: boolean;
  /** OpenAI: the request asked for stream_options.include_usage; always true for the others. */
  includeUsage: boolean;
  /** The key the client sent (so the 401 body can echo it, as OpenAI does). */
  apiKey: string;
}

export interface StreamPlan {
  /** Framed SSE events, in order. */
  events: string[];
  /** events.slice(0, head): the opening and the first content chunk (what mid-stream faults send). */
  head: number;
  /** events.slice(0, body): everything before the finish (what "truncate" sends). */
  body: number;
}

/** A quota or billing refusal in the vendor's own words. */
export interface QuotaReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface ProtocolWire {
  stream(reply: FakeResponse, ctx: WireContext): StreamPlan;
  json(reply: FakeResponse, ctx: WireContext): unknown;
  errorBody(status: number, ctx: WireContext, message?: string): unknown;
  overflowBody(): unknown;
  quota(fault: FakeQuotaFault, ctx: WireContext): QuotaReply;
  malformedEvent(): string;
  errorEvent(message?: string): string;
}

const DEFAULT_USAGE: Required<FakeUsage> = { input: 12, output: 7, cacheRead: 0 };
const PARTIAL_TEXT = "partial answer that never finishes";

let nextId = 1;
export function freshId(prefix: string): string {
  return `${prefix}${nextId++}`;
}

/** One delta per word (with its trailing space), so text always arrives in several pieces. */
export function textDeltas(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text === "" ? [] : [text]);
}

/** Tool arguments as three fragments of their JSON (or of the raw string given). */
export function argumentFragments(args: Record<string, unknown> | string): string[] {
  const json = typeof args === "string" ? args : JSON.stringify(args);
  if (json.length < 3) return [json];
  const third = Math.ceil(json.length / 3);
  return [json.slice(0, third), json.slice(third, 2 * third), json.slice(2 * third)];
}

export function finishOf(reply: FakeResponse): FakeFinish {
  return reply.finish ?? ((reply.toolCalls?.length ?? 0) > 0 ? "tool_use" : "stop");
}

export function usageOf(reply: FakeResponse): Required<FakeUsage> {
  return { ...DEFAULT_USAGE, ...reply.usage };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(text);
}

export function sendReply(
  res: ServerResponse,
  wire: ProtocolWire,
  reply: FakeResponse,
  ctx: WireContext,
): void {
  if (ctx.streaming) void writeEvents(res, wire.stream(reply, ctx).events, reply);
  else sendJson(res, 200, wire.json(reply, ctx));
}

export function sendFault(res: ServerResponse, wire: ProtocolWire, fault: FakeFault, ctx: WireContext): void {
  switch (fault.fault) {
    case "http": {
      const headers: Record<string, string> = {};
      if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
      sendJson(res, fault.status, wire.errorBody(fault.status, ctx, fault.message), headers);
      break;
    }
    case "overflow":
      sendJson(res, 400, wire.overflowBody());
      break;
    case "quota": {
      const refusal = wire.quota(fault, ctx);
      sendJson(res, refusal.status, refusal.body, refusal.headers);
      break;
    }
    case "hang":
      break; // keep the request open; close() destroys the socket
    case "reset":
      if (fault.beforeHeaders) resetSocket(res);
      else writeHeadThen(res, wire, ctx, () => setTimeout(() => resetSocket(res), 20));
      break;
    case "stall":
      writeHeadThen(res, wire, ctx, () => {});
      break;
    case "malformed":
      writeHeadThen(res, wire, ctx, () => res.end(ctx.streaming ? wire.malformedEvent() : ""));
      break;
    case "stream_error":
      // A moment after the first chunk, so the error arrives in a read of its own (Gemini's SDK
      // recognises an error only as a whole chunk).
      if (ctx.streaming)
        writeHeadThen(res, wire, ctx, () => setTimeout(() => res.end(wire.errorEvent(fault.message)), 20));
      else sendJson(res, 200, wire.errorBody(500, ctx, fault.message));
      break;
    case "truncate":
      if (ctx.streaming) {
        const plan = wire.stream({ text: PARTIAL_TEXT }, ctx);
        res.writeHead(200, SSE_HEADERS);
        res.end(plan.events.slice(0, plan.body).join(""));
      } else {
        writeHeadThen(res, wire, ctx, () => res.end());
      }
      break;
  }
}

const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
};

/** Sends headers and the first chunk of a response (half a JSON body when not streaming), then `next`. */
function writeHeadThen(res: ServerResponse, wire: ProtocolWire, ctx: WireContext, next: () => void): void {
  if (!ctx.streaming) {
    const json = JSON.stringify(wire.json({ text: PARTIAL_TEXT }, ctx));
    res.writeHead(200, { "content-type": "application/json" });
    res.write(json.slice(0, Math.floor(json.length / 2)), () => next());
    return;
  }
  const plan = wire.stream({ text: PARTIAL_TEXT }, ctx);
  res.writeHead(200, SSE_HEADERS);
  res.write(plan.events.slice(0, plan.head).join(""), () => next());
}

function resetSocket(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) return;
  if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
  else socket.destroy();
}

async function writeEvents(res: ServerResponse, events: string[], reply: FakeResponse): Promise<void> {
  res.writeHead(200, SSE_HEADERS);
  if (reply.byteChunks && reply.byteChunks.length > 0) {
    const bytes = Buffer.from(events.join(""), "utf8");
    let offset = 0;
    for (let i = 0; offset < bytes.length; i++) {
      const size = Math.max(1, reply.byteChunks[i % reply.byteChunks.length] ?? 1);
      if (res.destroyed) return;
      res.write(bytes.subarray(offset, offset + size));
      offset += size;
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
    return;
  }
  const delayMs = reply.chunkDelayMs ?? 0;
  if (delayMs <= 0) {
    res.end(events.join(""));
    return;
  }
  for (const event of events) {
    if (res.destroyed) return;
    res.write(event);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
  res.end();
}
