// Reading a request body: JSON only (415 otherwise), at most `limitBytes` (413 as soon as the
// declared length or the bytes read pass it, without reading the rest), malformed JSON 400.
import type { IncomingMessage } from "node:http";
import { abortError } from "../core/abort.js";
import { ResonError } from "../core/errors.js";

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

export interface ReadBodyOptions {
  limitBytes: number;
  signal?: AbortSignal;
}

function tooLarge(limitBytes: number): ResonError {
  return new ResonError("payload_too_large", `The request body is larger than ${limitBytes} bytes.`, {
    hint: "Send less: long inputs belong in workspace files the run can read.",
  });
}

/** True for application/json with any parameters (charset=utf-8). */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const mediaType = header.split(";")[0]!.trim().toLowerCase();
  return mediaType === "application/json";
}

function readBytes(req: IncomingMessage, options: ReadBodyOptions): Promise<Buffer> {
  const { limitBytes, signal } = options;
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limitBytes) return Promise.reject(tooLarge(limitBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      signal?.removeEventListener("abort", onAbort);
    };
    const fail = (error: unknown) => {
      cleanup();
      // Stop reading; the server answers and closes the connection instead of draining it.
      req.pause();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) return fail(tooLarge(limitBytes));
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, received));
    };
    const onError = (error: Error) => fail(error);
    const onAbort = () => fail(abortError(signal));
    if (signal?.aborted) return onAbort();
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The raw bytes of a request's body (a signed webhook checks them as they came). */
export function readRawBody(req: IncomingMessage, options: ReadBodyOptions): Promise<Buffer> {
  return readBytes(req, options);
}

/** The parsed JSON body of a request (not yet checked against a schema). */
export async function readJsonBody(req: IncomingMessage, options: ReadBodyOptions): Promise<unknown> {
  if (!isJsonContentType(req.headers["content-type"])) {
    throw new ResonError("unsupported_media_type", "The request body must be JSON.", {
      hint: "Send it with content-type: application/json.",
    });
  }
  const text = (await readBytes(req, options)).toString("utf8");
  if (text.trim() === "") {
    throw new ResonError("invalid_request", "The request body is empty.", {
      hint: "Send a JSON object; /openapi.json describes it.",
      details: { problems: [{ path: "", message: "is required" }] },
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ResonError("invalid_request", "The request body is not valid JSON.", {
      hint: "Check the JSON syntax (quotes, commas, brackets).",
      details: { problems: [{ path: "", message: reason }] },
    });
  }
}
