// When a workspace's files may be deleted. Unregistering never touches files; deleting them is
// a separate, explicit ask, and even then never a folder that holds more than a workspace:
// `/`, a system folder, the home folder or a folder above it, reson's own folder or the
// folder of all workspaces.

import { join } from "node:path";
import { ResonError } from "../core/errors.js";
import { isWithin } from "../core/path-within.js";
import type { WorkspaceRecord } from "../store/index.js";
import { realPathOf, WORKSPACES_DIR, workspaceRootRisk } from "../workspace/index.js";

export interface DeletionPlaces {
  home: string;
  resonHome: string;
}

/** Why `workspace`'s folder must not be deleted, or undefined when it may be. */
export function deletionRefusal(workspace: WorkspaceRecord, places: DeletionPlaces): string | undefined {
  const root = realPathOf(workspace.path);
  const resonHome = realPathOf(places.resonHome);
  const workspaces = join(resonHome, WORKSPACES_DIR);
  if (root === workspaces) return "it is the folder of all workspaces";
  const risk = workspaceRootRisk(root, places);
  if (risk.kind !== "none") return risk.reason;
  // Not reached through the risk above when reson's folder sits under a symlinked name.
  if (isWithin(resonHome, root)) return "it holds reson's own folder";
  return undefined;
}

export function assertDeletable(workspace: WorkspaceRecord, places: DeletionPlaces): void {
  const reason = deletionRefusal(workspace, places);
  if (!reason) return;
  throw new ResonError("workspace_refused", `reson will not delete ${workspace.path}: ${reason}.`, {
    hint: `Unregister it without --delete-files, and delete what you mean to by hand.`,
    details: { path: workspace.path },
  });
}
