// A cap on each message the editor sends, in front of the ACP SDK's reader: a line longer than
// the cap is dropped as it comes (never held whole) and its request answered with a JSON-RPC
// error that says what to do. The SDK's own reader fails the whole connection on such a line,
// and with it every session of the process: a prompt with a large attached file ended
// `reson acp` without a word.

/** The most one message may hold: the ACP SDK's own default. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** What is kept of a dropped line, to find the id of the request it was. */
const HEAD_BYTES = 4096;
const NEWLINE = 10;
const INVALID_REQUEST = -32600;

/** The id of the request a line begins, read from its head (before its params), if it is one. */
function requestId(head: string): string | number | undefined {
  const params = head.indexOf('"params"');
  const before = params < 0 ? head : head.slice(0, params);
  if (!/"method"\s*:/.test(head)) return undefined;
  const match = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(before);
  if (!match) return undefined;
  try {
    return JSON.parse(match[1]!) as string | number;
  } catch {
    return undefined;
  }
}

/** The first HEAD_BYTES of a line's pieces, copied (the rest is let go). */
function headOf(pieces: readonly Uint8Array[]): Buffer {
  const kept: Uint8Array[] = [];
  let size = 0;
  for (const piece of pieces) {
    if (size >= HEAD_BYTES) break;
    kept.push(piece.subarray(0, HEAD_BYTES - size));
    size += kept.at(-1)!.length;
  }
  return Buffer.concat(kept);
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * `input` with every line over `maxBytes` dropped; `answer` writes the error line for a
 * dropped request (the caller's output, in turn with everything else written there).
 */
export function limitMessages(
  input: ReadableStream<Uint8Array>,
  answer: (line: string) => Promise<void>,
  log: (line: string) => void,
  maxBytes = MAX_MESSAGE_BYTES,
): ReadableStream<Uint8Array> {
  // The current line's pieces (while within the cap), or its head (once over it).
  let pieces: Uint8Array[] = [];
  let length = 0;
  let head: Buffer | undefined;
  const dropped = async () => {
    const text = head!.toString("utf8");
    const bytes = length;
    head = undefined;
    pieces = [];
    length = 0;
    const id = requestId(text);
    const message = `The message is ${mib(bytes)}, over reson's limit of ${mib(maxBytes)}, and was not read.`;
    log(id === undefined ? `${message} (not a request: nothing to answer)` : message);
    if (id === undefined) return;
    await answer(
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        error: {
          code: INVALID_REQUEST,
          message,
          data: {
            code: "invalid_request",
            hint: "Send less at once: link a large file instead of attaching its text (the model reads it with its tools), or send fewer or smaller images.",
          },
        },
      }),
    );
  };
  return input.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        let start = 0;
        while (start < chunk.length) {
          const newline = chunk.indexOf(NEWLINE, start);
          const end = newline < 0 ? chunk.length : newline + 1;
          const piece = chunk.subarray(start, end);
          start = end;
          length += piece.length;
          // Over the cap (the newline aside): from here on only its head is kept.
          if (!head && length > maxBytes + 1) {
            head = headOf([...pieces, piece]);
            pieces = [];
          }
          if (!head) pieces.push(piece);
          if (newline < 0) continue;
          if (head) {
            await dropped();
            continue;
          }
          for (const whole of pieces) controller.enqueue(whole);
          pieces = [];
          length = 0;
        }
      },
      flush(controller) {
        // A last line without its newline: as the SDK reads it, when within the cap.
        for (const piece of pieces) controller.enqueue(piece);
      },
    }),
  );
}
