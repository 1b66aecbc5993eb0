// What a run (or one of its steps) changed in its workspace, from its snapshots: the changes
// path by path and, for people, as a unified diff. reson diff, the trace and serve's diff
// route share it.
import {
  diffRange,
  diffTrees,
  type PathChange,
  requirePoints,
  type SnapshotStore,
} from "../snapshots/index.js";
import type { Store, TraceRecord } from "../store/index.js";
import { checkStep, locateRun } from "./run-lookup.js";
import { workspaceSnapshots } from "./step-snapshots.js";

export interface RunDiff {
  run: TraceRecord;
  workspace: string;
  step?: number;
  changes: PathChange[];
  store: SnapshotStore;
}

export async function runDiff(
  db: Store,
  request: { env?: NodeJS.ProcessEnv; id?: string; workspace?: string; step?: number },
): Promise<RunDiff> {
  const { run, workspace } = await locateRun(db, request);
  const store = await workspaceSnapshots(workspace, request.env);
  const points = store.points(run!.id);
  requirePoints(points, run!.id);
  checkStep(run!, request.step);
  const { from, to } = diffRange(points, request.step);
  return {
    run: run!,
    workspace,
    ...(request.step === undefined ? {} : { step: request.step }),
    changes: diffTrees(store.objects, from, to),
    store,
  };
}
