// Workspace snapshots: what every run changed in its workspace, kept outside it
// ($RESON_HOME/snapshots), content-addressed, so any run or step can be shown (reson diff)
// and undone (reson rewind). Never touches the user's own .git; works in any folder.

export { notTrackedReason, patchText } from "./patch-text.js";
export { evictOldest, type PruneReport, pruneRuns, type SweepReport, sweep } from "./retention.js";
export { applyOps, checkObjects } from "./rewind-apply.js";
export { mergeTrees, planRestore, type RestoreOp, type RewindPlan } from "./rewind-plan.js";
export {
  finishRewind,
  type Head,
  journalRewind,
  latestSnapshot,
  pendingRewinds,
  type RewindRecord,
  rewindRecords,
} from "./rewind-records.js";
export { diffRange, requirePoints, treeBeforeStep } from "./run-points.js";
export { RunSnapshots, type SnapshotCall } from "./run-snapshots.js";
export { SnapshotStore, snapshotsHome, type WorkspaceFacts } from "./snapshot-store.js";
export { diffTrees } from "./tree-diff.js";
export * from "./types.js";
