// reson gc's part for snapshots: the snapshots of runs no longer in the store go with them,
// in every workspace under $RESON_HOME, and the objects nothing refers to any more.
import { pruneRuns, SnapshotStore } from "../snapshots/index.js";
import type { Store } from "../store/index.js";

export interface SnapshotGcReport {
  runs: number;
  bytesRemoved: number;
}

export async function pruneSnapshots(db: Store, home: string): Promise<SnapshotGcReport> {
  const report: SnapshotGcReport = { runs: 0, bytesRemoved: 0 };
  for (const workspace of SnapshotStore.all(home)) {
    const pruned = await pruneRuns(workspace, async (runId) => (await db.traces.get(runId)) !== undefined);
    report.runs += pruned.runsRemoved;
    report.bytesRemoved += pruned.bytesRemoved;
  }
  return report;
}
