// Rewinds as records: what a rewind restored, from which state, and what it did to the
// conversation, so that it can be undone like anything else. A rewind writes its record to
// the journal (fsynced) before it touches a file, and moves it to rewinds/ once every file is
// in place: a journal entry found later is a rewind a crash interrupted, which the next
// rewind completes (restoring the same tree again is safe to repeat).
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { writeFileAtomicSync } from "../core/atomic-write.js";
import type { RewoundTurns } from "../store/index.js";
import type { SnapshotStore } from "./snapshot-store.js";

export interface RewindRecord {
  id: string;
  /** Epoch ms. */
  at: number;
  /** The run rewound (absent for an undo). */
  runId?: string;
  /** Rewound to before this step of the run (absent: before the whole run). */
  toStep?: number;
  /** The rewind this one undoes. */
  undoes?: string;
  /** The workspace's tree before the rewind: what undoing it restores. */
  before: string;
  /** The tree it restores. */
  after: string;
  /** The session's rewound turns before and after (absent: the conversation was kept). */
  conversation?: { sessionId: string; before: RewoundTurns[]; after: RewoundTurns[] };
  /** The workspace's tree once the rewind was done (what it restored, and what it left alone). */
  landed?: string;
  /**
   * `before`, `after` and `landed` were read only where the rewind could change something
   * (rewind-scan.ts): elsewhere they hold reson's latest snapshot then, not what was on disk.
   * Only where `before` and `after` differ do they say what the rewind did.
   */
  partial?: true;
}

/** The latest snapshot of the workspace, whoever took it: what "unchanged since" compares to. */
export interface Head {
  tree: string;
  at: number;
  runId?: string;
  rewindId?: string;
  /**
   * Taken at the end of a run or of a rewind. Otherwise a run may still have changed files
   * after it (it was killed, or is running), so what differs from it is not surely someone else's.
   */
  complete: boolean;
}

/** Runs whose last snapshot is looked at for the head (concurrent runs in one workspace are few). */
const RECENT_RUNS = 8;

/** The newest of the latest runs' last snapshots and the latest rewind's result. */
export function latestSnapshot(store: SnapshotStore): Head | undefined {
  let head: Head | undefined;
  for (const runId of store.recentRuns(RECENT_RUNS)) {
    const last = store.points(runId).at(-1);
    if (last && (!head || last.at > head.at))
      head = { tree: last.tree, at: last.at, runId, complete: last.phase === "end" };
  }
  const rewind = rewindRecords(store).at(-1);
  if (rewind && (!head || rewind.at > head.at))
    head = { tree: rewind.landed ?? rewind.after, at: rewind.at, rewindId: rewind.id, complete: true };
  return head;
}

function readRecords(store: SnapshotStore, folder: string): RewindRecord[] {
  let names: string[];
  try {
    names = readdirSync(store.path(folder));
  } catch {
    return [];
  }
  const records: RewindRecord[] = [];
  for (const name of names) {
    if (!name.endsWith(".json")) continue;
    try {
      records.push(JSON.parse(readFileSync(store.path(folder, name), "utf8")) as RewindRecord);
    } catch {
      // a temporary file of a write cut short
    }
  }
  return records.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1));
}

/** The rewinds done in this workspace, oldest first. */
export function rewindRecords(store: SnapshotStore): RewindRecord[] {
  return readRecords(store, "rewinds");
}

/** Rewinds started and not finished (a crash), oldest first. */
export function pendingRewinds(store: SnapshotStore): RewindRecord[] {
  return readRecords(store, "journal");
}

/** The intent, on disk for good before any file changes. */
export function journalRewind(store: SnapshotStore, record: RewindRecord): void {
  mkdirSync(store.path("journal"), { recursive: true });
  writeFileAtomicSync(store.path("journal", `${record.id}.json`), JSON.stringify(record));
}

/** Every file is in place (the workspace's tree is now `landed`): the rewind becomes a record, its journal entry goes. */
export function finishRewind(store: SnapshotStore, record: RewindRecord, landed: string): void {
  mkdirSync(store.path("rewinds"), { recursive: true });
  writeFileAtomicSync(store.path("rewinds", `${record.id}.json`), JSON.stringify({ ...record, landed }));
  rmSync(store.path("journal", `${record.id}.json`), { force: true });
}
