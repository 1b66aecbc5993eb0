// The built-in set of commands that only read, so need no approval in any mode. A command
// qualifies only in the forms listed here; a flag that can write or run something else
// (`find -exec`, `sort -o`, `git branch -d`, `rg --pre`) takes it out of the set.

/** Commands that read whatever their arguments. */
const ALWAYS_READ_ONLY = new Set([
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "pwd",
  "echo",
  "printf",
  "which",
  "type",
  "whoami",
  "id",
  "stat",
  "file",
  "tree",
  "du",
  "df",
  "diff",
  "cmp",
  "comm",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "uname",
  "true",
  "false",
  "test",
  "[",
  "grep",
  "egrep",
  "fgrep",
  "cut",
  "tr",
  "nl",
  "md5sum",
  "sha1sum",
  "sha256sum",
  "sha512sum",
  "jq",
  "printenv",
  "cd",
]);

/** Flags that make an otherwise reading command write or execute. */
const WRITING_FLAGS: Readonly<Record<string, RegExp>> = {
  find: /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/,
  rg: /^--pre(=|$)/,
  sort: /^(-o|--output(=|$)|-o.+)/,
  date: /^(-s|--set(=|$))/,
};

const GIT_READ_ONLY = new Set([
  "status",
  "diff",
  "log",
  "show",
  "blame",
  "ls-files",
  "ls-tree",
  "rev-parse",
  "describe",
  "shortlog",
  "grep",
  "cat-file",
  "merge-base",
  "name-rev",
  "whatchanged",
]);

const GIT_BRANCH_LISTING_FLAGS =
  /^(-a|-r|-v|-vv|--all|--remotes|--list|-l|--show-current|--verbose|--no-color|--color(=.*)?|--contains|--no-contains|--merged|--no-merged|--sort=.*|--format=.*|--points-at)$/;

export function isReadOnlyCommand(args: readonly string[]): boolean {
  const [name, ...rest] = args;
  if (name === undefined) return true;
  if (name === "git") return isReadOnlyGit(rest);
  if (name === "sed") return isReadOnlySed(rest);
  if (name === "uniq") return rest.filter((arg) => !arg.startsWith("-")).length <= 1;
  if (name === "command") return rest[0] === "-v" || rest[0] === "-V";
  const writing = WRITING_FLAGS[name];
  if (writing) return !rest.some((arg) => writing.test(arg));
  return ALWAYS_READ_ONLY.has(name);
}

function isReadOnlyGit(args: readonly string[]): boolean {
  let k = 0;
  // Global options before the subcommand; `-c` can set an alias or pager, so it is not read-only.
  while (k < args.length && args[k]!.startsWith("-")) {
    const opt = args[k]!;
    if (opt === "-C") k += 2;
    else if (opt === "--no-pager" || opt === "--no-optional-locks" || opt === "-P") k += 1;
    else return false;
  }
  const sub = args[k];
  const rest = args.slice(k + 1);
  if (sub === undefined) return false;
  if (rest.some((arg) => /^--(output|ext-diff)(=|$)/.test(arg))) return false;
  if (GIT_READ_ONLY.has(sub)) return true;
  switch (sub) {
    case "branch":
      return rest.every((arg) => GIT_BRANCH_LISTING_FLAGS.test(arg));
    case "tag":
      return rest.length === 0 || rest[0] === "-l" || rest[0] === "--list";
    case "remote":
      return rest.length === 0 || (rest.length === 1 && (rest[0] === "-v" || rest[0] === "--verbose"));
    case "stash":
      return rest[0] === "list" || rest[0] === "show";
    case "reflog":
      return rest.length === 0 || rest[0] === "show";
    case "config":
      return (
        rest.some((arg) => /^(--get|--get-all|--get-regexp|--list|-l)$/.test(arg)) &&
        !rest.some((arg) =>
          /^(--add|--unset|--unset-all|--replace-all|--edit|-e|--rename-section|--remove-section)$/.test(arg),
        )
      );
    default:
      return false;
  }
}

/** `sed -n '1,20p' file` and the like: printing lines, never `-i`, never `w` or `e` scripts. */
function isReadOnlySed(args: readonly string[]): boolean {
  const printScript = /^(\d+|\$)?(,(\d+|\$))?[pd]$/;
  let sawScript = false;
  for (const arg of args) {
    if (arg === "-n" || arg === "-E" || arg === "-r" || arg === "--quiet" || arg === "--silent") continue;
    if (arg.startsWith("-")) return false;
    if (!sawScript) {
      if (!arg.split(";").every((piece) => printScript.test(piece.trim()))) return false;
      sawScript = true;
    }
  }
  return sawScript;
}
