// Where a run starts: a new task, or the committed state of a run that stopped, and the
// checkpoint (LoopSnapshot) committed before its run_start.

import type { HistoryEntry } from "../context/index.js";
import type { UntrustedSource } from "../core/events.js";
import type { AssistantMessage, ImageContent, ToolCall } from "../providers/index.js";
import type { MessageContext } from "../store/index.js";
import type { ToolResult } from "../tools/index.js";
import type { RunBudget } from "./budget.js";
import type { LoopSnapshot } from "./recorder.js";

/** A step whose tool calls were committed but not all their results (a resumed run). */
export interface PendingStep {
  message: AssistantMessage;
  toolCalls: ToolCall[];
  /** Results committed before the stop: never run again. */
  done: Map<string, ToolResult>;
  /** Started but not committed, by a tool with side effects: reported, not re-run. */
  interrupted: Set<string>;
}

/** Where a run starts: a new task, or the committed state of a run that stopped. */
export type LoopStart =
  | {
      kind: "new";
      task: string;
      /** Images the task came with (checked: task-images.ts); stored in its turn. */
      images?: readonly ImageContent[];
      envelope: MessageContext;
      history: HistoryEntry[];
    }
  | {
      kind: "resume";
      history: HistoryEntry[];
      /** Index in history of this run's task. */
      taskIndex: number;
      snapshot: LoopSnapshot;
      /** The run had given its final answer; only the ending was not committed. */
      finished: boolean;
      pending?: PendingStep;
    };

/**
 * The checkpoint a run starts from, committed (recorder.runStarted) before run_start is
 * emitted, so that every id a run shows is already in the store: a new run's empty state, or
 * a resumed run's committed one with the limits and sandbox it runs under now.
 */
export function startSnapshot(
  start: LoopStart,
  run: {
    maxIterations: number;
    budget: RunBudget;
    sandbox?: string;
    /** A new run's inherited untrust (its session's, its parent run's). */
    untrusted?: readonly UntrustedSource[];
  },
): LoopSnapshot {
  const limits = run.budget.limits;
  const base: LoopSnapshot =
    start.kind === "resume"
      ? { ...start.snapshot }
      : {
          step: 0,
          usage: run.budget.used,
          lastText: "",
          consecutiveFailures: 0,
          failureReasons: [],
          ...(run.untrusted && run.untrusted.length > 0 ? { untrusted: [...run.untrusted] } : {}),
        };
  const { limits: _stored, sandbox: _sandbox, ...rest } = base;
  return {
    ...rest,
    maxIterations: run.maxIterations,
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
    ...(run.sandbox === undefined ? {} : { sandbox: run.sandbox }),
  };
}
