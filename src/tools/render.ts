// How a tool result reads to the model: the content on success, a compact structured error
// on failure, and (the two memory layers) only the long-term line once the full output of
// an `includeOutputOnlyOnce` result has been seen.
import type { SerializedError } from "../core/errors.js";
import type { ToolResult } from "./types.js";

export function errorText(error: SerializedError): string {
  const head = `Error [${error.code}]: ${error.message}`;
  return error.hint ? `${head}\nHint: ${error.hint}` : head;
}

/** What the model sees for this result the first time. */
export function toolResultText(result: ToolResult): string {
  if (result.ok) return result.content === "" ? "(no output)" : result.content;
  const error = errorText(result.error ?? { code: "tool_failed", message: "The tool failed." });
  return result.content === "" ? error : `${error}\n\n${result.content}`;
}

export interface HistoryTextOptions {
  /** True the first time the result is put in front of the model; false on later turns. */
  firstShow: boolean;
}

/** What the model sees for this result in history: full once, then the short line if asked. */
export function historyText(result: ToolResult, options: HistoryTextOptions): string {
  if (options.firstShow || !result.includeOutputOnlyOnce || !result.longTermMemory) {
    return toolResultText(result);
  }
  if (result.ok) return result.longTermMemory;
  const error = errorText(result.error ?? { code: "tool_failed", message: "The tool failed." });
  return `${error}\n${result.longTermMemory}`;
}
