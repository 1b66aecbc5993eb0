// What `reson serve` and `reson worker` do on an error nothing was waiting for (a plugin's timer
// that throws, a library's promise nobody awaited): Node would print a stack over many lines
// and exit, which a log collector reading one JSON object per line cannot parse, and which
// says nothing about the runs in flight. The service writes one log entry with the error, its
// stack and what happens next, then exits as Node would: after such an error the process's
// state is unknown, and the runs it held are taken up by the next holder once their leases end.
import { EXIT_UNEXPECTED } from "./exit-codes.js";
import type { ServiceLog } from "./service-log.js";

export function logUnexpectedErrors(log: ServiceLog, service: { name: string; leaseTtlMs: number }): void {
  let stopping = false;
  const onError = (error: unknown, origin: string) => {
    if (stopping) return;
    stopping = true;
    const failure = error instanceof Error ? error : new Error(String(error));
    try {
      log({
        level: "error",
        message: `reson ${service.name} stopped on an error nothing expected (${origin}): ${failure.message}`,
        origin,
        error: failure.name,
        stack: failure.stack ?? "",
        hint:
          `runs this process held are resumed by the next \`reson serve\` or \`reson worker\` on the same store once ` +
          `their leases expire (${Math.round(service.leaseTtlMs / 1000)} s); restart the service, and report the stack if it comes from reson`,
      });
    } finally {
      process.exit(EXIT_UNEXPECTED);
    }
  };
  process.on("uncaughtException", (error) => onError(error, "uncaughtException"));
  process.on("unhandledRejection", (reason) => onError(reason, "unhandledRejection"));
}
