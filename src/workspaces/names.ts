// What a workspace may be called: short, safe as a folder name under $RESON_HOME/workspaces,
// and never mistaken for an id or a path (so `-w <name>` means one thing).
import { ResonError } from "../core/errors.js";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
/** Ids are "ws_" and a ULID. */
export const WORKSPACE_ID_PREFIX = "ws_";

export function assertWorkspaceName(name: string): string {
  const trimmed = name.trim();
  if (NAME.test(trimmed) && !trimmed.startsWith(WORKSPACE_ID_PREFIX) && !trimmed.includes(".."))
    return trimmed;
  throw new ResonError("usage_error", `${JSON.stringify(name)} is not a workspace name.`, {
    hint: "Use 1 to 63 letters, digits, dots, dashes or underscores, starting with a letter or digit (not ws_, which starts ids).",
  });
}

export function looksLikeWorkspaceId(value: string): boolean {
  return value.startsWith(WORKSPACE_ID_PREFIX) && value.length > WORKSPACE_ID_PREFIX.length;
}
