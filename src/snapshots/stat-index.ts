// The saved index of a workspace: every tracked file's stat facts and content hash, as the
// last process that snapshotted it knew them, so the next process hashes only files changed
// since. It is a cache: lost or stale, it costs time, never correctness (facts that differ
// mean hashing again). It is void once a sweep ran after it was saved, since the objects its
// hashes name may be gone.
import { readFileSync } from "node:fs";
import { writeFileAtomicSync } from "../core/atomic-write.js";
import type { SeedEntry } from "./workspace-model.js";

type Row = [
  path: string,
  kind: "f" | "l",
  size: number,
  mtimeMs: number,
  ctimeMs: number,
  ino: number,
  mode: number,
  hash: string,
];

interface IndexFile {
  v: 1;
  savedAt: number;
  rows: Row[];
}

export function saveIndex(path: string, entries: Iterable<[string, SeedEntry]>): void {
  const rows: Row[] = [];
  for (const [file, { kind, hash, ...stat }] of entries)
    rows.push([
      file,
      kind === "file" ? "f" : "l",
      stat.size,
      stat.mtimeMs,
      stat.ctimeMs,
      stat.ino,
      stat.mode,
      hash,
    ]);
  const index: IndexFile = { v: 1, savedAt: Date.now(), rows };
  writeFileAtomicSync(path, JSON.stringify(index), { sync: false });
}

/** The saved entries, or undefined when there is no usable index (none, damaged, older than `validAfter`). */
export function loadIndex(path: string, validAfter: number): Map<string, SeedEntry> | undefined {
  let index: IndexFile;
  try {
    index = JSON.parse(readFileSync(path, "utf8")) as IndexFile;
  } catch {
    return undefined;
  }
  if (index.v !== 1 || !Array.isArray(index.rows) || index.savedAt <= validAfter) return undefined;
  const entries = new Map<string, SeedEntry>();
  for (const [file, kind, size, mtimeMs, ctimeMs, ino, mode, hash] of index.rows)
    entries.set(file, {
      kind: kind === "f" ? "file" : "link",
      size,
      mtimeMs,
      ctimeMs,
      ino,
      mode,
      hash,
    });
  return entries;
}
