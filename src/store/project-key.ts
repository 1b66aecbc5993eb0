// Project-scoped data (sessions, tool statistics, later memory) is keyed by a hash of the
// workspace's real path: stable for a folder, the same however it was reached, and no path
// spelled out in keys that may be shared across a fleet.
import { createHash } from "node:crypto";

/** sha256 hex of the workspace's real path (the caller resolves symlinks first). */
export function projectKey(realWorkspacePath: string): string {
  return createHash("sha256").update(realWorkspacePath).digest("hex");
}
