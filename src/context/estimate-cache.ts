// The token estimates of the long texts every run sends the same (the tools' schemas, ~13 kB;
// a long system prompt), remembered across runs in $RESON_HOME/cache/token-estimates.json.
// Estimating 13 kB takes the scanner (core/tokens.ts) through enough iterations that V8
// optimises it on the stack: ~1 ms of the run and ~17 ms of compiling on another thread, which
// on a small machine competes with the run and holds up its exit. A remembered estimate is
// looked up by the text's SHA-256; the file is only for the estimator that wrote it (a hash of
// the scanner's code and weights), so a changed estimator starts afresh. Best effort: a file
// that cannot be read or written only means estimating again.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { countTokenFeatures, estimateTokens, TOKEN_WEIGHTS } from "../core/tokens.js";

/** Shorter texts are estimated each time: the scanner is not hot enough to be compiled on them. */
export const MIN_CACHED_CHARS = 4096;
/** Estimates kept, the most recently added last. */
const MAX_ENTRIES = 32;

export function estimateCacheFile(home: string): string {
  return join(home, "cache", "token-estimates.json");
}

const sha256 = (text: string) => process.getBuiltinModule("node:crypto").hash("sha256", text, "hex");

let estimatorVersion: string | undefined;
/** Which estimator made an estimate: its scanner's code and its weights. */
function version(): string {
  estimatorVersion ??= sha256(`${countTokenFeatures.toString()}\n${TOKEN_WEIGHTS.join(",")}`);
  return estimatorVersion;
}

export class EstimateCache {
  #entries: Map<string, number> | undefined;

  constructor(private readonly file: string) {}

  /** estimateTokens(text), from the file when a run has estimated the same text before. */
  readonly estimate = (text: string): number => {
    if (text.length < MIN_CACHED_CHARS) return estimateTokens(text);
    const entries = this.#load();
    const key = sha256(text);
    const known = entries.get(key);
    if (known !== undefined) return known;
    const tokens = estimateTokens(text);
    entries.set(key, tokens);
    while (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    this.#save(entries);
    return tokens;
  };

  #load(): Map<string, number> {
    if (this.#entries) return this.#entries;
    this.#entries = new Map();
    try {
      const saved: unknown = JSON.parse(readFileSync(this.file, "utf8"));
      if (isSaved(saved) && saved.version === version()) {
        for (const [key, tokens] of Object.entries(saved.entries)) {
          if (/^[0-9a-f]{64}$/.test(key) && Number.isInteger(tokens) && tokens >= 0)
            this.#entries.set(key, tokens);
        }
      }
    } catch {
      // none yet, or unreadable: estimated again
    }
    return this.#entries;
  }

  // Synchronous, like the read: a small file, written only when a new long text was estimated.
  #save(entries: Map<string, number>): void {
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      const temp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify({ version: version(), entries: Object.fromEntries(entries) }), {
        mode: 0o600,
      });
      renameSync(temp, this.file);
    } catch {
      // not remembered
    }
  }
}

function isSaved(value: unknown): value is { version: string; entries: Record<string, number> } {
  if (typeof value !== "object" || value === null) return false;
  const { version, entries } = value as Record<string, unknown>;
  return (
    typeof version === "string" && typeof entries === "object" && entries !== null && !Array.isArray(entries)
  );
}
