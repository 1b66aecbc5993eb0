// Token usage and cost of model calls, summed over steps and runs, and the limits a run may
// spend up to. Schemas in TypeBox because events carry them over the wire (SSE, --json).
import { type Static, Type } from "typebox";

export const UsageSchema = Type.Object(
  {
    input: Type.Number(),
    output: Type.Number(),
    cacheRead: Type.Number(),
    cacheWrite: Type.Number(),
    totalTokens: Type.Number(),
    costUsd: Type.Number({
      description: "USD, from the model's price table; calls of a model with no known price add nothing",
    }),
    unpricedTokens: Type.Optional(
      Type.Number({
        description:
          "tokens of model calls whose price is unknown (a local server, a model the price table lacks): their cost is not in costUsd, so the cost is unknown (all tokens) or partly known",
      }),
    ),
  },
  { $id: "Usage" },
);
export type Usage = Static<typeof UsageSchema>;

/**
 * A count with thousands separators, "12,345" (what toLocaleString("en-US") prints, without
 * loading ICU's number formatting, which costs tens of milliseconds on a process's first call).
 */
export function groupDigits(n: number): string {
  const whole = Math.round(n);
  const digits = String(Math.abs(whole)).replace(/\B(?=(\d{3})+$)/g, ",");
  return whole < 0 ? `-${digits}` : digits;
}

export function emptyUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, costUsd: 0 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  const unpriced = (a.unpricedTokens ?? 0) + (b.unpricedTokens ?? 0);
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    totalTokens: a.totalTokens + b.totalTokens,
    costUsd: a.costUsd + b.costUsd,
    ...(unpriced > 0 ? { unpricedTokens: unpriced } : {}),
  };
}

/** Dollars for people: "$0", "$0.0042", "$1.25". */
export function formatUsd(usd: number): string {
  if (usd === 0) return "$0";
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/**
 * What a usage cost, for people: "$1.25"; "cost unknown" when no call had a known price (never
 * "$0"); "$1.25 + unknown" when some had one and some did not.
 */
export function formatCost(usage: Pick<Usage, "costUsd" | "totalTokens" | "unpricedTokens">): string {
  const known = costKnown(usage);
  if (known === "none") return "cost unknown";
  return known === "part" ? `${formatUsd(usage.costUsd)} + unknown` : formatUsd(usage.costUsd);
}

/** How much of a usage's cost is known: all of it, none (no call had a price), or part. */
export function costKnown(usage: Pick<Usage, "totalTokens" | "unpricedTokens">): "all" | "none" | "part" {
  const unpriced = usage.unpricedTokens ?? 0;
  if (unpriced <= 0) return "all";
  return unpriced >= usage.totalTokens ? "none" : "part";
}

/** Hard limits on what a run may spend; a sub-agent's spending counts against its parent's too. */
export const RunLimitsSchema = Type.Object(
  {
    maxTokens: Type.Optional(
      Type.Number({
        description: "tokens (input, output and cache) over all model calls of the run and its sub-agents",
      }),
    ),
    maxCostUsd: Type.Optional(Type.Number()),
    maxWallMs: Type.Optional(
      Type.Number({
        description: "wall-clock time from the run's start (a resumed run starts counting again)",
      }),
    ),
  },
  { $id: "RunLimits" },
);
export type RunLimits = Static<typeof RunLimitsSchema>;
