// What a workspace's own settings files (.reson/settings.json, .reson/settings.local.json) may
// grant: a cloned repository ships them, so their allow rules and a mode that asks less
// (acceptEdits, bypass) apply only once the user approved them, rule by rule, on this machine.
// The approvals live in $RESON_HOME (0600), by the workspace's real path: no workspace file can
// approve itself. Deny and ask rules, and modes that ask more, always apply.
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../core/atomic-write.js";
import { ResonError } from "../core/errors.js";
import type { PermissionMode } from "./types.js";

export const PROJECT_GRANTS_FILE = "approved-project-permissions.json";

/** Modes a workspace file may not set unapproved: each lets calls through that `default` asks about. */
export const WIDENING_MODES: readonly PermissionMode[] = ["acceptEdits", "bypass"];

/** What the user approved for one workspace. */
export interface ProjectGrants {
  allow: string[];
  modes: string[];
}

type GrantsFile = Record<string, ProjectGrants & { approvedAt?: string }>;

export function projectGrantsPath(home: string): string {
  return join(home, PROJECT_GRANTS_FILE);
}

function readGrantsFile(home: string): GrantsFile {
  const file = projectGrantsPath(home);
  let text: string;
  try {
    // Read at start with the settings themselves (a small file, usually absent).
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as { workspaces?: unknown };
    if (
      typeof parsed.workspaces === "object" &&
      parsed.workspaces !== null &&
      !Array.isArray(parsed.workspaces)
    )
      return parsed.workspaces as GrantsFile;
  } catch {
    // said below
  }
  throw new ResonError("config_invalid", `${file} is not a valid list of approved project permissions.`, {
    hint: "Delete it: every project's allow rules and modes are then held until you approve them again (`reson permissions approve`).",
    details: { file },
  });
}

/** One workspace's entry of the file, with anything but strings left out. */
function grantsOf(file: GrantsFile, realRoot: string): ProjectGrants {
  const entry = file[realRoot];
  return {
    allow: Array.isArray(entry?.allow) ? entry.allow.filter((r) => typeof r === "string") : [],
    modes: Array.isArray(entry?.modes) ? entry.modes.filter((m) => typeof m === "string") : [],
  };
}

/** What the user approved for the workspace at `realRoot`. */
export function projectGrants(home: string, realRoot: string): ProjectGrants {
  return grantsOf(readGrantsFile(home), realRoot);
}

/** Adds `grant` to what the user approved for the workspace at `realRoot`. */
export async function grantProject(
  home: string,
  realRoot: string,
  grant: Partial<ProjectGrants>,
  now = new Date(),
): Promise<void> {
  const all = readGrantsFile(home);
  const before = grantsOf(all, realRoot);
  all[realRoot] = {
    allow: [...new Set([...before.allow, ...(grant.allow ?? [])])],
    modes: [...new Set([...before.modes, ...(grant.modes ?? [])])],
    approvedAt: now.toISOString(),
  };
  await mkdir(home, { recursive: true, mode: 0o700 });
  await writeFileAtomic(projectGrantsPath(home), `${JSON.stringify({ workspaces: all }, null, 2)}\n`, {
    mode: 0o600,
  });
}
