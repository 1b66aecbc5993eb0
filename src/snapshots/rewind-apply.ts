// Carries out a rewind plan on the workspace, through the workspace module's restore
// operations (no symbolic link followed, nothing written outside the root). Every object the
// plan needs is read and checked first, so a damaged snapshot stops the rewind before it
// changes anything; the operations are safe to repeat, which is how a rewind a crash
// interrupted is completed.
import { crashPoint } from "../core/crash-point.js";
import { flushFileSystem, WorkspaceRestorer } from "../workspace/index.js";
import type { ObjectStore } from "./object-store.js";
import type { RestoreOp } from "./rewind-plan.js";

/** Throws snapshot_damaged unless every object the operations read is there and whole. */
export function checkObjects(objects: ObjectStore, ops: readonly RestoreOp[]): void {
  const hashes = new Set(
    ops.filter((op) => op.action === "write" || op.action === "link").map((op) => op.entry!.hash),
  );
  for (const hash of hashes) objects.get(hash);
}

/** Applies the operations in order, then makes the files durable. */
export function applyOps(objects: ObjectStore, root: string, ops: readonly RestoreOp[]): void {
  if (ops.length === 0) return;
  const restorer = new WorkspaceRestorer(root);
  try {
    for (const op of ops) {
      switch (op.action) {
        case "remove":
          restorer.remove(op.path);
          break;
        case "write":
          restorer.writeFile(op.path, objects.get(op.entry!.hash), op.entry!.mode);
          break;
        case "link":
          restorer.symlink(op.path, objects.get(op.entry!.hash).toString("utf8"));
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
