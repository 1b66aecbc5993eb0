// Rewinding a run: the workspace put back as it was before the run (or one of its steps), and
// the conversation with it unless the files alone are asked for; undoing the latest rewind;
// completing a rewind a crash interrupted. Two steps, so every host can show the plan and ask
// before anything changes: prepareRewind works out what would change (and what the user
// changed since reson's last snapshot, which is never overwritten without a yes), applyRewind
// does it under a journal. The CLI, the terminal's /rewind and serve's route share these.

import { crashPoint } from "../core/crash-point.js";
import { ResonError } from "../core/errors.js";
import { ulid } from "../core/ids.js";
import { namedList } from "../core/named-list.js";
import {
  applyOps,
  checkObjects,
  finishRewind,
  type Head,
  journalRewind,
  latestSnapshot,
  mergeTrees,
  pendingRewinds,
  planRestore,
  type RewindPlan,
  type RewindRecord,
  requirePoints,
  rewindRecords,
  type SnapshotStore,
  treeBeforeStep,
} from "../snapshots/index.js";
import type { RewoundTurns, SessionRecord, Store, TraceRecord } from "../store/index.js";
import { assertSessionFree, checkStep, locateRun } from "./run-lookup.js";
import { workspaceSnapshots } from "./step-snapshots.js";

export interface RewindRequest {
  /** Where config and $RESON_HOME come from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** A run or session id (or unique prefix); absent: the latest run in `workspace`. */
  id?: string;
  /** Rewind to before this step of the run (default: before the whole run). */
  toStep?: number;
  /** Keep the conversation; put back the files only. */
  filesOnly?: boolean;
  /** Undo the latest rewind (of `workspace`, or of the workspace of the run `id`). */
  undo?: boolean;
  /** The workspace's real path, when no id names it. */
  workspace?: string;
}

export interface PreparedRewind {
  id: string;
  workspace: string;
  /** The run rewound, or the rewind undone. */
  run?: TraceRecord;
  toStep?: number;
  undoes?: RewindRecord;
  plan: RewindPlan;
  /** The session's rewound turns now and after (absent: the conversation stays as it is). */
  conversation?: { sessionId: string; before: RewoundTurns[]; after: RewoundTurns[] };
  /** Rewinds a crash had interrupted, completed before this one was worked out. */
  completed: string[];
  store: SnapshotStore;
  /**
   * The plan's workspace was read only where these trees (the head, the target) differ:
   * the rewind's record is `partial`, and the workspace is read the same way again before it starts.
   */
  scanned?: Scanned;
}

interface Scanned {
  head: string;
  target: string;
}

export interface RewindResult {
  record: RewindRecord;
  /** Files written, links made, folders made or removed, modes set. */
  operations: number;
}

/** Works out a rewind (nothing changes yet; interrupted rewinds are completed first). */
export async function prepareRewind(db: Store, request: RewindRequest): Promise<PreparedRewind> {
  const located = await locateRun(db, request);
  const { run, workspace } = located;
  if (located.session) await assertSessionFree(db, located.session);
  const store = await workspaceSnapshots(workspace, request.env);
  const completed = await completeInterruptedRewinds(db, store);
  // Read after: a rewind just completed may have changed the session.
  const session = located.session && (await db.sessions.get(located.session.id));
  const id = `rw_${ulid()}`;
  if (request.undo) return prepareUndo(db, store, id, workspace, completed);
  const points = store.points(run!.id);
  requirePoints(points, run!.id);
  checkStep(run!, request.toStep);
  const target = request.toStep === undefined ? points[0]!.tree : treeBeforeStep(points, request.toStep);
  const head = latestSnapshot(store);
  const now = await currentTree(store, head, target);
  const plan = planRestore(store.objects, now.tree, target, head);
  const conversation =
    request.filesOnly || !session || run!.parentTraceId !== null
      ? undefined
      : await conversationChange(db, session, run!, request.toStep, id);
  return {
    id,
    workspace,
    run: run!,
    ...(request.toStep === undefined ? {} : { toStep: request.toStep }),
    plan,
    ...(conversation ? { conversation } : {}),
    completed,
    store,
    ...(now.scanned ? { scanned: now.scanned } : {}),
  };
}

/**
 * The workspace's tree now, as far as a rewind to `target` can tell: read only where the head
 * and the target differ when the head is complete (nothing changed after it but by someone
 * else) and that read can stand for it; else captured (a walk in a new process).
 */
async function currentTree(
  store: SnapshotStore,
  head: Head | undefined,
  target: string,
): Promise<{ tree: string; scanned?: Scanned }> {
  if (head?.complete) {
    const tree = store.scanForRewind(head.tree, target);
    if (tree !== undefined) return { tree, scanned: { head: head.tree, target } };
  }
  return { tree: (await store.capture()).tree };
}

async function prepareUndo(
  db: Store,
  store: SnapshotStore,
  id: string,
  workspace: string,
  completed: string[],
): Promise<PreparedRewind> {
  const last = rewindRecords(store).at(-1);
  if (!last) {
    throw new ResonError("not_found", `Nothing to undo: no rewind was done in ${workspace}.`, {
      hint: "`reson rewind <run>` rewinds a run; `--undo` then puts things back.",
    });
  }
  const head = latestSnapshot(store);
  // A partial record says what the rewind changed only where its before and after differ:
  // those paths go back, everything else stays as reson last saw it.
  const target =
    last.partial && head
      ? mergeTrees(store.objects, head.tree, last.before, last.landed ?? last.after)
      : last.before;
  const now = await currentTree(store, head, target);
  const plan = planRestore(store.objects, now.tree, target, head);
  let conversation: PreparedRewind["conversation"];
  if (last.conversation) {
    const session = await db.sessions.get(last.conversation.sessionId);
    if (session) {
      await assertSessionFree(db, session);
      conversation = {
        sessionId: session.id,
        before: session.settings.rewound ?? [],
        after: last.conversation.before,
      };
    }
  }
  return {
    id,
    workspace,
    undoes: last,
    plan,
    ...(conversation ? { conversation } : {}),
    completed,
    store,
    ...(now.scanned ? { scanned: now.scanned } : {}),
  };
}

/** The turns of the run from `toStep` on (all of them without it), and every later turn, taken out. */
async function conversationChange(
  db: Store,
  session: SessionRecord,
  run: TraceRecord,
  toStep: number | undefined,
  rewindId: string,
): Promise<PreparedRewind["conversation"]> {
  const turns = await db.turns.list(session.id);
  const first = turns.find(
    (turn) => turn.traceId === run.id && (toStep === undefined || (turn.step ?? 0) >= toStep),
  );
  if (!first) return undefined;
  const before = session.settings.rewound ?? [];
  const range = { fromSeq: first.seq, toSeq: (turns.at(-1)?.seq ?? first.seq) + 1, rewindId };
  // Already taken out (by an earlier rewind of the same run): nothing to change.
  if (before.some((taken) => taken.fromSeq <= range.fromSeq && taken.toSeq >= range.toSeq)) return undefined;
  return { sessionId: session.id, before, after: [...before, range] };
}

/**
 * Does a prepared rewind: journaled first, then every file, the conversation, and the record.
 * Refused when someone changed files it would overwrite (unless `force`), or when the
 * workspace changed since it was prepared (the plan shown is no longer the plan).
 */
export async function applyRewind(
  db: Store,
  prepared: PreparedRewind,
  options: { force?: boolean } = {},
): Promise<RewindResult> {
  const { plan, store } = prepared;
  if (plan.conflicts.length > 0 && !options.force) throw conflictError(plan.conflicts);
  const { scanned } = prepared;
  const now = scanned ? store.scanForRewind(scanned.head, scanned.target) : (await store.capture()).tree;
  if (now !== plan.current) {
    throw new ResonError("rewind_conflict", "The workspace changed since this rewind was worked out.", {
      hint: "Run the rewind again to see what it would change now.",
    });
  }
  const checked = checkObjects(store.objects, plan.ops);
  const record: RewindRecord = {
    id: prepared.id,
    at: Date.now(),
    ...(prepared.run ? { runId: prepared.run.id } : {}),
    ...(prepared.toStep === undefined ? {} : { toStep: prepared.toStep }),
    ...(prepared.undoes ? { undoes: prepared.undoes.id } : {}),
    before: plan.current,
    after: plan.target,
    ...(prepared.conversation ? { conversation: prepared.conversation } : {}),
    ...(scanned ? { partial: true as const } : {}),
  };
  journalRewind(store, record);
  crashPoint("rewind-journaled");
  await complete(db, store, record, plan, checked);
  return { record, operations: plan.ops.length };
}

/** Rewinds a crash interrupted, completed (they were asked for and confirmed); their ids. */
export async function completeInterruptedRewinds(
  db: Store | undefined,
  store: SnapshotStore,
): Promise<string[]> {
  const done: string[] = [];
  for (const record of pendingRewinds(store)) {
    const now = await store.capture();
    // A partial record's trees are the head's beyond the paths it changes: only those are put back.
    const since = record.partial ? { tree: record.before, complete: true } : undefined;
    await complete(db, store, record, planRestore(store.objects, now.tree, record.after, since));
    done.push(record.id);
  }
  return done;
}

async function complete(
  db: Store | undefined,
  store: SnapshotStore,
  record: RewindRecord,
  plan: RewindPlan,
  checked?: ReadonlyMap<string, Buffer>,
): Promise<void> {
  applyOps(store.objects, store.root, plan.ops, checked);
  if (record.conversation && db)
    await setRewound(db, record.conversation.sessionId, record.conversation.after);
  // A partial rewind landed on its `after` (every path it changes is as planned now).
  finishRewind(store, record, record.partial ? record.after : (await store.capture()).tree);
}

async function setRewound(db: Store, sessionId: string, rewound: RewoundTurns[]): Promise<void> {
  const session = await db.sessions.get(sessionId);
  if (!session) return;
  const { rewound: _old, ...settings } = session.settings;
  await db.apply([
    {
      op: "updateSession",
      id: sessionId,
      patch: { settings: rewound.length > 0 ? { ...settings, rewound } : settings, updatedAt: Date.now() },
    },
  ]);
}

export function conflictError(paths: readonly string[]): ResonError {
  return new ResonError(
    "rewind_conflict",
    `The rewind would overwrite changes made since reson's last snapshot: ${namedList(paths, 10)}.`,
    {
      hint: "Look at them first (`reson diff`), save what you want to keep, then rewind with --force to overwrite them.",
      details: { paths: [...paths] },
    },
  );
}
