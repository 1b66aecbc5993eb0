// The content-addressed objects of one workspace's snapshots: file contents (blobs) and
// folder listings (trees), each stored once under objects/<2 hex>/<62 hex> of its SHA-256.
// An object is written to a temporary file and renamed into place, so a crash leaves either
// the whole object or none (plus a temporary file the sweep removes). Reads check the hash:
// a damaged object is an error, never restored content.
import { hash as digest, randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { ResonError } from "../core/errors.js";
import type { EntryKind, ExcludedReason, TreeEntry } from "./types.js";

/** The object name of `bytes` (one-shot: no Hash object per object, which a walk makes 500 of). */
export function sha256(bytes: Uint8Array): string {
  return digest("sha256", bytes, "hex");
}

const KIND_CODES: Record<EntryKind, string> = { file: "f", dir: "d", link: "l", excluded: "x" };
const CODE_KINDS: Record<string, EntryKind> = { f: "file", d: "dir", l: "link", x: "excluded" };

type EncodedEntry =
  | [string, number, string, number, string]
  | [string, number, string, number, string, string];

function byName(a: TreeEntry, b: TreeEntry): number {
  if (a.name < b.name) return -1;
  return a.name > b.name ? 1 : 0;
}

/** A tree's bytes: its entries (sorted by name) as JSON (names may hold any byte but / and NUL). */
function encodeTree(sorted: readonly TreeEntry[]): Buffer {
  const rows: EncodedEntry[] = sorted.map((entry) =>
    entry.reason
      ? [KIND_CODES[entry.kind], entry.mode, entry.hash, entry.size, entry.name, entry.reason]
      : [KIND_CODES[entry.kind], entry.mode, entry.hash, entry.size, entry.name],
  );
  return Buffer.from(JSON.stringify(rows));
}

function decodeTree(bytes: Buffer, hash: string): TreeEntry[] {
  let rows: unknown;
  try {
    rows = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw damaged(hash);
  }
  if (!Array.isArray(rows)) throw damaged(hash);
  return rows.map((row) => {
    const [code, mode, entryHash, size, name, reason] = row as EncodedEntry;
    const kind = CODE_KINDS[code];
    if (!kind || typeof name !== "string") throw damaged(hash);
    return {
      name,
      kind,
      mode,
      hash: entryHash,
      size,
      ...(reason ? { reason: reason as ExcludedReason } : {}),
    };
  });
}

function damaged(hash: string): ResonError {
  return new ResonError(
    "snapshot_damaged",
    `The snapshot object ${hash.slice(0, 12)} is missing or damaged.`,
    {
      hint: "That snapshot cannot be restored; an older or newer one may still be (see `reson diff`).",
    },
  );
}

const TREE_CACHE_LIMIT = 4096;
/**
 * An object this process stored or found is taken as there, without a look, for this long: a
 * sweep removes only objects untouched for an hour (SWEEP_GRACE_MS), and one that ran
 * meanwhile in another process makes the caller forget them all (forgetDirs).
 */
const KNOWN_FOR_MS = 20 * 60 * 1000;
const KNOWN_LIMIT = 200_000;

export class ObjectStore {
  /** Trees read lately, by hash (immutable, so safe to share). */
  private readonly trees = new Map<string, TreeEntry[]>();
  private madeDirs = new Set<string>();
  /** Objects known to be in the store, with when they were last written, touched or vouched for. */
  private known = new Map<string, number>();
  /** Temporary names: unique per process without asking for random bytes every time. */
  private readonly tempPrefix = `tmp-${process.pid}-${randomBytes(4).toString("hex")}-`;
  private tempCount = 0;

  constructor(readonly dir: string) {}

  path(hash: string): string {
    return join(this.dir, hash.slice(0, 2), hash.slice(2));
  }

  has(hash: string): boolean {
    return existsSync(this.path(hash));
  }

  /**
   * Stores `bytes` unless an object with its hash is there (then only marks it as used now, so
   * a sweep running meanwhile keeps it); returns the hash and how many bytes were written.
   */
  put(bytes: Uint8Array, knownHash?: string): { hash: string; added: number } {
    const hash = knownHash ?? sha256(bytes);
    const nowMs = Date.now();
    const knownAt = this.known.get(hash);
    if (knownAt !== undefined && nowMs - knownAt < KNOWN_FOR_MS) return { hash, added: 0 };
    const target = this.path(hash);
    if (existsSync(target)) {
      const now = new Date(nowMs);
      try {
        utimesSync(target, now, now);
        this.remembered(hash, nowMs);
        return { hash, added: 0 };
      } catch {
        // swept in between: written again below
      }
    }
    const shard = join(this.dir, hash.slice(0, 2));
    if (!this.madeDirs.has(shard)) {
      mkdirSync(shard, { recursive: true });
      this.madeDirs.add(shard);
    }
    const temp = join(this.dir, `${this.tempPrefix}${this.tempCount++}`);
    const fd = openSync(temp, "wx", 0o600);
    try {
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    } catch (error) {
      closeSync(fd);
      unlinkSync(temp);
      throw error;
    }
    closeSync(fd);
    renameSync(temp, target);
    this.remembered(hash, nowMs);
    return { hash, added: bytes.length };
  }

  /**
   * Objects a saved index names, known to be here as of `at` (no sweep since): the first put
   * of each looks no further.
   */
  vouch(hashes: Iterable<string>, at: number): void {
    for (const hash of hashes) if (!this.known.has(hash)) this.remembered(hash, at);
  }

  private remembered(hash: string, at: number): void {
    // A long-lived process (serve) starts over now and then rather than grow without end.
    if (this.known.size >= KNOWN_LIMIT) this.known = new Map();
    this.known.set(hash, at);
  }

  /** An object's bytes, checked against its hash. */
  get(hash: string): Buffer {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.path(hash));
    } catch {
      throw damaged(hash);
    }
    if (sha256(bytes) !== hash) throw damaged(hash);
    return bytes;
  }

  /** Stores a folder's tree; `owned`: the caller hands the array over (sorted in place, not copied). */
  putTree(entries: TreeEntry[] | readonly TreeEntry[], owned = false): { hash: string; added: number } {
    const sorted = owned ? (entries as TreeEntry[]).sort(byName) : [...entries].sort(byName);
    const stored = this.put(encodeTree(sorted));
    if (!this.trees.has(stored.hash)) this.remember(stored.hash, sorted);
    return stored;
  }

  tree(hash: string): TreeEntry[] {
    const cached = this.trees.get(hash);
    if (cached) return cached;
    const entries = decodeTree(this.get(hash), hash);
    this.remember(hash, entries);
    return entries;
  }

  /** Forgets what it knows of the folders and objects on disk (after a sweep removed some). */
  forgetDirs(): void {
    this.madeDirs = new Set();
    this.known = new Map();
  }

  private remember(hash: string, entries: TreeEntry[]): void {
    if (this.trees.size >= TREE_CACHE_LIMIT) this.trees.delete(this.trees.keys().next().value!);
    this.trees.set(hash, entries);
  }
}
