// The name a page's download is kept under in the workspace's downloads/ folder. A page chooses
// the name, so one that something reads as its own settings or instructions where it lies (an
// AGENTS.md or CLAUDE.md a later run started there follows, a .envrc, .npmrc or .mcp.json that
// tools and agents run from, anything on the protected list) is kept as `download-<name>`:
// the bytes are the user's to look at, never a file that steers or runs.
import { protectedEntryOf, STEERING_FILES } from "../workspace/index.js";

export function downloadName(suggested: string): string {
  const name = suggested.trim() === "" ? "download" : suggested;
  const steers = STEERING_FILES.includes(name) || protectedEntryOf(name) !== undefined;
  return steers || name.startsWith(".") ? `download-${name}` : name;
}
