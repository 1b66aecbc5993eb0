// Which vector hits stand out for a task: a cosine means different things under different
// embedding models (unrelated texts score 0.1 with one and 0.7 with another), so a hit counts
// by how far it rises above the project's other rules for the same query, as a z-score over
// them, never by a fixed cosine.

export interface ScoredId {
  id: string;
  /** Cosine similarity. */
  score: number;
}

export interface StandoutOptions {
  /** Standard deviations above the background a hit must rise (default 3). */
  minZ?: number;
  /** And at least this much cosine above the background's mean (default 0.05). */
  minMargin?: number;
  /** The match a hit at exactly minZ gets, 0..1 (default 0.75, the text threshold). */
  matchAtThreshold?: number;
}

/** The best hits tested against the rest; below 3 background scores nothing stands out. */
const MAX_TESTED = 3;
const MIN_BACKGROUND = 3;
/** A background that is all one score still has some spread. */
const MIN_SPREAD = 0.02;

/**
 * Matches 0..1 of the hits that stand out from the others (the background: all but the best
 * few); hits that do not, and every hit of a project too small to tell, are left out.
 */
export function standoutMatches(
  hits: readonly ScoredId[],
  options: StandoutOptions = {},
): Map<string, number> {
  const minZ = options.minZ ?? 3;
  const minMargin = options.minMargin ?? 0.05;
  const atThreshold = options.matchAtThreshold ?? 0.75;
  const sorted = [...hits].sort((a, b) => b.score - a.score);
  const tested = Math.min(MAX_TESTED, Math.floor(sorted.length / 3));
  const background = sorted.slice(tested);
  const out = new Map<string, number>();
  if (tested === 0 || background.length < MIN_BACKGROUND) return out;
  const mean = background.reduce((sum, hit) => sum + hit.score, 0) / background.length;
  const variance = background.reduce((sum, hit) => sum + (hit.score - mean) ** 2, 0) / background.length;
  const spread = Math.max(Math.sqrt(variance), MIN_SPREAD);
  for (const hit of sorted.slice(0, tested)) {
    const z = (hit.score - mean) / spread;
    if (z < minZ || hit.score - mean < minMargin) continue;
    out.set(hit.id, Math.min(1, atThreshold + ((1 - atThreshold) * (z - minZ)) / minZ));
  }
  return out;
}
