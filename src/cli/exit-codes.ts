// The process exit statuses of the reson command, as scripts depend on them.
import type { ErrorCode } from "../core/errors.js";
import type { RunStatus } from "../core/events.js";

export const EXIT_OK = 0;
/** The agent failed: provider error after retries, max iterations, circuit breaker. */
export const EXIT_FAILED = 1;
/** Usage or configuration error, or a run another live process holds: nothing ran. */
export const EXIT_USAGE = 2;
/** Interrupted (Ctrl-C). */
export const EXIT_INTERRUPTED = 130;
/** `reson serve` or `reson worker` stopped by an error nothing awaited (EX_SOFTWARE; crash-log.ts). */
export const EXIT_UNEXPECTED = 70;

const CONFIG_CODES: ReadonlySet<ErrorCode> = new Set([
  "usage_error",
  "config_invalid",
  "no_provider_configured",
  "unknown_provider",
  "workspace_invalid",
  "workspace_refused",
  "workspace_untrusted",
  "workspace_exists",
  // A package that is not a plugin (no plugin.json, a bad name): fix the package, not the machine.
  "plugin_invalid",
  "not_found",
  "ambiguous_id",
  // Another process runs it: nothing ran here, and trying again later may work.
  "run_leased",
  "secrets_file_insecure",
  "secrets_file_invalid",
  // Nothing was changed: there is nothing to rewind from here, or the user's files are in the way.
  "snapshot_missing",
  "rewind_conflict",
]);

export function exitCodeForStatus(status: RunStatus): number {
  if (status === "completed") return EXIT_OK;
  if (status === "aborted") return EXIT_INTERRUPTED;
  return EXIT_FAILED;
}

export function exitCodeForError(code: ErrorCode): number {
  if (CONFIG_CODES.has(code)) return EXIT_USAGE;
  if (code === "aborted") return EXIT_INTERRUPTED;
  return EXIT_FAILED;
}
