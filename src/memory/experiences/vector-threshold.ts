// How far a vector hit rises above texts unrelated to the task: a cosine means different things
// under different embedding models (unrelated texts score 0.1 with one and 0.7 with another),
// so a hit is judged by its z-score over the same query's cosines with a fixed background of
// unrelated texts (vector-background.ts), never by a fixed cosine. The background does not
// depend on the project, so a project's first rule is judged as its five-hundredth.

export interface ScoredId {
  id: string;
  /** Cosine similarity. */
  score: number;
}

/** A background that is all one score still has some spread. */
const MIN_SPREAD = 0.02;

/** The z-score of each hit against the query's cosines with the background texts (none: no z-scores). */
export function calibratedScores(
  hits: readonly ScoredId[],
  background: readonly number[],
): Map<string, number> {
  const out = new Map<string, number>();
  if (background.length < 2) return out;
  const mean = background.reduce((sum, score) => sum + score, 0) / background.length;
  const variance = background.reduce((sum, score) => sum + (score - mean) ** 2, 0) / background.length;
  const spread = Math.max(Math.sqrt(variance), MIN_SPREAD);
  for (const hit of hits) out.set(hit.id, (hit.score - mean) / spread);
  return out;
}
