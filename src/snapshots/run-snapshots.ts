// The snapshots of one run: a point before its first call that may change the workspace (the
// state before the run: nothing of the run's has changed anything yet), one before and one
// after each such call, and one at its end. A point is written only when the workspace
// differs from the run's previous point, so a step that changed nothing costs no record. The
// "before" point of a call is the "after" of the previous one unless someone else changed
// files meanwhile, which is how those changes are kept apart from the run's own.
import { entryAt, ignoredEntries, planSteeringPutBack, type SteeringCopies } from "./ignored-steering.js";
import { graftPaths } from "./put-back.js";
import { evictOldest } from "./retention.js";
import { applyOps, checkObjects } from "./rewind-apply.js";
import { planRestore } from "./rewind-plan.js";
import type { SnapshotStore } from "./snapshot-store.js";
import { diffTrees } from "./tree-diff.js";
import type { PathChange, PointPhase } from "./types.js";

export interface SnapshotCall {
  id: string;
  name: string;
}

export class RunSnapshots {
  private nextSeq: number;
  /** The tree of this run's latest point (undefined until the first). */
  private last: string | undefined;
  /** The tree before the call in flight. */
  private beforeCall: string | undefined;
  private added = 0;
  /** Steering files inside ignored folders before the call in flight, when it is guarded. */
  private steeringBefore: { folders: string[]; copies: SteeringCopies } | undefined;

  constructor(
    private readonly store: SnapshotStore,
    private readonly runId: string,
  ) {
    // A resumed run goes on numbering after the points its first process wrote.
    const points = store.points(runId);
    this.nextSeq = points.length === 0 ? 0 : points.at(-1)!.seq + 1;
  }

  /** Whether the run has taken its first snapshot yet. */
  get started(): boolean {
    return this.last !== undefined;
  }

  /**
   * Before a call that may change the workspace (the first one also records the run's start).
   * `guardSteering`: the call may not change what steers later runs, so the steering files
   * inside ignored folders, which a snapshot does not open, are copied too (ignored-steering.ts).
   */
  async before(step: number, call: SnapshotCall, guardSteering = false): Promise<void> {
    this.steeringBefore = undefined;
    if (this.last === undefined) this.beforeCall = await this.point(step, "start");
    // Without a watcher every snapshot walks the whole workspace: the state after the previous
    // call stands for the state before this one.
    else this.beforeCall = this.store.watching ? await this.point(step, "before", call) : this.last;
    if (!guardSteering) return;
    const folders = ignoredEntries(this.store.objects, this.beforeCall);
    this.steeringBefore = { folders, copies: this.store.copyIgnoredSteering(folders) };
  }

  /** After such a call: what it changed. */
  async after(step: number, call: SnapshotCall): Promise<PathChange[]> {
    const tree = await this.point(step, "after", call);
    return diffTrees(this.store.objects, this.beforeCall ?? tree, tree);
  }

  /**
   * After such a call, `paths` (relative, as the call's changes name them or a folder above)
   * put back as they were before it; returns what the call changed now. A path reson did not
   * track the content of (ignored, too large, a secret) is left as it is.
   */
  async putBack(step: number, call: SnapshotCall, paths: readonly string[]): Promise<PathChange[]> {
    const before = this.beforeCall;
    const now = this.last;
    if (before === undefined || now === undefined || paths.length === 0) return [];
    const { objects } = this.store;
    const plan = planRestore(objects, now, graftPaths(objects, now, before, paths), undefined);
    applyOps(objects, this.store.root, plan.ops, checkObjects(objects, plan.ops));
    return this.after(step, call);
  }

  /**
   * After a call `before` guarded: the steering files inside ignored folders (those ignored
   * before it or after it) put back as they were before it. Returns the steering units put back
   * and those reson had no copy of, and, when it changed anything, what the call changed now.
   */
  async putBackIgnoredSteering(
    step: number,
    call: SnapshotCall,
  ): Promise<{ putBack: string[]; notPutBack: string[]; changes?: PathChange[] }> {
    const saved = this.steeringBefore;
    this.steeringBefore = undefined;
    const before = this.beforeCall;
    if (!saved || before === undefined || this.last === undefined) return { putBack: [], notPutBack: [] };
    const { objects } = this.store;
    const folders = new Set([...saved.folders, ...ignoredEntries(objects, this.last)]);
    const now = this.store.copyIgnoredSteering(folders);
    const plan = planSteeringPutBack(saved.copies, now, (path) => entryAt(objects, before, path));
    if (plan.ops.length === 0) return { putBack: plan.putBack, notPutBack: plan.notPutBack };
    applyOps(objects, this.store.root, plan.ops, checkObjects(objects, plan.ops));
    return { putBack: plan.putBack, notPutBack: plan.notPutBack, changes: await this.after(step, call) };
  }

  /** At the run's end (or where it stopped): the last point, the index kept, old snapshots evicted. */
  async end(step: number): Promise<void> {
    if (this.last === undefined) return;
    // Written even when nothing changed since the last point: it marks the run's end as complete.
    await this.point(step, "end", undefined, true);
    this.store.saveIndex();
    const facts = this.store.addBytes(this.added);
    this.added = 0;
    if (facts.bytes > this.store.limits.maxBytesPerWorkspace) evictOldest(this.store, this.runId);
  }

  private async point(step: number, phase: PointPhase, call?: SnapshotCall, always = false): Promise<string> {
    const captured = await this.store.capture();
    this.added += captured.addedBytes;
    if (captured.tree === this.last && !always) return captured.tree;
    this.store.appendPoint({
      runId: this.runId,
      seq: this.nextSeq++,
      step,
      phase,
      ...(call ? { toolCallId: call.id, tool: call.name } : {}),
      tree: captured.tree,
      at: Date.now(),
      addedBytes: captured.addedBytes,
    });
    this.last = captured.tree;
    return captured.tree;
  }
}
