// A run's OpenTelemetry trace id is its ULID's 128 bits: nothing to store, and a collector's
// trace can be found from any run id (`reson trace show` prints it) and the other way round.
import { createHash } from "node:crypto";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** 32 lowercase hex digits: the trace id of the spans of this run (and of its sub-agents). */
export function traceIdOfRun(runId: string): string {
  const ulid = runId.toUpperCase();
  if (/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/.test(ulid)) {
    let value = 0n;
    for (const char of ulid) value = (value << 5n) | BigInt(CROCKFORD.indexOf(char));
    const hex = value.toString(16).padStart(32, "0");
    // All zeros is the invalid trace id; a ULID of time 0 and randomness 0 is not a run's.
    if (!/^0+$/.test(hex)) return hex;
  }
  // Ids made elsewhere (a caller's own run id): a stable hash, still one trace per run.
  return createHash("sha256").update(runId).digest("hex").slice(0, 32);
}
