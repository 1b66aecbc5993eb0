// The context manifest: for one model call, which sections went in, from which file, how
// big they were before and after budgets, whether they were cut, and a hash of exactly what
// was sent, so a trace (and later `/context`) can say what the model saw and what changed.
import { createHash } from "node:crypto";
import { estimateTokens } from "../core/tokens.js";

export interface ManifestEntry {
  /** What the section is: "baseline", "core-skill", "agents", "soul", "user", "memory", … */
  section: string;
  /** The file it came from; null for generated sections. */
  source: string | null;
  /** Characters of the source before budgets (the section's own text for generated ones). */
  rawChars: number;
  /** Characters of the section as sent, heading and cut marker included. */
  injectedChars: number;
  /** Raw heuristic estimate of the section as sent (uncalibrated). */
  estTokens: number;
  /** True when a budget cut part of the source. */
  truncated: boolean;
  /** Hex SHA-256 of the section as sent (UTF-8). */
  sha256: string;
}

export interface ContextManifest {
  entries: ManifestEntry[];
  totalChars: number;
  estTokens: number;
}

export interface ManifestEntryInput {
  section: string;
  /** Exactly what goes into the request for this section. */
  text: string;
  source?: string | null;
  /** Defaults to the length of `text`. */
  rawChars?: number;
  truncated?: boolean;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export function manifestEntry(input: ManifestEntryInput): ManifestEntry {
  return {
    section: input.section,
    source: input.source ?? null,
    rawChars: input.rawChars ?? input.text.length,
    injectedChars: input.text.length,
    estTokens: estimateTokens(input.text),
    truncated: input.truncated ?? false,
    sha256: sha256Hex(input.text),
  };
}

export function contextManifest(entries: readonly ManifestEntry[]): ContextManifest {
  let totalChars = 0;
  let estTokens = 0;
  for (const entry of entries) {
    totalChars += entry.injectedChars;
    estTokens += entry.estTokens;
  }
  return { entries: [...entries], totalChars, estTokens };
}
