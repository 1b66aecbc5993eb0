// Hard budgets: the tokens, cost and wall time a run may spend. The loop checks its budget
// before and after every model call, and a timer stops the call in flight at the deadline.
// A sub-agent's budget hangs under its parent's, so what a child spends counts against its
// own limits and every ancestor's: the top-level run's --max-tokens and --max-cost cover the tree.
import { ResonError } from "../core/errors.js";
import { humanDuration } from "../core/human-duration.js";
import { addUsage, emptyUsage, formatUsd, groupDigits, type RunLimits, type Usage } from "../core/usage.js";

type LimitName = "tokens" | "cost" | "time";

interface Overrun {
  limit: LimitName;
  used: number;
  max: number;
}

const FLAGS: Record<LimitName, string> = { tokens: "--max-tokens", cost: "--max-cost", time: "--max-time" };

export class RunBudget {
  #used: Usage;
  /** When the wall clock of this budget started (a resumed run starts again). */
  readonly startedAt: number;

  constructor(
    readonly limits: RunLimits,
    private readonly options: { parent?: RunBudget; subagent?: boolean; now?: number } = {},
  ) {
    this.#used = emptyUsage();
    this.startedAt = options.now ?? Date.now();
  }

  /** What the run and its sub-agents have spent. */
  get used(): Usage {
    return this.#used;
  }

  get parent(): RunBudget | undefined {
    return this.options.parent;
  }

  /** Counts usage against this budget and every ancestor's. */
  charge(usage: Usage): void {
    this.#used = addUsage(this.#used, usage);
    this.options.parent?.charge(usage);
  }

  /** A resumed run: what it had spent before it stopped (not charged to anyone again). */
  restore(used: Usage): void {
    this.#used = used;
  }

  /** A child's budget under this one. */
  child(limits: RunLimits): RunBudget {
    return new RunBudget(limits, { parent: this, subagent: true });
  }

  /** The earliest moment this budget or an ancestor runs out of time. */
  deadline(): number | undefined {
    const own = this.limits.maxWallMs === undefined ? undefined : this.startedAt + this.limits.maxWallMs;
    const above = this.parent?.deadline();
    if (own === undefined) return above;
    return above === undefined ? own : Math.min(own, above);
  }

  /** The lowest cost limit of this budget and its ancestors, if any has one. */
  costLimit(): number | undefined {
    let lowest: number | undefined;
    for (let budget: RunBudget | undefined = this; budget; budget = budget.parent) {
      const max = budget.limits.maxCostUsd;
      if (max !== undefined) lowest = lower(lowest, max);
    }
    return lowest;
  }

  /** What is left under this budget and all its ancestors (a limit absent everywhere stays absent). */
  remaining(now = Date.now()): RunLimits {
    const left: RunLimits = {};
    for (let budget: RunBudget | undefined = this; budget; budget = budget.parent) {
      const { maxTokens, maxCostUsd, maxWallMs } = budget.limits;
      if (maxTokens !== undefined)
        left.maxTokens = lower(left.maxTokens, maxTokens - budget.used.totalTokens);
      if (maxCostUsd !== undefined)
        left.maxCostUsd = lower(left.maxCostUsd, maxCostUsd - budget.used.costUsd);
      if (maxWallMs !== undefined)
        left.maxWallMs = lower(left.maxWallMs, maxWallMs - (now - budget.startedAt));
    }
    for (const key of ["maxTokens", "maxCostUsd", "maxWallMs"] as const) {
      const value = left[key];
      if (value !== undefined) left[key] = Math.max(0, value);
    }
    return left;
  }

  /** The limit reached by this budget or an ancestor, as the error that stops the run. */
  exceeded(now = Date.now()): ResonError | undefined {
    let depth = 0;
    for (let budget: RunBudget | undefined = this; budget; budget = budget.parent, depth++) {
      const over = budget.#overrun(now);
      if (over) return budgetError(over, budget.#whose(depth));
    }
    return undefined;
  }

  /**
   * A signal that also aborts at the deadline, with the budget error as its reason, so the
   * model call or command in flight stops; `dispose` clears the timer.
   */
  watch(signal: AbortSignal): { signal: AbortSignal; dispose(): void } {
    const deadline = this.deadline();
    if (deadline === undefined) return { signal, dispose: () => {} };
    const controller = new AbortController();
    const timer = setTimeout(
      // A timer may fire a millisecond early: judge the budget at the deadline itself.
      () => controller.abort(this.exceeded(Math.max(Date.now(), deadline))),
      Math.max(0, deadline - Date.now()),
    );
    return { signal: AbortSignal.any([signal, controller.signal]), dispose: () => clearTimeout(timer) };
  }

  #overrun(now: number): Overrun | undefined {
    const { maxTokens, maxCostUsd, maxWallMs } = this.limits;
    if (maxTokens !== undefined && this.#used.totalTokens >= maxTokens)
      return { limit: "tokens", used: this.#used.totalTokens, max: maxTokens };
    if (maxCostUsd !== undefined && this.#used.costUsd >= maxCostUsd)
      return { limit: "cost", used: this.#used.costUsd, max: maxCostUsd };
    if (maxWallMs !== undefined && now - this.startedAt >= maxWallMs)
      return { limit: "time", used: now - this.startedAt, max: maxWallMs };
    return undefined;
  }

  #whose(depth: number): "run" | "sub-agent" | "parent run" {
    if (depth > 0) return "parent run";
    return this.options.subagent ? "sub-agent" : "run";
  }
}

/**
 * A cost limit with a model whose price reson does not know could never stop the run: it is
 * refused before anything runs (a warning would scroll past in a script while the run spends
 * without bound). Limiting tokens works with every model.
 */
export function assertCostCountable(
  maxCostUsd: number | undefined,
  model: { provider: string; id: string; priced: boolean },
): void {
  if (maxCostUsd === undefined || model.priced) return;
  throw new ResonError(
    "usage_error",
    `A cost limit (${formatUsd(maxCostUsd)}) cannot be kept with ${model.provider}/${model.id}: reson does not know its price, so it cannot count what the run spends.`,
    {
      hint: "Limit tokens instead (--max-tokens, or limits.maxTokens in a preset) and leave out --max-cost (or the preset's maxCostUsd), or use a model with a known price.",
      details: { limit: "cost", max: maxCostUsd, provider: model.provider, model: model.id },
    },
  );
}

/** True for the error a budget stops a run with (also as an abort reason). */
export function isBudgetError(value: unknown): value is ResonError {
  return value instanceof ResonError && value.code === "budget_exceeded";
}

function lower(current: number | undefined, next: number): number {
  return current === undefined ? next : Math.min(current, next);
}

function budgetError(over: Overrun, whose: "run" | "sub-agent" | "parent run"): ResonError {
  const subject = whose === "run" ? "The run" : whose === "sub-agent" ? "This sub-agent" : "The parent run";
  const figures =
    over.limit === "tokens"
      ? `has used ${count(over.used)} tokens of its ${count(over.max)}-token budget`
      : over.limit === "cost"
        ? `has spent ${formatUsd(over.used)} of its ${formatUsd(over.max)} budget`
        : `has run for ${humanDuration(over.used)} of its ${humanDuration(over.max)} time budget`;
  const flag = FLAGS[over.limit];
  const hint =
    whose === "run"
      ? `Raise it with ${flag} (or limits in the preset), or split the task; \`reson resume\` continues the run.`
      : whose === "sub-agent"
        ? "Give the sub-agent a narrower task or more room (max_tokens / max_steps in the call, within the parent's remaining budget and the subagents caps in config)."
        : `The parent run's ${flag} covers its sub-agents too; raise it, or ask for less.`;
  return new ResonError("budget_exceeded", `${subject} ${figures}.`, {
    hint,
    details: { limit: over.limit, used: over.used, max: over.max, scope: whose },
  });
}

function count(n: number): string {
  return groupDigits(n);
}
