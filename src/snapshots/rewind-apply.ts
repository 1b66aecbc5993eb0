// Carries out a rewind plan on the workspace, through the workspace module's restore
// operations (no symbolic link followed, nothing written outside the root). Every object the
// plan needs is read and checked first, so a damaged snapshot stops the rewind before it
// changes anything; the operations are safe to repeat, which is how a rewind a crash
// interrupted is completed. The objects checked are kept for the restore (read and hashed once).
import { crashPoint } from "../core/crash-point.js";
import { flushFileSystem, WorkspaceRestorer } from "../workspace/index.js";
import type { ObjectStore } from "./object-store.js";
import type { RestoreOp } from "./rewind-plan.js";

/** Objects checked and kept for the restore, up to this many bytes (the rest is read again). */
const KEPT_BYTES = 64 * 1024 * 1024;

/**
 * Throws snapshot_damaged unless every object the operations read is there and whole; returns
 * the bytes read (as far as KEPT_BYTES), so the restore does not read and hash them again.
 */
export function checkObjects(objects: ObjectStore, ops: readonly RestoreOp[]): Map<string, Buffer> {
  const hashes = new Set(
    ops.filter((op) => op.action === "write" || op.action === "link").map((op) => op.entry!.hash),
  );
  const kept = new Map<string, Buffer>();
  let keptBytes = 0;
  for (const hash of hashes) {
    const bytes = objects.get(hash);
    if (keptBytes + bytes.length > KEPT_BYTES) continue;
    kept.set(hash, bytes);
    keptBytes += bytes.length;
  }
  return kept;
}

/**
 * Applies the operations in order, then makes the files durable. `checked`: objects already
 * read and checked (checkObjects), taken from there instead of the store.
 */
export function applyOps(
  objects: ObjectStore,
  root: string,
  ops: readonly RestoreOp[],
  checked: ReadonlyMap<string, Buffer> = new Map(),
): void {
  if (ops.length === 0) return;
  const bytesOf = (hash: string) => checked.get(hash) ?? objects.get(hash);
  const restorer = new WorkspaceRestorer(root);
  try {
    for (const op of ops) {
      switch (op.action) {
        case "remove":
          restorer.remove(op.path);
          break;
        case "write":
          restorer.writeFile(op.path, bytesOf(op.entry!.hash), op.entry!.mode, op.missing === true);
          break;
        case "link":
          restorer.symlink(op.path, bytesOf(op.entry!.hash).toString("utf8"));
          break;
        case "mkdir":
          restorer.makeFolder(op.path);
          break;
        case "mode":
          restorer.setMode(op.path, op.entry!.mode);
          break;
      }
      crashPoint("rewind-op");
    }
  } finally {
    restorer.close();
  }
  flushFileSystem(root);
}
