// How far a vector hit rises above the project's other rules: a cosine means different things
// under different embedding models (unrelated texts score 0.1 with one and 0.7 with another),
// so a hit is judged by its z-score over the other rules' scores for the same query (leave one
// out), never by a fixed cosine.

export interface ScoredId {
  id: string;
  /** Cosine similarity. */
  score: number;
}

/** Fewer other scores than this say too little about the background: no z-scores. */
export const MIN_BACKGROUND = 8;
/** A background that is all one score still has some spread. */
const MIN_SPREAD = 0.02;

/**
 * The z-score of each of the best `tested` hits against all the other hits; empty when there
 * are too few hits to tell.
 */
export function standoutScores(hits: readonly ScoredId[], tested = 5): Map<string, number> {
  const out = new Map<string, number>();
  if (hits.length - 1 < MIN_BACKGROUND) return out;
  const sorted = [...hits].sort((a, b) => b.score - a.score);
  const total = sorted.reduce((sum, hit) => sum + hit.score, 0);
  const squares = sorted.reduce((sum, hit) => sum + hit.score ** 2, 0);
  const n = sorted.length - 1;
  for (const hit of sorted.slice(0, tested)) {
    const mean = (total - hit.score) / n;
    const variance = Math.max(0, (squares - hit.score ** 2) / n - mean ** 2);
    out.set(hit.id, (hit.score - mean) / Math.max(Math.sqrt(variance), MIN_SPREAD));
  }
  return out;
}
