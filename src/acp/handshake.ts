// The first exchange of `reson acp`, answered before the rest of reson loads: the editor's
// `initialize` needs only reson's version and capabilities, while the run orchestrator, the
// store and the ACP SDK with its schemas take most of a start. This module reads the protocol
// lines until initialize, answers it (or answers what came before it with the error the SDK
// would give), and hands back what the editor sent after it, unread, for the connection.
// No runtime import of the SDK or anything heavy: it is bundled into the launcher.
import type { ClientCapabilities } from "@agentclientprotocol/sdk";
import { initializeResponse } from "./capabilities.js";

export interface Handshake {
  clientCapabilities: ClientCapabilities | undefined;
  /** Bytes the editor sent after its initialize line, not yet read by anyone. */
  rest: Buffer;
}

/** The input and output as the handshake uses them: process.stdin and process.stdout. */
export interface HandshakeStreams {
  input: NodeJS.ReadableStream;
  write: (line: string) => void;
}

/**
 * A line longer than this before initialize is not an editor's (an initialize is a few hundred
 * bytes): it is refused and dropped rather than held in memory while more of it comes.
 */
const MAX_LINE_BYTES = 1024 * 1024;

const INVALID_REQUEST = -32600;
const PARSE_ERROR = -32700;
const INVALID_PARAMS = -32602;

type Check<T> = { ok: true; value: T } | { ok: false; message: string };

/** initialize's params as ACP v1 has them: a protocol version, the client's capabilities. */
export function initializeParams(
  params: unknown,
): Check<{ protocolVersion: number; clientCapabilities: ClientCapabilities | undefined }> {
  if (typeof params !== "object" || params === null || Array.isArray(params))
    return { ok: false, message: "initialize needs params: { protocolVersion, clientCapabilities }." };
  const { protocolVersion, clientCapabilities } = params as Record<string, unknown>;
  if (typeof protocolVersion !== "number" || !Number.isInteger(protocolVersion) || protocolVersion < 0)
    return { ok: false, message: "initialize: protocolVersion must be a whole number (ACP's is 1)." };
  if (
    clientCapabilities !== undefined &&
    clientCapabilities !== null &&
    (typeof clientCapabilities !== "object" || Array.isArray(clientCapabilities))
  )
    return { ok: false, message: "initialize: clientCapabilities must be an object." };
  return {
    ok: true,
    value: { protocolVersion, clientCapabilities: (clientCapabilities ?? undefined) as ClientCapabilities },
  };
}

type Line =
  | { kind: "answered"; capabilities: ClientCapabilities | undefined }
  | { kind: "refused"; reply?: string };

const errorReply = (id: unknown, code: number, message: string) =>
  JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });

/** One protocol line before initialize: its answer, and whether it was the initialize. */
function handleLine(
  line: string,
  answer: { version: string; images: boolean },
  write: (line: string) => void,
): Line {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return { kind: "refused", reply: errorReply(null, PARSE_ERROR, "Parse error: the line is not JSON.") };
  }
  if (typeof message !== "object" || message === null || Array.isArray(message))
    return {
      kind: "refused",
      reply: errorReply(null, INVALID_REQUEST, "Invalid request: not a JSON-RPC object."),
    };
  const { id, method, params } = message as Record<string, unknown>;
  const isRequest = typeof id === "string" || typeof id === "number";
  if (method !== "initialize") {
    // A notification or a response before initialize has no one to answer.
    if (!isRequest || typeof method !== "string") return { kind: "refused" };
    return {
      kind: "refused",
      reply: errorReply(id, INVALID_REQUEST, `ACP connection must be initialized before '${method}'`),
    };
  }
  if (!isRequest) return { kind: "refused" };
  const checked = initializeParams(params);
  if (!checked.ok) return { kind: "refused", reply: errorReply(id, INVALID_PARAMS, checked.message) };
  write(
    `${JSON.stringify({ jsonrpc: "2.0", id, result: initializeResponse(answer.version, answer.images) })}\n`,
  );
  return { kind: "answered", capabilities: checked.value.clientCapabilities };
}

/**
 * Reads `streams.input` until the editor's initialize and answers it. Resolves with the client's
 * capabilities and whatever followed; undefined when the input ended without an initialize.
 */
export function answerInitialize(
  streams: HandshakeStreams,
  answer: { version: string; images: boolean },
): Promise<Handshake | undefined> {
  const { input, write } = streams;
  return new Promise((resolve, reject) => {
    let pending = Buffer.alloc(0);
    let dropping = false;
    const finish = (result: Handshake | undefined) => {
      input.off("data", onData);
      input.off("end", onEnd);
      input.off("error", onError);
      input.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer | string) => {
      let data = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      if (dropping) {
        // The rest of a line too long to keep, up to its end.
        const end = data.indexOf(10);
        if (end < 0) return;
        dropping = false;
        data = data.subarray(end + 1);
      }
      pending = Buffer.concat([pending, data]);
      for (let newline = pending.indexOf(10); newline >= 0; newline = pending.indexOf(10)) {
        const line = pending.subarray(0, newline).toString("utf8").trim();
        pending = pending.subarray(newline + 1);
        if (!line) continue;
        const handled = handleLine(line, answer, write);
        if (handled.kind === "answered") {
          finish({ clientCapabilities: handled.capabilities, rest: pending });
          return;
        }
        if (handled.reply) write(`${handled.reply}\n`);
      }
      if (pending.length > MAX_LINE_BYTES) {
        pending = Buffer.alloc(0);
        dropping = true;
        write(
          `${errorReply(null, INVALID_REQUEST, "Invalid request: a line of over 1 MiB before initialize.")}\n`,
        );
      }
    };
    const onEnd = () => finish(undefined);
    const onError = (error: Error) => {
      input.off("data", onData);
      input.off("end", onEnd);
      reject(error);
    };
    input.on("data", onData);
    input.once("end", onEnd);
    input.once("error", onError);
    input.resume();
  });
}
