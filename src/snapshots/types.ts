// The data of workspace snapshots: a snapshot is a tree of folders, files and links, each
// folder a content-addressed list of entries; what a snapshot leaves out is listed in it as
// an "excluded" entry with the reason, so a diff or a rewind can say "not tracked".

export type EntryKind = "file" | "dir" | "link" | "excluded";

export type ExcludedReason =
  /** By .gitignore / .ignore / .rgignore, or by config snapshots.exclude. */
  | "ignored"
  /** Larger than snapshots.maxFileBytes. */
  | "too_large"
  /** A .git folder: the user's own repository is never read or written. */
  | "git"
  /** reson's own folder ($RESON_HOME) inside the workspace. */
  | "reson_home"
  /** Another file system mounted here. */
  | "other_mount"
  /** A FIFO, socket or device. */
  | "special"
  /** Could not be read (permissions), or changed into something else while being read. */
  | "unreadable"
  /** Holds the value of one of the user's secrets: never copied into the snapshot store. */
  | "secret"
  /** Its name is not UTF-8, which snapshots (whose paths are text) cannot name. */
  | "name_not_utf8";

export interface TreeEntry {
  name: string;
  kind: EntryKind;
  /** Permission bits (files, folders); 0 for links and excluded entries. */
  mode: number;
  /** A file's or link's blob, a folder's tree; "" for an excluded entry. */
  hash: string;
  /** A file's bytes (and an excluded file's, when known); else 0. */
  size: number;
  reason?: ExcludedReason;
}

/** Config `snapshots`, as the snapshot store uses it. */
export interface SnapshotSettings {
  /** Files larger than this are left out (listed as too_large). */
  maxFileBytes: number;
  /** Extra gitignore-style patterns, read after the workspace root's ignore files. */
  exclude: readonly string[];
  /** Past this, the oldest runs' snapshots are evicted (never the latest run's). */
  maxBytesPerWorkspace: number;
}

export const DEFAULT_SNAPSHOT_SETTINGS: SnapshotSettings = {
  maxFileBytes: 10 * 1024 * 1024,
  exclude: [],
  maxBytesPerWorkspace: 2 * 1024 * 1024 * 1024,
};

/**
 * When a snapshot of a run was taken: at its start (or resume), before and after a call that
 * may change the workspace, at its end.
 */
export type PointPhase = "start" | "before" | "after" | "end";

/** One snapshot of a run, as its points file lists it. */
export interface SnapshotPoint {
  runId: string;
  /** Order within the run (across resumes). */
  seq: number;
  /** The run's step (model call) it belongs to; 0 before the first. */
  step: number;
  phase: PointPhase;
  toolCallId?: string;
  tool?: string;
  /** The root tree. */
  tree: string;
  /** Epoch ms. */
  at: number;
  /** Bytes of objects this snapshot added to the store. */
  addedBytes: number;
}

export type ChangeKind = "added" | "modified" | "deleted" | "mode" | "type";

/** A path that differs between two snapshots (or a snapshot and the folder now). */
export interface PathChange {
  path: string;
  change: ChangeKind;
  before?: TreeEntry;
  after?: TreeEntry;
}

/** What one capture found, for the caller (the event a call's changes become). */
export interface CaptureResult {
  tree: string;
  addedBytes: number;
  /** "watch": only what the file-system watcher reported was looked at; "walk": every path. */
  mode: "watch" | "walk";
  /** Files (and links) read and hashed for it: those whose facts did not vouch for a known hash. */
  hashed: number;
}
