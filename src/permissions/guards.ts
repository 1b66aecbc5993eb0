// The guards no rule or mode can loosen: writes to protected paths and recursive deletion of
// critical paths (root, top-level folders, home, the workspace and its parents) are always
// asked. Inside the workspace, "protected" is the workspace's one protected list (the same the
// sandbox keeps read-only for commands), judged on the part of the path below the workspace
// root only; elsewhere, the user's start-up files and credentials are judged by their names.
import { basename, isAbsolute, relative, resolve, sep } from "node:path";
import { isBelow, isWithin } from "../core/path-within.js";
import {
  DEFAULT_PROTECTED_KINDS,
  type ProtectedEntry,
  type ProtectedKind,
  protectedEntryOf,
} from "../workspace/index.js";
import { hasSubstitutionMark } from "./shell-parse.js";

/** Folders of the home folder (or beyond the workspace) whose contents are protected, at any depth. */
export const HOME_PROTECTED_DIRS: readonly string[] = [
  ".git",
  ".reson",
  ".ssh",
  ".gnupg",
  ".aws",
  ".kube",
  ".husky",
  ".vscode",
  ".idea",
  ".devcontainer",
];

/** Files of the home folder (or beyond the workspace) protected wherever they are. */
export const HOME_PROTECTED_FILES: readonly string[] = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".zlogout",
  ".kshrc",
  ".cshrc",
  ".tcshrc",
  ".inputrc",
  ".envrc",
  ".env",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pypirc",
  ".netrc",
  ".pgpass",
  ".gitconfig",
  ".gitmodules",
  ".git-credentials",
  ".mcp.json",
];

export interface PathContext {
  workspaceRoot: string;
  userHome: string;
  /** The protected list's kinds enforced (default ["executes"]; a tainted run adds "steers"). */
  protectedKinds?: readonly ProtectedKind[];
  /** The entry covering a root-relative path as part of a repository below the root, if any. */
  protectedBelow?: (path: string) => ProtectedEntry | undefined;
}

/** Expands `~`, `$HOME` and `${HOME}` and resolves against `cwd`; variables other than HOME stay as written. */
export function resolveUserPath(path: string, cwd: string, userHome: string): string {
  let expanded = path;
  if (expanded === "~" || expanded.startsWith("~/")) expanded = userHome + expanded.slice(1);
  expanded = expanded.replace(/^\$\{HOME\}|^\$HOME(?![A-Za-z0-9_])/, userHome);
  return resolve(cwd, expanded);
}

/** The protected-list entry (of the enforced kinds) covering `absPath` inside the workspace. */
export function workspaceProtectedEntry(absPath: string, ctx: PathContext): ProtectedEntry | undefined {
  if (!isWithin(absPath, ctx.workspaceRoot)) return undefined;
  const inside = relative(ctx.workspaceRoot, absPath).split(sep).join("/") || ".";
  const entry = protectedEntryOf(inside) ?? ctx.protectedBelow?.(inside);
  const kinds = ctx.protectedKinds ?? DEFAULT_PROTECTED_KINDS;
  return entry && kinds.includes(entry.kind) ? entry : undefined;
}

/** Why writing `absPath` (by the user's start-up files and credentials rules) must be asked. */
function byNameReason(absPath: string, segments: readonly string[]): string | undefined {
  const dir = segments.slice(0, -1).find((segment) => HOME_PROTECTED_DIRS.includes(segment));
  if (dir) return `${absPath} is inside a protected folder (${dir})`;
  const name = basename(absPath);
  if (HOME_PROTECTED_DIRS.includes(name)) return `${absPath} is a protected folder`;
  if (HOME_PROTECTED_FILES.includes(name) || name.startsWith(".env."))
    return `${absPath} is a protected file (${name})`;
  const configAt = segments.indexOf(".config");
  if (configAt >= 0 && ["git", "fish"].includes(segments[configAt + 1] ?? ""))
    return `${absPath} is protected shell or git configuration`;
  return undefined;
}

/**
 * Why writing `absPath` must be asked, or undefined when it is not protected. Inside the
 * workspace only the part below its root counts, against the protected list (a workspace kept
 * in ~/.reson/workspaces is not "inside .reson"); in the home folder, the part below home, by
 * name; anywhere else, the whole path by name.
 */
export function protectedPathReason(absPath: string, ctx: PathContext): string | undefined {
  const entry = workspaceProtectedEntry(absPath, ctx);
  if (entry) {
    const inside = relative(ctx.workspaceRoot, absPath).split(sep).join("/");
    return `${inside} is protected: ${entry.reader}`;
  }
  if (isWithin(absPath, ctx.userHome)) {
    const segments = relative(ctx.userHome, absPath).split(sep).filter(Boolean);
    // The workspace's own files are judged by the list alone, even when it lies in home.
    if (isWithin(absPath, ctx.workspaceRoot) && !isWithin(ctx.userHome, ctx.workspaceRoot)) return undefined;
    return byNameReason(absPath, segments);
  }
  if (isWithin(absPath, ctx.workspaceRoot)) return undefined;
  return byNameReason(absPath, absPath.split(sep).filter(Boolean));
}

const GLOB_CHARS = /[*?[]/;

/**
 * Why deleting `target` recursively (from `cwd`) is critical, or undefined.
 * `cwd` undefined means an earlier `cd` went somewhere we cannot know.
 */
export function criticalTargetReason(
  target: string,
  cwd: string | undefined,
  ctx: PathContext,
): string | undefined {
  const unexpanded = target.replace(/^\$\{HOME\}|^\$HOME(?![A-Za-z0-9_])/, "~");
  if (/[$`]/.test(unexpanded) || hasSubstitutionMark(unexpanded))
    return `${target} depends on a variable or substitution`;
  if (cwd === undefined && !isAbsolute(unexpanded) && !unexpanded.startsWith("~"))
    return `${target} is relative to a directory reached by cd that reson cannot know`;
  const base = cwd ?? ctx.workspaceRoot;
  const segments = unexpanded.split("/");
  const globAt = segments.findIndex((segment) => GLOB_CHARS.test(segment));
  if (globAt >= 0) {
    const parentText = segments.slice(0, globAt).join("/") || (unexpanded.startsWith("/") ? "/" : ".");
    const parent = resolveUserPath(parentText, base, ctx.userHome);
    const everything = /^(\*|\.\*|\*\*|\*\.\*|\.\[!.\]\*)$/.test(segments[globAt]!);
    if (parent === "/") return `${target} matches top-level folders`;
    if (everything) return criticalDirReason(parent, target, ctx);
    return undefined;
  }
  const abs = resolveUserPath(unexpanded, base, ctx.userHome);
  const climbs = segments.includes("..") && !isWithin(abs, ctx.workspaceRoot);
  if (climbs) return `${target} climbs out of the workspace`;
  return criticalDirReason(abs, target, ctx);
}

function criticalDirReason(abs: string, target: string, ctx: PathContext): string | undefined {
  if (abs === "/") return `${target} is the filesystem root`;
  if (resolve(abs, "..") === "/") return `${target} is a top-level folder`;
  if (abs === ctx.userHome || isParent(abs, ctx.userHome)) return `${target} is your home folder or above it`;
  if (abs === ctx.workspaceRoot || isParent(abs, ctx.workspaceRoot))
    return `${target} is the workspace root or above it`;
  return undefined;
}

function isParent(dir: string, child: string): boolean {
  return isBelow(child, dir);
}

/** The targets of `rm` when it deletes recursively, else an empty list. */
export function recursiveRmTargets(args: readonly string[]): string[] {
  if (args[0] !== "rm") return [];
  let recursive = false;
  const targets: string[] = [];
  let optionsDone = false;
  for (const arg of args.slice(1)) {
    if (!optionsDone && arg === "--") {
      optionsDone = true;
      continue;
    }
    if (!optionsDone && arg.startsWith("--")) {
      if (arg === "--recursive") recursive = true;
      continue;
    }
    if (!optionsDone && arg.startsWith("-") && arg.length > 1) {
      if (/[rR]/.test(arg)) recursive = true;
      continue;
    }
    targets.push(arg);
  }
  return recursive ? targets : [];
}

/** The start folders of `find … -delete` when nothing narrows what it deletes by name. */
export function findDeleteTargets(args: readonly string[]): string[] {
  if (args[0] !== "find" || !args.includes("-delete")) return [];
  if (args.some((arg) => /^-(i?name|i?path|i?regex|i?wholename)$/.test(arg))) return [];
  const starts: string[] = [];
  for (const arg of args.slice(1)) {
    if (arg.startsWith("-") || arg === "(" || arg === "!") break;
    starts.push(arg);
  }
  return starts.length > 0 ? starts : ["."];
}

/** Files a command writes by its arguments (best effort), checked against protected paths. */
export function commandWriteTargets(args: readonly string[]): string[] {
  const [name, ...rest] = args;
  const positional = rest.filter((arg) => !arg.startsWith("-"));
  switch (name) {
    case "tee":
    case "touch":
    case "rm":
    case "rmdir":
    case "mkdir":
    case "truncate":
    case "chmod":
    case "chown":
    case "shred":
    case "mv":
      return positional;
    case "cp":
    case "install":
    case "ln": {
      const targetDir = rest.findIndex((arg) => arg === "-t" || arg === "--target-directory");
      if (targetDir >= 0 && rest[targetDir + 1]) return [rest[targetDir + 1]!];
      return positional.slice(-1);
    }
    case "sed":
      return rest.some((arg) => /^(-i|--in-place)/.test(arg) || /^-[a-zA-Z]*i/.test(arg))
        ? positional.slice(1)
        : [];
    case "dd":
      return rest.filter((arg) => arg.startsWith("of=")).map((arg) => arg.slice(3));
    default:
      return [];
  }
}
