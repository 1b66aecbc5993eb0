// Which snapshot of a run stands for which moment: before the run, before a step, after it.
// A run writes a point only when the workspace changed since its previous one, so the state
// before step N is the last point written before that step began (the start if none).
import { ResonError } from "../core/errors.js";
import type { SnapshotPoint } from "./types.js";

/** The tree of the workspace before step `step` of the run (1 = before the run). */
export function treeBeforeStep(points: readonly SnapshotPoint[], step: number): string {
  let tree = points[0]!.tree;
  for (const point of points) if (point.step < step) tree = point.tree;
  return tree;
}

/** The trees a diff of the run (or of its step `step`) goes from and to. */
export function diffRange(points: readonly SnapshotPoint[], step?: number): { from: string; to: string } {
  if (step === undefined) return { from: points[0]!.tree, to: points.at(-1)!.tree };
  // The step's own "before" point, when its first call found changes made by others since:
  // those are not the step's.
  const own = points.find((point) => point.step === step && point.phase === "before");
  return { from: own?.tree ?? treeBeforeStep(points, step), to: treeBeforeStep(points, step + 1) };
}

/** A run's points, or why there are none. */
export function requirePoints(points: readonly SnapshotPoint[], runId: string): void {
  if (points.length > 0) return;
  throw new ResonError("snapshot_missing", `There are no snapshots of run ${runId} on this machine.`, {
    hint:
      "Snapshots are taken where a run executes and kept beside its workspace: run this where the run ran " +
      "(for a worker, on its machine). Runs from before snapshots existed, runs with snapshots.enabled off, " +
      "and runs removed by `reson gc` have none.",
  });
}
