// The memory module: ranking and search over the store's long-term memory. Hybrid ranking
// (vectors and full text, recency, diversity), the terms it compares snippets by, and the
// exact in-process vector index the store uses where the database has no vector extension.
export {
  cjkSegmenter,
  coverageScore,
  lessonTextScore,
  MemoryIndex,
  type MemoryIndexOptions,
  ONE_WORD_SCORE,
  searchTerms,
  type VectorHit,
  type WeightedTerm,
  weightedTerms,
} from "../store/index.js";
export { type ErrorMatch, errorExcerpt, lessonForError } from "./experiences/error-match.js";
export { expireCandidates, mergeKeys } from "./experiences/lifecycle.js";
export { languageOfText, projectLanguages } from "./experiences/project-languages.js";
export {
  bayesianSuccessRate,
  type RankableExperience,
  rankExperiences,
  shouldRetire,
  wilsonLowerBound,
} from "./experiences/ranking.js";
export {
  parseReflectionOps,
  type ReflectionOp,
  type ShownRule,
  sanitiseOps,
  voteDelta,
} from "./experiences/reflection-ops.js";
export { REFLECTION_SYSTEM_PROMPT, reflectionRequest } from "./experiences/reflection-prompt.js";
export {
  broadNet,
  type ExperienceHit,
  embedMissing,
  MIN_TEXT_MATCH,
  matchingExperiences,
  type RetrievalDeps,
  scoreExperiences,
} from "./experiences/retrieval.js";
export {
  EXPERIENCES_HEADING,
  errorLessonNote,
  experiencesSection,
  type SectionExperience,
} from "./experiences/section.js";
export {
  estimateUplift,
  UPLIFT_MIN_SHOWN_RUNS,
  UPLIFT_MIN_WITHHELD_RUNS,
  type UpliftEstimate,
  upliftSaysRetire,
} from "./experiences/uplift.js";
export { BACKGROUND_TEXTS } from "./experiences/vector-background.js";
export { calibratedScores, type ScoredId } from "./experiences/vector-threshold.js";
export {
  HYBRID_DEFAULTS,
  type HybridRankOptions,
  hybridRank,
  mmr,
  type RankedHit,
  type RankItem,
  type Scored,
} from "./hybrid-rank.js";
export { memorySection, QUOTED_MEMORY_HEADING, quotedOrigin, type ShownMemory } from "./memory-section.js";
export { RECALL_TOOL, type RecallFound, type RecallSource, recallTool } from "./recall-tool.js";
export {
  DEFAULT_MEMORY_HITS,
  type Embed,
  type MemorySearchResult,
  type SearchMemoryOptions,
  searchMemory,
} from "./search-memory.js";
export { jaccard, tokenize } from "./tokens.js";
