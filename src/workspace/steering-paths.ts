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
 * The part of the root-relative `path` ("/"-separated) that steers later runs: the steering
 * folder it lies in (`docs/.claude/skills` for `docs/.claude/skills/x/SKILL.md`) or the
 * steering file it is; undefined for none. What a command in an untrusted run changed there is
 * put back as a whole.
 */
export function steeringUnit(path: string): string | undefined {
  const segments = path.split("/").filter(Boolean);
  // The topmost one: `.reson` holding a `.claude/skills` is put back as `.reson`.
  let end = Number.POSITIVE_INFINITY;
  for (const folder of STEERING_FOLDERS) {
    const parts = folder.split("/");
    for (let at = 0; at + parts.length <= Math.min(segments.length, end); at++)
      if (parts.every((part, i) => segments[at + i] === part)) {
        end = at + parts.length;
        break;
      }
  }
  if (end !== Number.POSITIVE_INFINITY) return segments.slice(0, end).join("/");
  return STEERING_FILES.includes(segments.at(-1) ?? "") ? segments.join("/") : undefined;
}
