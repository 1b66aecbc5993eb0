// The queue worker: claims queued runs from the store and executes them under their leases
// (`reson worker`; `reson serve` runs one in its own process on SQLite).
export { type ExecutionOutcome, type ExecutorSettings, executeClaimed } from "./run-executor.js";
export {
  type ApprovalAnswer,
  answeredByOf,
  type PromptChannel,
  storePromptChannel,
} from "./store-prompts.js";
export { Worker, type WorkerLogEntry, type WorkerOptions } from "./worker.js";
