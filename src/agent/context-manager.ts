// Keeps each model call within the token budget (85% of the window by default): builds the
// model's view of the history (trim, compaction summary with the loaded skills kept whole,
// goal view, two-layer results), and when the estimate is over budget, trims old tool outputs
// first and compacts the oldest part with the summary model second. A compaction that does not
// shrink the context enough stops the run instead of looping. Trims and compactions are events
// and are committed.

import {
  applyCompaction,
  applyTrim,
  type Compaction,
  compactionCut,
  type HistoryEntry,
  MAX_PINNED_CHARS,
  RequestEstimator,
  renderHistory,
  SUMMARY_SYSTEM_PROMPT,
  summaryRequestText,
  transcriptOf,
  trimPoint,
} from "../context/index.js";
import { ResonError } from "../core/errors.js";
import type { Usage } from "../core/usage.js";
import type { ChatRequest, Message, Provider, ToolSpec } from "../providers/index.js";

/** What a checkpoint keeps of the context, so a resumed run sees the same view. */
export interface ContextState {
  /** Tool results before this history index are shown trimmed. */
  trimUpTo: number;
  compaction?: Compaction;
}

export interface ContextInput {
  history: readonly HistoryEntry[];
  /** Index in `history` of the current run's task (never compacted away). */
  taskIndex: number;
  systemPrompt: string;
  tools: ToolSpec[];
  step: number;
  /** A further view of the entries (the goal view), applied after compaction. */
  view?: (entries: HistoryEntry[]) => HistoryEntry[];
  /** Volatile text appended to the last message (the goal tree): never cached, never stored. */
  volatile?: string;
}

export interface PreparedRequest {
  request: ChatRequest;
  /** Uncalibrated estimate, to calibrate against the usage the provider reports. */
  rawTokens: number;
  estTokens: number;
  budgetTokens: number;
}

export interface ContextManagerDeps {
  provider: Provider;
  summaryProvider: Provider;
  budgetRatio: number;
  /** How long texts are estimated (an EstimateCache's), default estimateTokens. */
  estimate?: (text: string) => number;
  signal: AbortSignal;
  emit: (event: Record<string, unknown> & { type: string }) => void;
  addUsage: (usage: Usage) => void;
  onCompacted: (
    compaction: Compaction,
    info: { beforeTokens: number; afterTokens: number; reason: string },
  ) => Promise<void>;
}

/** A compaction must save at least this fraction of the context, or the run stops. */
const MIN_SHRINK = 0.2;
/** Trimming keeps the outputs of this many recent steps whole. */
const KEEP_STEPS_ON_TRIM = 3;
/** Compaction keeps this fraction of the budget of recent history verbatim. */
const KEEP_RECENT_RATIO = 0.3;
/** Loaded skills re-attached after a compaction take at most this fraction of the budget. */
const PINNED_RATIO = 0.25;
/** Characters per token for that allowance (the estimator's prose rate, roughly). */
const PINNED_CHARS_PER_TOKEN = 4;

function withVolatile(messages: Message[], volatile: string | undefined): Message[] {
  if (!volatile || messages.length === 0) return messages;
  const last = messages.at(-1)!;
  const block = `\n\n<reson-context>\n${volatile}\n</reson-context>`;
  let patched: Message;
  if (last.role === "user") {
    patched =
      typeof last.content === "string"
        ? { ...last, content: last.content + block }
        : { ...last, content: [...last.content, { type: "text", text: block }] };
  } else if (last.role === "toolResult") {
    patched = { ...last, content: [...last.content, { type: "text", text: block }] };
  } else {
    return [...messages, { role: "user", content: block.trim(), timestamp: 0 }];
  }
  return [...messages.slice(0, -1), patched];
}

export class ContextManager {
  readonly estimator: RequestEstimator;
  readonly budgetTokens: number;
  state: ContextState;

  constructor(
    private readonly deps: ContextManagerDeps,
    initial?: ContextState,
  ) {
    this.estimator = new RequestEstimator(deps.estimate ? { estimate: deps.estimate } : {});
    this.budgetTokens = Math.floor(deps.provider.model.contextWindow * deps.budgetRatio);
    this.state = initial ? { ...initial } : { trimUpTo: 0 };
  }

  private build(input: ContextInput): PreparedRequest {
    let entries = applyTrim(input.history, this.state.trimUpTo);
    entries = applyCompaction(entries, this.state.compaction, input.taskIndex, {
      maxChars: Math.min(
        MAX_PINNED_CHARS,
        Math.floor(this.budgetTokens * PINNED_RATIO * PINNED_CHARS_PER_TOKEN),
      ),
    });
    if (input.view) entries = input.view(entries);
    const messages = withVolatile(renderHistory(entries, input.step), input.volatile);
    const request: ChatRequest = { systemPrompt: input.systemPrompt, messages, tools: input.tools };
    const rawTokens = this.estimator.raw(request);
    return {
      request,
      rawTokens,
      estTokens: Math.ceil(rawTokens * this.estimator.calibrator.ratio),
      budgetTokens: this.budgetTokens,
    };
  }

  /** The request for this step, trimmed and compacted as needed to fit the budget. */
  async prepare(input: ContextInput): Promise<PreparedRequest> {
    let prepared = this.build(input);
    if (prepared.estTokens <= this.budgetTokens) return prepared;

    const point = trimPoint(input.history, KEEP_STEPS_ON_TRIM);
    if (point > this.state.trimUpTo) {
      const before = prepared.estTokens;
      this.state.trimUpTo = point;
      prepared = this.build(input);
      this.deps.emit({
        type: "context_trimmed",
        trimmedUpTo: point,
        beforeTokens: before,
        afterTokens: prepared.estTokens,
        budgetTokens: this.budgetTokens,
      });
      if (prepared.estTokens <= this.budgetTokens) return prepared;
    }
    await this.compact(input, "budget", prepared.estTokens);
    return this.build(input);
  }

  /**
   * Replaces the oldest part of the history with a summary from the summary model. Throws
   * context_exhausted when there is nothing left to compact or the result is not smaller
   * by a meaningful fraction (rather than compacting again and again).
   */
  async compact(
    input: ContextInput,
    reason: "budget" | "overflow" | "manual",
    beforeTokens?: number,
  ): Promise<void> {
    const before = beforeTokens ?? this.build(input).estTokens;
    const previous = this.state.compaction;
    const from = previous?.upTo ?? 0;
    const keepRecent = this.recentEntries(input.history, before);
    const cut = compactionCut(input.history, from, keepRecent);
    const part = input.history.slice(from, cut).filter((_, i) => from + i !== input.taskIndex);
    if (cut <= from || part.length === 0) {
      throw new ResonError(
        "context_exhausted",
        "The context is over budget and nothing more can be compacted.",
        {
          hint: "The recent turns alone fill the model's window: use a model with a larger window or split the task.",
          details: { estTokens: before, budgetTokens: this.budgetTokens },
        },
      );
    }
    const focus = input.volatile ? `the current goals:\n${input.volatile}` : undefined;
    const chat = await this.deps.summaryProvider.chat(
      {
        systemPrompt: SUMMARY_SYSTEM_PROMPT,
        messages: [
          {
            role: "user",
            content: summaryRequestText(transcriptOf(part, previous?.summary), focus),
            timestamp: 0,
          },
        ],
        tools: [],
      },
      { signal: this.deps.signal },
    );
    this.deps.addUsage(chat.usage);
    const summary = chat.text.trim();
    if (!summary)
      throw new ResonError("provider_bad_response", "The summary model returned an empty summary.");
    const compaction: Compaction = { upTo: cut, summary, count: (previous?.count ?? 0) + 1 };
    const saved = this.state;
    this.state = { ...this.state, compaction };
    const after = this.build(input).estTokens;
    if (after > before * (1 - MIN_SHRINK)) {
      this.state = saved;
      throw new ResonError(
        "context_exhausted",
        `Compaction did not shrink the context enough (${before} -> ${after} estimated tokens); stopping instead of looping.`,
        { hint: "Use a model with a larger window, lower the size of tool outputs, or split the task." },
      );
    }
    await this.deps.onCompacted(compaction, { beforeTokens: before, afterTokens: after, reason });
    this.deps.emit({
      type: "context_compacted",
      reason,
      compactedEntries: cut,
      beforeTokens: before,
      afterTokens: after,
      budgetTokens: this.budgetTokens,
      summaryModel: this.deps.summaryProvider.model.id,
      summaryChars: summary.length,
    });
  }

  /**
   * How many of the newest entries fit in the share kept verbatim: a share of the budget, or of
   * the current size when that is smaller (after a provider overflow the real window is
   * smaller than the estimate says, so the cut must go deeper).
   */
  private recentEntries(history: readonly HistoryEntry[], currentTokens: number): number {
    const allowance =
      (Math.min(this.budgetTokens, currentTokens) * KEEP_RECENT_RATIO) / this.estimator.calibrator.ratio;
    let used = 0;
    let count = 0;
    for (let i = history.length - 1; i >= 0; i--) {
      used += this.estimator.messageTokens(history[i]!.message);
      if (used > allowance) break;
      count++;
    }
    return Math.max(count, 1);
  }
}
