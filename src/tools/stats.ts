// Per-tool call statistics, kept in memory by the registry (persisting them is a later
// issue): how often each tool ran, how often it failed, and how long it took.
import type { ToolStats } from "./types.js";

export class ToolStatsTable {
  private readonly byTool = new Map<string, ToolStats>();

  /** Starts a row at zero so that `snapshot` lists tools that were never called. */
  add(name: string): void {
    if (!this.byTool.has(name)) {
      this.byTool.set(name, { calls: 0, successes: 0, failures: 0, totalDurationMs: 0 });
    }
  }

  record(name: string, ok: boolean, durationMs: number, at: number): void {
    this.add(name);
    const row = this.byTool.get(name)!;
    row.calls += 1;
    if (ok) row.successes += 1;
    else row.failures += 1;
    row.totalDurationMs += durationMs;
    row.lastCallAt = at;
  }

  /** A copy, safe to keep or change. */
  snapshot(): Record<string, ToolStats> {
    const out: Record<string, ToolStats> = {};
    for (const [name, row] of this.byTool) out[name] = { ...row };
    return out;
  }
}
