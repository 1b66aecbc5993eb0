// How snapshots go: with their runs (reson gc removes the runs, then the snapshots of runs
// that are no longer in the store), and when a workspace's snapshots pass its size cap, the
// oldest runs' first, never the latest run's. Objects are removed by a sweep: everything no
// point, rewind or journal reaches, and that was not written or reused in the last hour
// (a snapshot in flight in another process has written objects that nothing names yet).
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { pendingRewinds, rewindRecords } from "./rewind-records.js";
import type { SnapshotStore } from "./snapshot-store.js";

/** Unreferenced objects younger than this are kept: a snapshot in flight may be about to name them. */
const SWEEP_GRACE_MS = 60 * 60 * 1000;

export interface SweepReport {
  objectsRemoved: number;
  bytesRemoved: number;
  bytesKept: number;
}

export interface PruneReport extends SweepReport {
  runsRemoved: number;
}

/** Removes the snapshots of runs `keep` says no to (their runs are gone), then sweeps. */
export async function pruneRuns(
  store: SnapshotStore,
  keep: (runId: string) => Promise<boolean>,
  now = Date.now(),
): Promise<PruneReport> {
  let runsRemoved = 0;
  for (const runId of store.runIds()) {
    if (await keep(runId)) continue;
    store.removeRun(runId);
    runsRemoved++;
  }
  if (runsRemoved === 0)
    return { runsRemoved, objectsRemoved: 0, bytesRemoved: 0, bytesKept: store.facts().bytes };
  dropOrphanRewinds(store);
  return { runsRemoved, ...sweep(store, now) };
}

/**
 * Evicts the oldest runs' snapshots until the workspace is under its cap (by the bytes each
 * run's points added), keeping the latest run and `keepRunId`; then sweeps.
 */
export function evictOldest(store: SnapshotStore, keepRunId: string, now = Date.now()): SweepReport {
  const cap = store.limits.maxBytesPerWorkspace;
  const runs = store.runIds().map((runId) => {
    const points = store.points(runId);
    return {
      runId,
      lastAt: points.at(-1)?.at ?? 0,
      bytes: points.reduce((sum, point) => sum + point.addedBytes, 0),
    };
  });
  runs.sort((a, b) => a.lastAt - b.lastAt);
  const latest = runs.at(-1)?.runId;
  let estimate = store.facts().bytes;
  for (const run of runs) {
    if (estimate <= cap) break;
    if (run.runId === latest || run.runId === keepRunId) continue;
    store.removeRun(run.runId);
    estimate -= run.bytes;
  }
  dropOrphanRewinds(store);
  return sweep(store, now);
}

/** Rewind records of runs whose snapshots are gone, except the latest rewind (it can still be undone). */
function dropOrphanRewinds(store: SnapshotStore): void {
  const runs = new Set(store.runIds());
  const records = rewindRecords(store);
  const latest = records.at(-1)?.id;
  for (const record of records) {
    if (record.id === latest || record.runId === undefined || runs.has(record.runId)) continue;
    rmSync(store.path("rewinds", `${record.id}.json`), { force: true });
  }
}

/** Every tree and blob reachable from what the store still names. */
function reachable(store: SnapshotStore): Set<string> {
  const roots = new Set<string>();
  for (const runId of store.runIds()) for (const point of store.points(runId)) roots.add(point.tree);
  for (const record of [...rewindRecords(store), ...pendingRewinds(store)]) {
    roots.add(record.before);
    roots.add(record.after);
    if (record.landed) roots.add(record.landed);
  }
  const live = store.liveTree;
  if (live) roots.add(live);
  const seen = new Set<string>();
  const trees = [...roots];
  while (trees.length > 0) {
    const tree = trees.pop()!;
    if (seen.has(tree)) continue;
    seen.add(tree);
    let entries: ReturnType<SnapshotStore["objects"]["tree"]>;
    try {
      entries = store.objects.tree(tree);
    } catch {
      continue; // already damaged or gone: nothing below it to keep
    }
    for (const entry of entries) {
      if (entry.kind === "dir") trees.push(entry.hash);
      else if (entry.kind === "file" || entry.kind === "link") seen.add(entry.hash);
    }
  }
  return seen;
}

/** Removes the objects nothing reaches (and temporary files) older than the grace period. */
export function sweep(store: SnapshotStore, now = Date.now()): SweepReport {
  const keep = reachable(store);
  const objects = store.objects.dir;
  const report: SweepReport = { objectsRemoved: 0, bytesRemoved: 0, bytesKept: 0 };
  for (const shard of readdirSync(objects)) {
    const shardPath = join(objects, shard);
    if (shard.startsWith("tmp-")) {
      removeIfOld(shardPath, now, report);
      continue;
    }
    for (const name of readdirSafe(shardPath)) {
      const path = join(shardPath, name);
      if (keep.has(shard + name)) {
        report.bytesKept += sizeOf(path);
        continue;
      }
      if (!removeIfOld(path, now, report)) report.bytesKept += sizeOf(path);
    }
  }
  // Sentinels of processes that died without removing theirs (a live one touches its own).
  for (const name of readdirSafe(store.path("sentinel")))
    removeIfOld(join(store.path("sentinel"), name), now, {
      objectsRemoved: 0,
      bytesRemoved: 0,
      bytesKept: 0,
    });
  store.objects.forgetDirs();
  store.swept(now, report.bytesKept);
  return report;
}

function readdirSafe(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function removeIfOld(path: string, now: number, report: SweepReport): boolean {
  try {
    const stats = statSync(path);
    if (now - stats.mtimeMs < SWEEP_GRACE_MS) return false;
    rmSync(path, { force: true });
    report.objectsRemoved++;
    report.bytesRemoved += stats.size;
    return true;
  } catch {
    return false;
  }
}
