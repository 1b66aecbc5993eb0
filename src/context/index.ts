// Public surface of the context module: what the model sees and in which order.
export { type HistoryEntry, renderHistory } from "./history.js";
export { envelopeLine, turnsToHistory, turnToMessage } from "./render-turn.js";
export { type BaselineInput, baselineSystemPrompt } from "./system-prompt.js";
