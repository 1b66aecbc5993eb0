// The saved index of a workspace: every tracked file's stat facts and content hash, and the
// folder trees, as the processes that snapshotted it knew them, so the next process hashes
// only files changed since and stores no tree it already has. It is a base file
// (index.json, written whole now and then) and a journal (index-delta.jsonl) to which every
// run appends, at its end, only what it hashed: one short line instead of the whole index.
// It is a cache: lost, damaged or stale, it costs time, never correctness (facts that differ
// mean hashing again). Whatever was saved before a sweep is void, since the objects its
// hashes name may be gone.
import { appendFileSync, readFileSync, rmSync, statSync } from "node:fs";
import { writeFileAtomicSync } from "../core/atomic-write.js";
import type { SeedEntry } from "./workspace-model.js";

/** One file's or link's facts in a v1/v2 part: a row of its own. */
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

/** Values per file in a v3 part's `flat`: a Row's, one after another in one array. */
const FLAT_WIDTH = 8;

/**
 * The base file, and each line of the journal. v3 writes the rows as one flat array (a new
 * process parses one array instead of one per file: fewer objects made, less to collect);
 * v1/v2 (nested rows) are still read.
 */
interface IndexPart {
  v: 1 | 2 | 3;
  savedAt: number;
  rows?: Row[];
  flat?: Array<string | number>;
  /** Tree objects known to be in the store. */
  trees?: string[];
}

export interface IndexFiles {
  base: string;
  journal: string;
}

/** What a saved index knows: files' hashes by path, and trees in the store. */
export interface SavedIndex {
  files: Map<string, SeedEntry>;
  trees: Set<string>;
  /** When its newest part was saved. */
  savedAt: number;
}

/** The journal is folded into the base once it is this large against it (and past a floor). */
const JOURNAL_FLOOR_BYTES = 256 * 1024;

function flatOf(entries: Iterable<[string, SeedEntry]>): Array<string | number> {
  const flat: Array<string | number> = [];
  for (const [file, node] of entries)
    flat.push(
      file,
      node.kind === "file" ? "f" : "l",
      node.size,
      node.mtimeMs,
      node.ctimeMs,
      node.ino,
      node.mode,
      node.hash,
    );
  return flat;
}

/** Writes the whole index as the base and empties the journal. */
export function saveIndex(
  files: IndexFiles,
  entries: Iterable<[string, SeedEntry]>,
  trees: Iterable<string>,
): void {
  const index: IndexPart = { v: 3, savedAt: Date.now(), flat: flatOf(entries), trees: [...trees] };
  writeFileAtomicSync(files.base, JSON.stringify(index), { sync: false });
  // A crash before this leaves journal lines older than the base: loading skips them.
  rmSync(files.journal, { force: true });
}

/**
 * Appends what changed since the last save to the journal; false when the journal has grown
 * large enough against the base that the caller should save the whole index instead.
 */
export function appendIndex(
  files: IndexFiles,
  entries: Iterable<[string, SeedEntry]>,
  trees: Iterable<string>,
): boolean {
  if (journalTooLarge(files)) return false;
  const part: IndexPart = { v: 3, savedAt: Date.now(), flat: flatOf(entries), trees: [...trees] };
  appendFileSync(files.journal, `${JSON.stringify(part)}\n`);
  return true;
}

function journalTooLarge(files: IndexFiles): boolean {
  const size = (path: string) => {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  };
  const journal = size(files.journal);
  return journal > JOURNAL_FLOOR_BYTES && journal > size(files.base) / 2;
}

function parsePart(text: string): IndexPart | undefined {
  try {
    const part = JSON.parse(text) as IndexPart;
    if (typeof part.savedAt !== "number") return undefined;
    if (part.v === 3)
      return Array.isArray(part.flat) && part.flat.length % FLAT_WIDTH === 0 ? part : undefined;
    if ((part.v !== 1 && part.v !== 2) || !Array.isArray(part.rows)) return undefined;
    return part;
  } catch {
    return undefined;
  }
}

/** The saved index, or undefined when none is usable (none, damaged, every part older than `validAfter`). */
export function loadIndex(files: IndexFiles, validAfter: number): SavedIndex | undefined {
  const parts: IndexPart[] = [];
  let baseSavedAt = -1;
  try {
    const base = parsePart(readFileSync(files.base, "utf8"));
    if (base && base.savedAt > validAfter) {
      parts.push(base);
      baseSavedAt = base.savedAt;
    }
  } catch {
    // no base yet
  }
  try {
    for (const line of readFileSync(files.journal, "utf8").split("\n")) {
      if (!line) continue;
      // A line cut short by a crash does not parse and is skipped.
      const part = parsePart(line);
      if (part && part.savedAt > validAfter && part.savedAt > baseSavedAt) parts.push(part);
    }
  } catch {
    // no journal
  }
  if (parts.length === 0) return undefined;
  const index: SavedIndex = { files: new Map(), trees: new Set(), savedAt: 0 };
  for (const part of parts) {
    if (part.flat) addFlat(index.files, part.flat);
    for (const [file, kind, size, mtimeMs, ctimeMs, ino, mode, hash] of part.rows ?? [])
      index.files.set(file, seedOf(kind, size, mtimeMs, ctimeMs, ino, mode, hash));
    for (const tree of part.trees ?? []) index.trees.add(tree);
    index.savedAt = Math.max(index.savedAt, part.savedAt);
  }
  return index;
}

function addFlat(files: Map<string, SeedEntry>, flat: ReadonlyArray<string | number>): void {
  for (let at = 0; at + FLAT_WIDTH <= flat.length; at += FLAT_WIDTH)
    files.set(
      flat[at] as string,
      seedOf(
        flat[at + 1] as Row[1],
        flat[at + 2] as number,
        flat[at + 3] as number,
        flat[at + 4] as number,
        flat[at + 5] as number,
        flat[at + 6] as number,
        flat[at + 7] as string,
      ),
    );
}

/** A saved row as the model's node (same property order everywhere: one object shape). */
function seedOf(
  kind: Row[1],
  size: number,
  mtimeMs: number,
  ctimeMs: number,
  ino: number,
  mode: number,
  hash: string,
): SeedEntry {
  return { kind: kind === "f" ? "file" : "link", hash, size, mtimeMs, ctimeMs, ino, mode };
}
