// Ages on the command line (`reson gc --older-than 30d`): a whole number and one unit.
import { ResonError } from "../core/errors.js";

const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };

/** "30d", "12h", "90m", "45s" -> milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+)\s*([dhms])$/i.exec(text.trim());
  const amount = match ? Number(match[1]) : Number.NaN;
  const unitMs = match ? UNIT_MS[match[2]!.toLowerCase()] : undefined;
  const ms = unitMs === undefined ? Number.NaN : amount * unitMs;
  if (!Number.isSafeInteger(ms)) {
    throw new ResonError("usage_error", `"${text}" is not a duration.`, {
      hint: "Give a whole number and a unit: 30d (days), 12h (hours), 90m (minutes) or 45s (seconds).",
    });
  }
  return ms;
}
