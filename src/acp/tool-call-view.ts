// How a tool call looks in the editor: its kind (the icon), a title, the files it touches
// (follow-along), and its content: a file change as a diff, a command as its text, a result as
// text (the end of it, when it is long). A title and a command are what the user approves, so
// their control characters and bidirectional overrides are written out (core's sanitiser), as
// the terminal and the web view do; rawInput keeps the arguments exact.
import { realpathSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import { inertImages } from "../core/markdown-images.js";
import { isWithin } from "../core/path-within.js";
import { printable, printableLines } from "../core/printable-text.js";
import type { FileChange } from "../tools/index.js";

/** Characters of a tool's output shown in the editor (the model saw what the registry kept). */
const RESULT_CHARS = 4_000;
const TITLE_CHARS = 80;

const KINDS: Record<string, ToolKind> = {
  read_file: "read",
  read_artifact: "read",
  list_files: "read",
  read_resource: "read",
  skill: "read",
  write_file: "edit",
  edit_file: "edit",
  glob: "search",
  grep: "search",
  tool_search: "search",
  recall: "search",
  execute_command: "execute",
  web_fetch: "fetch",
  browser_navigate: "fetch",
  goal: "think",
};

export function toolKind(name: string): ToolKind {
  return KINDS[name] ?? "other";
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function oneLine(value: string, max = TITLE_CHARS): string {
  const flat = value.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The call's one-line title, everything that could reorder or hide part of it written out. */
export function toolTitle(name: string, args: Record<string, unknown>): string {
  return inertImages(printable(rawTitle(name, args)));
}

function rawTitle(name: string, args: Record<string, unknown>): string {
  const path = text(args.path);
  switch (name) {
    case "read_file":
      return `Read ${path}`;
    case "write_file":
      return `Write ${path}`;
    case "edit_file":
      return `Edit ${path}`;
    case "list_files":
      return `List ${path || "."}`;
    case "glob":
      return `Find ${oneLine(text(args.pattern))}`;
    case "grep":
      return `Search for ${oneLine(text(args.pattern))}${path ? ` in ${path}` : ""}`;
    case "execute_command":
      return `Run ${oneLine(text(args.command))}`;
    case "web_fetch":
      return `Fetch ${oneLine(text(args.url))}`;
    case "goal":
      return `Plan: ${oneLine(`${text(args.action)} ${text(args.title) || text(args.id)}`)}`;
    case "skill":
      return `Use the skill ${text(args.name)}`;
    case "subagent":
      return `Sub-agent (${text(args.mode)})`;
    case "ask_human":
      return `Question: ${oneLine(text(args.question))}`;
    default:
      return name;
  }
}

/**
 * The files a call reads or changes, as absolute paths (ACP's paths are absolute); only those in
 * the workspace, where the call can reach: an editor following along opens each location, and a
 * fooled model's read of ~/.ssh/id_rsa, refused by the workspace, would still put the key on
 * the screen.
 */
export function toolLocations(name: string, args: Record<string, unknown>, root: string): ToolCallLocation[] {
  const path = text(args.path);
  if (!path || !(name in KINDS) || KINDS[name] === "execute" || KINDS[name] === "fetch") return [];
  const absolute = isAbsolute(path) ? path : join(root, path);
  if (!inWorkspace(absolute, root)) return [];
  const line = typeof args.offset === "number" ? { line: args.offset } : {};
  return [{ path: absolute, ...line }];
}

/** Within the root by name, and where it leads when it exists (a link out of the workspace is not). */
function inWorkspace(path: string, root: string): boolean {
  if (!isWithin(path, root)) return false;
  try {
    return isWithin(realpathSync(path), root);
  } catch {
    // Not there (yet): a file a write will make, in the workspace by name.
    return true;
  }
}

/**
 * Text the editor shows with a call: never anything its Markdown would load unasked (an image,
 * an img tag), whatever the run read, since a call's arguments and results are what a fooled
 * model or a page wrote (core/markdown-images.ts).
 */
export function textContent(value: string): ToolCallContent {
  return { type: "content", content: { type: "text", text: inertImages(value) } };
}

/** A file change as the editor's diff view shows it. */
export function diffContent(change: FileChange, root: string): ToolCallContent {
  return {
    type: "diff",
    path: isAbsolute(change.path) ? change.path : join(root, change.path),
    oldText: change.before,
    newText: change.after,
  };
}

/**
 * Where reson runs a session's commands, shown with each one. Never in the editor's terminal
 * (terminal/*): a command the editor runs is outside reson's sandbox, its limits and its
 * cancel, and is no faster (bench/acp-terminal.mjs); so in reson's OS sandbox, or, where that
 * is off or does not work, without one, and then the reason is said with every command.
 * `sandboxOff`: why commands run without the sandbox (the runner's summary), else undefined.
 */
export function commandPlace(sandboxOff: string | undefined): string {
  return sandboxOff
    ? `Runs in reson, WITHOUT an OS sandbox (${sandboxOff}), not in the editor's terminal.`
    : "Runs in reson's OS sandbox (writes only inside the workspace, protected paths read-only), not in the editor's terminal.";
}

/**
 * What the editor shows of a call before it runs: its diff, or the command it would run and
 * where (`place`, commandPlace).
 */
export function callContent(name: string, args: Record<string, unknown>, place?: string): ToolCallContent[] {
  if (name === "execute_command")
    return [textContent(`$ ${printableLines(text(args.command))}`), ...(place ? [textContent(place)] : [])];
  return [];
}

/** A result's text, its end kept when it is long (a command's last lines say the most). */
export function resultText(content: string, error?: { code: string; message: string }): string {
  const body = content.length > RESULT_CHARS ? `…\n${content.slice(-RESULT_CHARS)}` : content;
  if (!error) return body;
  const why = `${error.code}: ${error.message}`;
  return body && !body.includes(error.message) ? `${why}\n${body}` : why;
}
