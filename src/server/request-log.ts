// One JSON line per request: what was asked (method and route pattern, never the raw URL,
// headers or body, which can carry tokens and user data), the status and how long it took.
import type { Writable } from "node:stream";

export interface RequestLogRecord {
  ts: string;
  level: "info" | "warn" | "error";
  msg: "http_request";
  requestId: string;
  method: string;
  /** The matched route's pattern ("/runs/:id"), or null when nothing matched. */
  route: string | null;
  status: number;
  ms: number;
  /** The error code of a failed request. */
  error?: string;
  /** For internal errors only: the (redacted) message, so the operator can find the bug. */
  detail?: string;
  /** The client went away before the response was complete. */
  aborted?: boolean;
}

export type RequestLogger = (record: RequestLogRecord) => void;

/** Writes each record as one line of JSON to `stream` (stderr for `reson serve`). */
export function jsonLineLogger(stream: Writable): RequestLogger {
  return (record) => {
    stream.write(`${JSON.stringify(record)}\n`);
  };
}
