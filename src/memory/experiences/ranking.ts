// How experiences are ranked for a task: by how well their condition matches it, weighted by
// how often they helped. The success rate is Bayesian ((s+1)/(s+f+2)), so a new rule starts at
// one half and one lucky run does not make it certain; ranking uses the Wilson lower bound so a
// rule with more evidence beats an equally good one with less.
import { successRate } from "../../store/index.js";

/** (successes + 1) / (successes + failures + 2): the store's one definition, as experiences read. */
export function bayesianSuccessRate(successes: number, failures: number): number {
  return successRate(successes, failures);
}

/** The lower bound of the Wilson interval for a success proportion (z = 1.0: about 68 %). */
export function wilsonLowerBound(successes: number, failures: number, z = 1.0): number {
  const n = successes + failures;
  if (n === 0) return 0.5;
  const p = successes / n;
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const margin = z * Math.sqrt((p * (1 - p) + z2 / (4 * n)) / n);
  return (centre - margin) / (1 + z2 / n);
}

export interface RankableExperience {
  id: string;
  /** How well the condition matches the task, 0..1 (full-text or vector score). */
  match: number;
  successCount: number;
  failureCount: number;
}

/** Experiences whose rate has sunk this low after enough uses are retired. */
export const RETIRE_BELOW = 0.3;
export const RETIRE_AFTER_USES = 4;

/** Whether an experience that keeps failing should be retired. */
export function shouldRetire(successes: number, failures: number): boolean {
  return successes + failures >= RETIRE_AFTER_USES && bayesianSuccessRate(successes, failures) < RETIRE_BELOW;
}

/**
 * The `limit` best experiences for a task: those matching at least `minMatch`, ordered by
 * match × (0.5 + Wilson lower bound), so usefulness moves a rule up or down within what matches.
 */
export function rankExperiences<T extends RankableExperience>(
  candidates: readonly T[],
  options: { limit: number; minMatch?: number },
): T[] {
  const minMatch = options.minMatch ?? 0.05;
  return candidates
    .filter((candidate) => candidate.match >= minMatch)
    .map((candidate) => ({
      candidate,
      score: candidate.match * (0.5 + wilsonLowerBound(candidate.successCount, candidate.failureCount)),
    }))
    .sort(
      (a, b) =>
        b.score - a.score || (a.candidate.id < b.candidate.id ? -1 : a.candidate.id > b.candidate.id ? 1 : 0),
    )
    .slice(0, options.limit)
    .map((entry) => entry.candidate);
}
