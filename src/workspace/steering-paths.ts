// The files and folders whose content steers later runs: instruction files, skill folders,
// .mcp.json and reson's project folder. A fooled model that writes one plants instructions in
// every later run's prompt, so after a run has read untrusted content, changes to them need a
// rule naming them or the user (file tools), and commands cannot make them at all.
// (These are the "steer" kind of the workspace's protected list, issue 27: one list.)
import { existsSync } from "node:fs";
import { basename, join, sep } from "node:path";

/** Files that steer later runs wherever they are (AGENTS.md is read in every folder up to the git root). */
export const STEERING_FILES: readonly string[] = [
  "AGENTS.md",
  "CLAUDE.md",
  "SOUL.md",
  "USER.md",
  ".mcp.json",
];

/** Folders that steer later runs, at any depth: skills (with their core.md) and reson's own. */
export const STEERING_FOLDERS: readonly string[] = [".reson", ".agents/skills", ".claude/skills"];

/** The entry of the lists above that `absPath` is or lies in, as the lists name it; undefined for none. */
export function steeringEntry(absPath: string): string | undefined {
  const segments = absPath.split(sep).filter(Boolean);
  for (const folder of STEERING_FOLDERS) {
    const parts = folder.split("/");
    for (let at = 0; at + parts.length <= segments.length; at++)
      if (parts.every((part, i) => segments[at + i] === part)) return folder;
  }
  const name = basename(absPath);
  return STEERING_FILES.includes(name) ? name : undefined;
}

/**
 * The root-relative paths a command of an untrusted run may not change: every steering entry
 * at the root, and for a folder whose parent does not exist yet (`.claude/skills` without
 * `.claude`) that parent, so that the command cannot make it either.
 */
export function steeringProtection(root: string): string[] {
  const entries = new Set<string>(STEERING_FILES);
  for (const folder of STEERING_FOLDERS) {
    const parts = folder.split("/");
    const missing = parts.findIndex(
      (_, i) => i < parts.length - 1 && !existsSync(join(root, ...parts.slice(0, i + 1))),
    );
    entries.add(missing < 0 ? folder : parts.slice(0, missing + 1).join("/"));
  }
  return [...entries];
}
