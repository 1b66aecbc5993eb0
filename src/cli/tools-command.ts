// `reson tools [--json] [-w dir]`: how the tools of this workspace's project have been doing
// (seed 000 §9): calls, success rate, failures by error code, p50/p95 duration, last call,
// and health flags, most-used first (the order the model is offered them in).

import { realpath } from "node:fs/promises";
import { ResonError } from "../core/errors.js";
import { humanDuration } from "../core/human-duration.js";
import { projectKey, type ToolStatsRecord } from "../store/index.js";
import { createBuiltinTools, orderByUse } from "../tools/index.js";
import { EXIT_OK } from "./exit-codes.js";
import { formatAgo, table } from "./format.js";
import { withStore } from "./store-commands.js";
import { workspaceFolderArg } from "./workspace-choice.js";

/** `failing`: at least this share of calls failed… */
export const FAILING_RATE = 0.3;
/** …over at least this many calls. */
export const FAILING_MIN_CALLS = 5;
/** `slow`: p95 above this… */
export const SLOW_P95_MS = 10_000;
/** …or above this for a read-only tool (reading and searching should be quick). */
export const SLOW_READ_ONLY_P95_MS = 2_000;

export type ToolHealthFlag = "failing" | "slow";

/** The health flags of a tool's statistics; `readOnly` when the tool is known to have no side effects. */
export function toolHealth(stats: ToolStatsRecord, readOnly: boolean): ToolHealthFlag[] {
  const flags: ToolHealthFlag[] = [];
  if (stats.calls >= FAILING_MIN_CALLS && stats.failures / stats.calls >= FAILING_RATE) flags.push("failing");
  const limit = readOnly ? SLOW_READ_ONLY_P95_MS : SLOW_P95_MS;
  if (stats.p95Ms !== null && stats.p95Ms > limit) flags.push("slow");
  return flags;
}

/** Error codes, most failures first (ties by name). */
function topCodes(byCode: Record<string, number>): Array<[string, number]> {
  return Object.entries(byCode).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
}

function failuresCell(stats: ToolStatsRecord): string {
  if (stats.failures === 0) return "0";
  const codes = topCodes(stats.failuresByCode);
  if (codes.length === 0) return String(stats.failures);
  const shown = codes.slice(0, 2).map(([code, n]) => `${code} ${n}`);
  if (codes.length > 2) shown.push("…");
  return `${stats.failures} (${shown.join(", ")})`;
}

function okPercent(stats: ToolStatsRecord): string {
  return stats.calls === 0 ? "-" : `${Math.round((stats.successes / stats.calls) * 100)}%`;
}

async function workspaceRoot(dir: string | undefined): Promise<string> {
  const path = await workspaceFolderArg(dir);
  try {
    return await realpath(path);
  } catch {
    throw new ResonError("usage_error", `The workspace ${path} does not exist.`, {
      hint: "Pass an existing folder with -w, or run reson tools inside the workspace.",
    });
  }
}

export function toolsCommand(argv: string[]): Promise<number> {
  const options = { json: { type: "boolean" }, workspace: { type: "string", short: "w" } } as const;
  return withStore(
    argv,
    options,
    async (store, values) => {
      const root = await workspaceRoot(values.workspace as string | undefined);
      const key = projectKey(root);
      const stats = await store.toolStats.list(key);
      const byName = new Map(stats.map((s) => [s.tool, s]));
      const ordered = orderByUse(stats).flatMap((tool) => byName.get(tool) ?? []);
      const readOnly = new Set(createBuiltinTools().flatMap((tool) => (tool.readOnly ? [tool.name] : [])));
      const rows = ordered.map((s) => ({
        ...s,
        okRate: s.calls === 0 ? null : s.successes / s.calls,
        flags: toolHealth(s, readOnly.has(s.tool)),
      }));

      if (values.json) {
        for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
        return EXIT_OK;
      }
      if (rows.length === 0) {
        process.stdout.write(
          `No tool calls recorded for ${root} yet (project ${key.slice(0, 12)}). Data: ${store.location}.\n`,
        );
        return EXIT_OK;
      }
      const lines = [["TOOL", "CALLS", "OK", "FAILURES", "P50", "P95", "LAST CALL", "FLAGS"]];
      for (const row of rows) {
        lines.push([
          row.tool,
          String(row.calls),
          okPercent(row),
          failuresCell(row),
          row.p50Ms === null ? "-" : humanDuration(row.p50Ms),
          row.p95Ms === null ? "-" : humanDuration(row.p95Ms),
          row.lastCallAt === null ? "-" : formatAgo(row.lastCallAt),
          row.flags.join(" "),
        ]);
      }
      process.stdout.write(`${table(lines)}\n`);
      process.stdout.write(
        `\nTools of ${root} (project ${key.slice(0, 12)}), most used first: the order the model is offered them in. ` +
          `p50/p95 over the last calls. failing: ≥ ${FAILING_RATE * 100}% of ≥ ${FAILING_MIN_CALLS} calls failed; ` +
          `slow: p95 over ${humanDuration(SLOW_P95_MS)} (${humanDuration(SLOW_READ_ONLY_P95_MS)} for read-only tools). Data: ${store.location}.\n`,
      );
      return EXIT_OK;
    },
    false,
  );
}
