// The log of `reson serve` and `reson worker`: one JSON object per line (the default when
// stderr is not a terminal, for log collectors), or one readable line. Callers log ids and
// outcomes, never prompts, tokens or secrets. With tracing on, a line about a run also carries
// its OpenTelemetry trace id, so a log line leads to the run's spans in a collector.
export type LogFormat = "json" | "text";

export interface LogEntry {
  level: "info" | "warn" | "error";
  message: string;
  [key: string]: unknown;
}

export type ServiceLog = (entry: LogEntry) => void;

export function parseLogFormat(value: string | undefined, out: NodeJS.WriteStream): LogFormat {
  if (value === "json" || value === "text") return value;
  return out.isTTY ? "text" : "json";
}

export function serviceLog(format: LogFormat, out: NodeJS.WritableStream = process.stderr): ServiceLog {
  return (entry) => {
    const time = new Date().toISOString();
    if (format === "json") {
      out.write(`${JSON.stringify({ time, ...entry })}\n`);
      return;
    }
    const { level, message, ...rest } = entry;
    const extra = Object.entries(rest)
      .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
      .join(" ");
    out.write(`${time} ${level} ${message}${extra ? ` ${extra}` : ""}\n`);
  };
}

/** Adds `traceId` to every entry about a run (one with a `runId`). */
export function withTraceIds(log: ServiceLog, traceIdOf: (runId: string) => string): ServiceLog {
  return (entry) => {
    const { runId } = entry;
    log(
      typeof runId === "string" && entry.traceId === undefined
        ? { ...entry, traceId: traceIdOf(runId) }
        : entry,
    );
  };
}
