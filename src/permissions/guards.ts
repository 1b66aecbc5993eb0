// The guards no rule or mode can loosen: writes to protected paths (version control, reson's
// own settings, shell start-up files, credentials) and recursive deletion of critical paths
// (root, top-level folders, home, the workspace and its parents) are always asked.
import { basename, isAbsolute, resolve, sep } from "node:path";
import { isBelow, isWithin } from "../core/path-within.js";
import { hasSubstitutionMark } from "./shell-parse.js";

/** Folders whose contents are protected, at any depth. */
export const PROTECTED_DIRS: readonly string[] = [
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

/** Files protected wherever they are. */
export const PROTECTED_FILES: readonly string[] = [
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
}

/** Expands `~`, `$HOME` and `${HOME}` and resolves against `cwd`; variables other than HOME stay as written. */
export function resolveUserPath(path: string, cwd: string, userHome: string): string {
  let expanded = path;
  if (expanded === "~" || expanded.startsWith("~/")) expanded = userHome + expanded.slice(1);
  expanded = expanded.replace(/^\$\{HOME\}|^\$HOME(?![A-Za-z0-9_])/, userHome);
  return resolve(cwd, expanded);
}

/** Why writing `absPath` must be asked, or undefined when it is not protected. */
export function protectedPathReason(absPath: string): string | undefined {
  const segments = absPath.split(sep).filter(Boolean);
  const dir = segments.slice(0, -1).find((segment) => PROTECTED_DIRS.includes(segment));
  if (dir) return `${absPath} is inside a protected folder (${dir})`;
  const name = basename(absPath);
  if (PROTECTED_DIRS.includes(name)) return `${absPath} is a protected folder`;
  if (PROTECTED_FILES.includes(name) || name.startsWith(".env."))
    return `${absPath} is a protected file (${name})`;
  const configAt = segments.indexOf(".config");
  if (configAt >= 0 && ["git", "fish"].includes(segments[configAt + 1] ?? ""))
    return `${absPath} is protected shell or git configuration`;
  return undefined;
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
