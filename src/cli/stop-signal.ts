// How `reson serve` and `reson worker` wait to be told to stop: the first SIGTERM or Ctrl-C
// starts a graceful stop, a second one exits at once.
import type { ServiceLog } from "./service-log.js";

/** Resolves on the first SIGTERM or SIGINT; a second one exits at once. */
export function untilStopSignal(log: ServiceLog, active: () => number): Promise<void> {
  return new Promise((resolve) => {
    // Signal handlers do not keep Node running, and on SQLite nothing else may (the worker's
    // poll timer is unref'd, there is no LISTEN connection): without this the process would
    // exit as soon as it started.
    const keepAlive = setInterval(() => {}, 2 ** 30);
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      signals++;
      clearInterval(keepAlive);
      if (signals > 1) {
        log({
          level: "warn",
          message: `${signal} again: exiting now; ${active()} run(s) resume elsewhere when their leases expire`,
        });
        process.exit(130);
      }
      resolve();
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}
