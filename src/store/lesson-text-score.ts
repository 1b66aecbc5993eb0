// How well a rule's text (condition, rule and keys, as the index cuts them) matches a task,
// 0..1: the share of the task's weight the rule covers (coverageScore), resting on enough
// evidence. One word in common, however rare ("dependency", "ASCII", "binary"), is how
// unrelated tasks met lessons: alone it scores at most ONE_WORD_SCORE, under the score a run
// needs (retrieval.ts MIN_TEXT_MATCH), where the rule's vector may still lift it. Two words of
// content, or one identifier or error code (SQLITE_BUSY, package.json), make a full match.
import {
  coverageScore,
  GENERIC_WORD_WEIGHT,
  type MatchedWord,
  matchedWords,
  type WeightedTerm,
} from "./search-terms.js";

/** The most a match on one content word can score (a run needs 0.75; vector support 0.5). */
export const ONE_WORD_SCORE = 0.7;

const contentWords = (words: readonly MatchedWord[]) =>
  words.filter((word) => word.identifier || word.weight > GENERIC_WORD_WEIGHT);

/** The text score of a rule's terms for a task's weighted terms. */
export function lessonTextScore(query: readonly WeightedTerm[], ruleTerms: ReadonlySet<string>): number {
  const score = coverageScore(query, ruleTerms);
  const matched = contentWords(matchedWords(query, (term) => ruleTerms.has(term)));
  if (matched.length >= 2 || matched.some((word) => word.identifier)) return score;
  // A task of one content word is all there is to match.
  if (contentWords(matchedWords(query, () => true)).length <= 1) return score;
  return Math.min(score, ONE_WORD_SCORE);
}
