// A workspace made from one of the user's own templates ($RESON_HOME/templates/<name>/) may
// bring `.reson/settings.json` with allow rules or a mode that asks less. A workspace's own
// settings wait for the user's approval because a cloned repository ships them; a template's
// are the user's own writing, copied by their own command, so what the copied files grant is
// recorded as approved when the workspace is made. Files the folder had already are not.
import { join } from "node:path";
import { grantProject } from "./project-grants.js";
import { loadPermissionSettings, realRoot } from "./settings.js";

const SETTINGS_FILES = [".reson/settings.json", ".reson/settings.local.json"];

/**
 * Approves what the settings files among `copied` (paths relative to `workspaceRoot`, copied
 * from a user template) grant; returns the rules and modes approved.
 */
export async function approveTemplateSettings(
  home: string,
  workspaceRoot: string,
  copied: readonly string[],
): Promise<{ allow: string[]; modes: string[] }> {
  const files = new Set(
    SETTINGS_FILES.filter((file) => copied.includes(file)).map((file) => join(workspaceRoot, file)),
  );
  const approved = { allow: [] as string[], modes: [] as string[] };
  if (files.size === 0) return approved;
  const policy = await loadPermissionSettings({ workspaceRoot, home });
  for (const held of policy.held ?? []) {
    if (!files.has(held.file)) continue;
    approved.allow.push(...held.allow);
    if (held.mode) approved.modes.push(held.mode);
  }
  if (approved.allow.length > 0 || approved.modes.length > 0)
    await grantProject(home, realRoot(workspaceRoot), approved);
  return approved;
}
