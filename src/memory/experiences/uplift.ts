// Whether a rule helps: runs it matched are split at random into those shown the rule and a
// holdout not shown it (memory.holdout), and the two success rates compared. Each rate is the
// mean of a Beta(1, 1) posterior; the uplift is their difference with a normal-approximation
// interval. A rule whose interval lies at or below zero after enough runs in both arms does not
// help (or harms) and retires.

export interface UpliftEstimate {
  /** Success rate of runs shown the rule, and of runs it was withheld from (Bayesian). */
  shownRate: number;
  withheldRate: number;
  shownRuns: number;
  withheldRuns: number;
  /** shownRate − withheldRate, and its interval. */
  uplift: number;
  low: number;
  high: number;
  /** The interval's coverage, e.g. 0.9. */
  level: number;
}

/** z of a two-sided 90 % interval. */
const Z90 = 1.645;
/** Runs each arm needs before the estimate can retire a rule. */
export const UPLIFT_MIN_SHOWN_RUNS = 10;
export const UPLIFT_MIN_WITHHELD_RUNS = 5;

function betaMean(successes: number, failures: number): number {
  return (successes + 1) / (successes + failures + 2);
}

function betaVariance(successes: number, failures: number): number {
  const a = successes + 1;
  const b = failures + 1;
  return (a * b) / ((a + b) ** 2 * (a + b + 1));
}

export function estimateUplift(counts: {
  successCount: number;
  failureCount: number;
  holdoutSuccessCount: number;
  holdoutFailureCount: number;
}): UpliftEstimate {
  const shownRate = betaMean(counts.successCount, counts.failureCount);
  const withheldRate = betaMean(counts.holdoutSuccessCount, counts.holdoutFailureCount);
  const spread =
    Z90 *
    Math.sqrt(
      betaVariance(counts.successCount, counts.failureCount) +
        betaVariance(counts.holdoutSuccessCount, counts.holdoutFailureCount),
    );
  const uplift = shownRate - withheldRate;
  return {
    shownRate,
    withheldRate,
    shownRuns: counts.successCount + counts.failureCount,
    withheldRuns: counts.holdoutSuccessCount + counts.holdoutFailureCount,
    uplift,
    low: uplift - spread,
    high: uplift + spread,
    level: 0.9,
  };
}

/** The rule does not help, credibly: enough runs in both arms and the interval at or below 0. */
export function upliftSaysRetire(estimate: UpliftEstimate): boolean {
  return (
    estimate.shownRuns >= UPLIFT_MIN_SHOWN_RUNS &&
    estimate.withheldRuns >= UPLIFT_MIN_WITHHELD_RUNS &&
    estimate.high <= 0
  );
}
