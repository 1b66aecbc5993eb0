// The files and folders whose content steers later runs, for the permission check of a run that
// has read untrusted content: the protected list's "steers" entries (instruction files, skill
// folders), matched at any depth for file tools (AGENTS.md is read in every folder up to the git
// root), and .mcp.json and reson's project folder, which the list already protects for everyone.
// Commands get the same entries through the sandbox (CommandOptions.protectedKinds).
import { basename, sep } from "node:path";
import { entriesOfKinds } from "./protected-list.js";

const steers = entriesOfKinds(["steers"]).map((entry) => entry.path);

/** Files that steer later runs wherever they are. */
export const STEERING_FILES: readonly string[] = [
  ...steers.filter((path) => !path.includes("/")),
  ".mcp.json",
];

/** Folders that steer later runs, at any depth: skills (with their core.md) and reson's own. */
export const STEERING_FOLDERS: readonly string[] = [".reson", ...steers.filter((path) => path.includes("/"))];

/** Where `folder` ("/"-separated) first stands whole in `segments`: the index just after it, -1 for nowhere. */
function endOf(folder: string, segments: readonly string[]): number {
  const parts = folder.split("/");
  for (let at = 0; at + parts.length <= segments.length; at++)
    if (parts.every((part, i) => segments[at + i] === part)) return at + parts.length;
  return -1;
}

/** The entry of the lists above that `absPath` is or lies in, as the lists name it; undefined for none. */
export function steeringEntry(absPath: string): string | undefined {
  const segments = absPath.split(sep).filter(Boolean);
  const folder = STEERING_FOLDERS.find((entry) => endOf(entry, segments) !== -1);
  if (folder) return folder;
  const name = basename(absPath);
  return STEERING_FILES.includes(name) ? name : undefined;
}

/**
 * The part of the root-relative `path` ("/"-separated) that steers later runs: the steering
 * folder it lies in (`docs/.claude/skills` for `docs/.claude/skills/x/SKILL.md`) or the
 * steering file it is; undefined for none. What a command in an untrusted run changed there is
 * put back as a whole.
 */
export function steeringUnit(path: string): string | undefined {
  const segments = path.split("/").filter(Boolean);
  // The topmost one: `.reson` holding a `.claude/skills` is put back as `.reson`.
  const ends = STEERING_FOLDERS.map((folder) => endOf(folder, segments)).filter((end) => end !== -1);
  if (ends.length > 0) return segments.slice(0, Math.min(...ends)).join("/");
  return STEERING_FILES.includes(segments.at(-1) ?? "") ? segments.join("/") : undefined;
}
