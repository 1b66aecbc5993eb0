// Public surface of the context module: what the model sees and in which order.

export { DEFAULT_BUDGET_RATIO, RequestEstimator } from "./budget.js";
export {
  applyCompaction,
  type Compaction,
  compactionCut,
  keepHeadAndTail,
  SUMMARY_SYSTEM_PROMPT,
  summaryEntry,
  summaryRequestText,
  transcriptOf,
} from "./compaction.js";
export { EstimateCache, estimateCacheFile } from "./estimate-cache.js";
export { applyGoalView, goalSummaryText } from "./goal-view.js";
export { type HistoryEntry, type Pin, renderHistory } from "./history.js";
export {
  cutMarker,
  cutMiddle,
  DEFAULT_INSTRUCTION_BUDGETS,
  type InstructionBudgets,
  type InstructionFile,
  type InstructionKind,
  type LoadedInstructions,
  type LoadInstructionsOptions,
  loadInstructions,
  MAX_INSTRUCTION_FILE_BYTES,
  type MiddleCut,
} from "./instructions.js";
export {
  type ContextManifest,
  contextManifest,
  type ManifestEntry,
  type ManifestEntryInput,
  manifestEntry,
  sha256Hex,
} from "./manifest.js";
export {
  isPinned,
  leavingPins,
  MAX_PINNED_CHARS,
  MAX_PINNED_EACH_CHARS,
  type PinnedBlockOptions,
  pinnedBlockText,
  pinsOf,
} from "./pinned.js";
export {
  CHAT_METADATA_LABEL,
  chatMetadataBlock,
  envelopeLine,
  renderUserText,
  turnsToHistory,
  turnToMessage,
} from "./render-turn.js";
export {
  assembleSystemPrompt,
  type BaselineInput,
  baselineSystemPrompt,
  type CoreSkillInput,
  SECTION_SEPARATOR,
  type SystemPrompt,
  type SystemPromptInput,
} from "./system-prompt.js";
export { applyTrim, trimPoint } from "./trim.js";
