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
    costUsd: Type.Number({ description: "USD, from the model's price table; 0 when the price is unknown" }),
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
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    totalTokens: a.totalTokens + b.totalTokens,
    costUsd: a.costUsd + b.costUsd,
  };
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
